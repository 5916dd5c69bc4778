"""An answer the reader does not give again, through the real parts: multilingual-e5, FAISS, BM25 and the
default 1.5B model (llama.cpp) over NoMIRACL-id questions and their own passages.

"siapakah robot terbesar di Transformers?" has no passage that answers it (NoMIRACL's non-relevant set);
the reader answered "Reflector" reading the passages in one order and "Menasor" in the other, over
evidence whose best relevance was 0.32. Preset A reads an answer a second time when the evidence is weak
and withdraws it when the two readings disagree (ABSTAIN_INCONSISTENT_ANSWER;
docs/benchmark-log.md, 2026-11-26/27: the second reading). "Ada berapa pulau di Indonesia?" has strong
evidence (relevance 0.89): no second call is paid and the answer stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import ask, resolve_config
from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.services import register_services, services_for_passages

pytestmark = pytest.mark.e2e


def _ask_over_own_passages(question: str, datasets_dir: Path, tmp_path: Path) -> dict[str, Any]:
    items = load_dataset(datasets_dir / "nomiracl", language="id", limit=70).items
    item = next(i for i in items if i.question == question)
    extra = {"llm.model": "local"}  # the default 1.5B: the readings below are its own
    services_id = register_services(services_for_passages(list(item.passages), resolve_config("A", extra)))
    overrides = {"resources.services_id": services_id, "resources.checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    return ask(item.question, preset="A", overrides=overrides)


def _stages(result: dict[str, Any]) -> list[str]:
    return [c["stage"] for c in result["telemetry"]["calls"]]


def test_a_withdraws_an_answer_read_differently_on_weak_evidence(datasets_dir: Path, tmp_path: Path) -> None:
    config = resolve_config("A", {})
    result = _ask_over_own_passages("siapakah robot terbesar di Transformers?", datasets_dir, tmp_path)
    signals = result["telemetry"]["gate"][-1]["signals"]
    assert signals["top_relevance"] < config.retrieval.e5_scale["gate.second_reading_below_relevance"]
    reading = result["telemetry"]["second_reading"]
    assert reading is not None and _stages(result).count("second_reading") == 1, _stages(result)
    assert reading["agree"] is False, reading  # "Reflector" then "Menasor" with this machine's build
    assert signals["answer_inconsistent"] is True
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_INCONSISTENT_ANSWER"), result["answer"]
    assert result["tokens"]["by_stage"]["second_reading"]["calls"] == 1


def test_strong_evidence_is_read_once(datasets_dir: Path, tmp_path: Path) -> None:
    config = resolve_config("A", {})
    result = _ask_over_own_passages("Ada berapa pulau di Indonesia?", datasets_dir, tmp_path)
    signals = result["telemetry"]["gate"][-1]["signals"]
    assert signals["top_relevance"] >= config.retrieval.e5_scale["gate.second_reading_below_relevance"]
    assert "second_reading" not in _stages(result)
    assert signals["answer_inconsistent"] is None
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK"), result["answer"]
    assert "17.504" in result["answer"]

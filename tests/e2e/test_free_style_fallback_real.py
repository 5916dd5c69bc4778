"""The free-style fallback through the real parts: the default 1.5B model (llama.cpp), MiniLM, FAISS
and BM25 over a ClapNQ question's own passage, read from ../shared/datasets.

On "who are the sirens in brother where art thou" B declined the quoted prompt (the shortest answer,
then the sentence that states it) and abstained, while baseline, asked in sentences over the same
passage, answered "the three women washing clothes and singing" (ClapNQ 141-220, 2026-11-27;
records: bench/results/eval_1p5b_2026-11-27_long_form_gold/clapnq141_220). With `free_style_fallback`
the declined draft is asked again in sentences.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import ask, resolve_config
from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.services import register_services, services_for_passages

pytestmark = pytest.mark.e2e

QUESTION = "who are the sirens in brother where art thou"


def _ask(datasets_dir: Path, tmp_path: Path, fallback: bool) -> dict[str, Any]:
    items = load_dataset(datasets_dir / "clapnq", limit=220).items
    item = next(i for i in items if i.question == QUESTION)
    extra = {"llm": "local", "free_style_fallback": fallback}
    services_id = register_services(services_for_passages(list(item.passages), resolve_config("A", extra)))
    overrides = {"services_id": services_id, "checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    return ask(item.question, preset="A", overrides=overrides)


def test_a_declined_short_answer_is_given_in_sentences(datasets_dir: Path, tmp_path: Path) -> None:
    without = _ask(datasets_dir, tmp_path / "off", fallback=False)
    first = without["telemetry"]["draft_structure"] or {}
    # the 1.5B reader declines the quoted prompt, or answers with the question's own word ("Sirens"),
    # which counts as declining; which of the two depends on the CPU's arithmetic
    declined = first.get("status") == "declined" or without["telemetry"]["gate"][0]["signals"]["non_answer"]
    assert declined, f"the reader answered the short form: {without['answer']!r}"
    assert (without["decision"], without["reason"]) == ("ABSTAIN", "ABSTAIN_MODEL_IDK")
    with_fallback = _ask(datasets_dir, tmp_path / "on", fallback=True)
    assert with_fallback["telemetry"]["style_fallback"] == "answered"
    assert (with_fallback["decision"], with_fallback["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert "women" in with_fallback["answer"].lower()
    stages = [c["stage"] for c in with_fallback["telemetry"]["calls"]]
    assert stages[:2] == ["generate", "generate_free_fallback"]

"""An answer span written as a guess, through the real parts: the default 1.5B model (llama.cpp, its own
logprobs), MiniLM, FAISS and BM25 over ClapNQ questions and their own passages.

"how many ots are there in the nfl" and "how many episodes of supergirl is superman in" were answered
"3", a number the reader wrote with an answer-span confidence under 0.1 (the first has no such count
in its passages, the second is unanswerable). Below 0.17 every answer of the tuned splits was wrong,
so A withdraws it (ABSTAIN_UNCERTAIN_ANSWER; docs/benchmark-log.md, 2026-11-26: answers written as a
guess). A confident answer stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import ask, resolve_config
from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.services import register_services, services_for_passages

pytestmark = pytest.mark.e2e

GUESSED = ("how many ots are there in the nfl", "how many episodes of supergirl is superman in")


def _ask(passages: list[Passage], question: str, tmp_path: Path) -> dict[str, Any]:
    extra = {"llm": "local"}
    services_id = register_services(services_for_passages(passages, resolve_config("A", extra)))
    overrides = {"services_id": services_id, "checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    return ask(question, preset="A", overrides=overrides)


def test_a_withdraws_an_answer_the_reader_guessed(datasets_dir: Path, tmp_path: Path) -> None:
    threshold = resolve_config("A", {}).answer_uncertainty_threshold
    items = load_dataset(datasets_dir / "clapnq", limit=80).items
    withdrawn = 0
    for n, question in enumerate(GUESSED):
        item = next(i for i in items if i.question == question)
        result = _ask(list(item.passages), item.question, tmp_path / str(n))
        last = result["telemetry"]["gate"][-1]["signals"]
        if last["answer_confidence"] is not None and last["answer_confidence"] < threshold and not last["idk"]:
            assert last["answer_uncertain"] is True
            assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_UNCERTAIN_ANSWER"), result["answer"]
            withdrawn += 1
        else:
            assert result["reason"] != "ABSTAIN_UNCERTAIN_ANSWER"
    # the reader guessed "3" on both with this machine's build (answer confidence 0.09 and 0.04)
    assert withdrawn >= 1, "the reader guessed neither answer: the rule was not exercised"


def test_a_confident_answer_stands(tmp_path: Path) -> None:
    passages = [
        Passage("tea", "Green tea", "Green tea is brewed from the leaves of Camellia sinensis."),
        Passage("coffee", "Coffee", "Coffee is brewed from roasted coffee beans. Brazil grows the most coffee."),
    ]
    result = _ask(passages, "Which country grows the most coffee?", tmp_path)
    last = result["telemetry"]["gate"][-1]["signals"]
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK"), result["answer"]
    assert "Brazil" in result["short_answer"] and last["answer_uncertain"] is False

"""An answer out of a sentence about something else, through the real parts: the default 1.5B model
(llama.cpp), MiniLM, FAISS and BM25 over dataset passages read from ../shared/datasets.

On ClapNQ "where does manners maketh the man come from", over William Horman's page (the gold: his
Vulgaria), the reader answered "Que Sera, Sera" out of the sentence '"That the whiche muste be wyll
be" reflects the Spanish "Que Sera, Sera"', which says nothing about manners, and the support measure
and the judge both passed it. A now withdraws such an answer (ABSTAIN_OFF_TOPIC_ANSWER;
docs/benchmark-log.md, 2026-11-27: off-topic answers withdrawn). A right answer whose sentence is on
the question stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import ask, resolve_config
from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.answer.answer_topic import draft_off_topic
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.services import register_services, services_for_passages

pytestmark = pytest.mark.e2e


def _ask(passages: list[Passage], question: str, tmp_path: Path) -> dict[str, Any]:
    extra = {"llm": "local"}
    services_id = register_services(services_for_passages(passages, resolve_config("A", extra)))
    overrides = {"services_id": services_id, "checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    return ask(question, preset="A", overrides=overrides)


def _last_signals(result: dict[str, Any]) -> dict[str, Any]:
    return result["telemetry"]["gate"][-1]["signals"]


def test_a_withdraws_an_answer_its_sentence_does_not_relate_to_the_question(datasets_dir: Path, tmp_path: Path) -> None:
    items = load_dataset(datasets_dir / "clapnq", limit=80).items
    item = next(i for i in items if i.question.startswith("where does manners maketh the man come from"))
    result = _ask(list(item.passages), item.question, tmp_path)
    draft = result["telemetry"]["draft"]
    context = [{"title": p.title, "text": p.text} for p in item.passages]
    off_topic = draft_off_topic(item.question, draft, context)
    assert _last_signals(result)["answer_off_topic"] is off_topic
    # the 1.5B reader answered "Que Sera, Sera" on this machine's build
    assert off_topic is True, f"the reader gave an on-topic answer, the rule was not exercised: {draft!r}"
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_OFF_TOPIC_ANSWER")
    assert result["answer"].lower().startswith("i don't know")


def test_an_answer_from_a_sentence_on_the_question_stands(datasets_dir: Path, tmp_path: Path) -> None:
    corpus = {p.id: p for p in load_dataset(datasets_dir / "nq_open_oracle").corpus or ()}
    # the tree question's own passage, beside a song passage and a film passage the NQ-open run retrieved with it
    passages = [corpus["nq:7f1a1032c0d72e44"], corpus["nq:a812c89aaa2b4126"], corpus["nq:8796770e25458342"]]
    result = _ask(passages, "who said if a tree falls in the woods and nobody hears it", tmp_path)
    assert _last_signals(result)["answer_off_topic"] is False
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK"), result["answer"]
    assert "Mann" in result["short_answer"]

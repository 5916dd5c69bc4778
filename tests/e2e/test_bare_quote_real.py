"""A quote that holds nothing but the answer, through the real parts: the default 1.5B model (llama.cpp),
MiniLM, FAISS and BM25 over a film page whose cast is a list of bare names.

On the CRAG sample, "who was the first actor to play the role of a comic book villain in a live-action
movie?" was answered "Steven Yeun", quoting the line "Steven Yeun" of a cast list (the gold: Carol
Forman). The verified quote held the answer, so it counted as full support and A stopped on a wrong
answer. The quote states nothing about the question: A now withdraws it (ABSTAIN_BARE_QUOTE;
docs/benchmark-log.md, 2026-11-26: quotes that state nothing). The same reader does the same here,
for a question the page answers only in part (who played the villain) and for one it does not answer
at all (who directed it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import ask, resolve_config
from anchorgate.tools.answer.quoted_draft import bare_quote
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.services import register_services, services_for_passages

pytestmark = pytest.mark.e2e

FILM_PAGE = Passage(
    "cast",
    "Nightfall Harbor (film)",
    "Nightfall Harbor is a 2019 American crime film.\nCast\nSteven Yeun\nOscar Isaac\nMahershala Ali\n"
    "Release\nThe film opened in October 2019.",
)
REVIEWS = Passage("reviews", "Nightfall Harbor reviews", "Critics praised the harbor scenes of Nightfall Harbor.")
DIRECTOR = Passage("director", "Lena Park", "Lena Park directed Nightfall Harbor, her first crime film, in 2019.")


def _ask(passages: list[Passage], question: str, tmp_path: Path) -> dict[str, Any]:
    extra = {"llm": "local"}
    services_id = register_services(services_for_passages(passages, resolve_config("A", extra)))
    overrides = {"services_id": services_id, "checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    return ask(question, preset="A", overrides=overrides)


def _bare(result: dict[str, Any], question: str) -> bool:
    structure = result["telemetry"]["draft_structure"] or {}
    return structure.get("status") == "quoted" and bare_quote(structure["answer"], structure["quotes"], question)


def test_a_withdraws_answers_quoted_bare_from_a_cast_list(tmp_path: Path) -> None:
    withdrawn = 0
    for n, question in enumerate(["Who played the villain in Nightfall Harbor?", "Who directed Nightfall Harbor?"]):
        result = _ask([FILM_PAGE, REVIEWS], question, tmp_path / str(n))
        assert result["telemetry"]["gate"][-1]["signals"]["bare_quote"] is _bare(result, question)
        assert result["decision"] == "ABSTAIN", result["answer"]
        if _bare(result, question):
            assert result["reason"] == "ABSTAIN_BARE_QUOTE"
            withdrawn += 1
    # the 1.5B reader quoted "Steven Yeun" for both on this machine's build
    assert withdrawn >= 1, "the reader quoted no bare name: the rule was not exercised"


def test_an_answer_its_quoted_sentence_states_still_stops(tmp_path: Path) -> None:
    question = "Who directed Nightfall Harbor?"
    result = _ask([FILM_PAGE, REVIEWS, DIRECTOR], question, tmp_path)
    assert not _bare(result, question)
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert "Lena Park" in result["short_answer"]

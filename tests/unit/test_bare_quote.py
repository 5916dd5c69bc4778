"""A quote that holds nothing but the answer states nothing about the question.

CRAG: "who was the first actor to play the role of a comic book villain in a live-action movie?" was
answered "Steven Yeun" with the quote "Steven Yeun", a line of a cast list; the answer was wrong and
preset A stopped on it, since a verified quote holding the answer counted as full support.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorgate.api import aask
from anchorgate.graph.gate import decide, needs_judge
from anchorgate.graph.presets import load_preset
from anchorgate.tools.answer.quoted_draft import bare_quote
from anchorgate.tools.corpus.documents import Passage
from tests.fakes import ScriptedChatModel
from tests.unit.test_agents_graph import _setup
from tests.unit.test_gate import sig

A = load_preset("A")
B = load_preset("B")
VILLAIN = "Who was the first actor to play a comic book villain in a live-action movie?"
PASSAGES = [
    Passage("cast", "Villains on screen", "Cast\nSteven Yeun\nOscar Isaac\nComic book villains in film history."),
    Passage("serial", "The Spider Lady", "Carol Forman played the Spider Lady, the first comic book villain on film."),
]
BARE = sig(draft_status="quoted", quote_verified=True, answer_grounding=1.0, overlap=1.0, bare_quote=True)


def _found(*texts: str) -> list[dict[str, Any]]:
    return [{"text": t, "match": t, "status": "verbatim"} for t in texts]


def test_a_quote_of_only_the_answer_is_bare() -> None:
    assert bare_quote("Steven Yeun", _found("Steven Yeun"), VILLAIN)
    assert bare_quote("Steven Yeun, Oscar Isaac", _found("Steven Yeun", "Oscar Isaac"), VILLAIN)


def test_a_quote_that_says_something_about_the_answer_is_not_bare() -> None:
    assert not bare_quote("Carol Forman", _found("Carol Forman played the Spider Lady."), VILLAIN)
    assert not bare_quote("1889", _found("The tower was finished in 1889."), "When was the tower finished?")
    assert not bare_quote("Steven Yeun", [{"text": "Steven Yeun", "match": None, "status": "absent"}], VILLAIN)
    assert not bare_quote("Steven Yeun", [], VILLAIN)


def test_an_answer_that_repeats_a_quote_naming_the_question_s_subject_is_not_bare() -> None:
    sentence = "Roger Federer won the 2017 Australian Open"
    assert not bare_quote(sentence, _found(sentence + "."), "Who won the 2017 Australian Open?")


def test_the_gate_withdraws_a_bare_quote_and_asks_no_judge() -> None:
    assert decide(BARE, A) == ("ABSTAIN", "ABSTAIN_BARE_QUOTE")
    assert not needs_judge(BARE, B)
    assert decide(BARE, B) == ("RETRIEVE_MORE", "RETRIEVE_LOW_SUPPORT")  # B's round 2 first


def _reader(answer: str) -> ScriptedChatModel:
    def reply(prompt: str) -> str:
        return "YES" if "YES or NO" in prompt else answer

    return ScriptedChatModel(script=reply, report_usage=True)


async def _ask(tmp_path: Path, model: ScriptedChatModel, **extra: Any) -> dict[str, Any]:
    overrides = {
        "services_id": _setup(tmp_path, model, PASSAGES),
        "checkpoint_db": str(tmp_path / "c.sqlite"),
        "answer_style": "quoted",
        "relevance_floor": 0.0,  # bag-of-words scores of the toy index sit below the MiniLM floor
        **extra,
    }
    return await aask(VILLAIN, preset="A", overrides=overrides)


async def test_a_withdraws_an_answer_quoted_bare_from_a_list(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader("Steven Yeun\nQUOTE [1]: Steven Yeun"))
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_BARE_QUOTE")
    assert result["telemetry"]["gate"][-1]["signals"]["bare_quote"] is True


async def test_with_the_setting_off_the_bare_quote_stops_as_before(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader("Steven Yeun\nQUOTE [1]: Steven Yeun"), abstain_bare_quotes=False)
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert result["telemetry"]["gate"][-1]["signals"]["bare_quote"] is True


async def test_an_answer_its_quote_states_still_stops(tmp_path: Path) -> None:
    reply = "Carol Forman\nQUOTE [2]: Carol Forman played the Spider Lady, the first comic book villain on film."
    result = await _ask(tmp_path, _reader(reply))
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert result["short_answer"] == "Carol Forman"

"""`free_style_fallback`: a quoted draft that declines is asked again in sentences over the same passages.

ClapNQ: asked for the shortest answer to "who are the sirens in brother where art thou", the 1.5B
declined; asked in sentences over the same passage, it answered "the three women washing clothes and
singing" (the baseline's free-style answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorgate.api import aask
from anchorgate.tools.corpus.documents import Passage
from tests.fakes import ScriptedChatModel
from tests.unit.test_agents_graph import _setup

QUESTION = "Who are the sirens in the film?"
PASSAGES = [Passage("river", "The river scene", "The sirens are three women washing clothes and singing in the river.")]
FREE_ANSWER = "The sirens are three women washing clothes and singing in the river [1]."


def _reader(free_reply: str) -> ScriptedChatModel:
    """Declines the quoted (shortest-answer) prompt; answers the free-style prompt with `free_reply`."""

    def reply(prompt: str) -> str:
        if "YES or NO" in prompt or "Verdict" in prompt:
            return "YES"
        if "QUOTE" in prompt:
            return "I don't know"
        return free_reply

    return ScriptedChatModel(script=reply, report_usage=True)


async def _ask(tmp_path: Path, model: ScriptedChatModel, **extra: Any) -> dict[str, Any]:
    overrides = {
        "services_id": _setup(tmp_path, model, PASSAGES),
        "checkpoint_db": str(tmp_path / "c.sqlite"),
        "answer_style": "quoted",
        "relevance_floor": 0.0,  # bag-of-words scores of the toy index sit below the MiniLM floor
        **extra,
    }
    return await aask(QUESTION, preset="A", overrides=overrides)


def _stages(result: dict[str, Any]) -> list[str]:
    return [c["stage"] for c in result["telemetry"]["calls"]]


async def test_a_declined_short_form_is_answered_in_sentences(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(FREE_ANSWER), free_style_fallback=True)
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert "three women washing clothes" in result["answer"]
    assert result["telemetry"]["style_fallback"] == "answered"
    assert _stages(result)[:2] == ["generate", "generate_free_fallback"]  # the quoted call first, both paid
    assert result["tokens"]["by_stage"]["generate_free_fallback"]["calls"] == 1
    assert result["telemetry"]["gate"][-1]["signals"]["draft_status"] == "free"


async def test_off_the_decline_stands(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(FREE_ANSWER), free_style_fallback=False)
    assert result["reason"] == "ABSTAIN_MODEL_IDK"
    assert "generate_free_fallback" not in _stages(result) and result["telemetry"]["style_fallback"] is None


async def test_declining_in_sentences_too_keeps_the_quoted_decline(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader("I don't know."), free_style_fallback=True)
    assert result["reason"] == "ABSTAIN_MODEL_IDK"
    assert result["telemetry"]["style_fallback"] == "declined"
    assert result["telemetry"]["gate"][-1]["signals"]["draft_status"] == "declined"
    assert result["tokens"]["by_stage"]["generate_free_fallback"]["calls"] == 1  # asked, and paid for


async def test_a_free_answer_the_passages_do_not_support_is_not_stopped_on(tmp_path: Path) -> None:
    invented = "The sirens are robots from outer space built by a secret government lab [1]."
    result = await _ask(tmp_path, _reader(invented), free_style_fallback=True)
    assert result["telemetry"]["style_fallback"] == "answered"
    assert result["decision"] == "ABSTAIN"  # the gate measures the free draft like any other


async def test_a_short_answer_echoing_the_question_is_asked_in_sentences_too(tmp_path: Path) -> None:
    def reply(prompt: str) -> str:
        if "QUOTE" in prompt:  # the answer line only repeats the question's words: it answers nothing
            return f"The sirens in the film\nQUOTE [1]: {PASSAGES[0].text}"
        return FREE_ANSWER

    result = await _ask(tmp_path, ScriptedChatModel(script=reply, report_usage=True), free_style_fallback=True)
    assert result["telemetry"]["style_fallback"] == "answered"
    assert "three women" in result["answer"] and result["decision"] == "STOP"

"""A question of nested descriptions answered hop by hop (`gate.follow_hops`), through the whole graph.

A scripted reader over a bag-of-words index: hop 1 names the author, hop 2 asks where that author was
born. The final answer answers the last hop, never the bridge; the result lists the chain.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorgate.api import aask
from anchorgate.graph.gate import decide
from anchorgate.graph.presets import load_preset
from anchorgate.tools.answer.reader import uses_quotes
from anchorgate.tools.corpus.documents import Passage
from tests.fakes import ScriptedChatModel, quoting_aware
from tests.unit.test_agents_graph import _setup
from tests.unit.test_gate import sig

QUESTION = "Where was the author of Dead Ernest born?"
PASSAGES = [
    Passage("ernest", "Dead Ernest", "Dead Ernest is a novel written by Mara Quill and published in 1931."),
    Passage("quill", "Mara Quill", "Mara Quill was born in Tallinn and wrote novels about the sea."),
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
]


def _reader(first: str = "Mara Quill wrote Dead Ernest [1].") -> ScriptedChatModel:
    def reply(prompt: str) -> str:
        if "Question: Who is the author of Dead Ernest?" in prompt:
            return first
        if "Question: Where was Mara Quill born?" in prompt:
            return "Mara Quill was born in Tallinn [1]."
        return "I don't know."

    return ScriptedChatModel(script=quoting_aware(reply), report_usage=True)


async def _ask(tmp_path: Path, model: ScriptedChatModel, **extra: Any) -> dict[str, Any]:
    overrides = {
        "resources.services_id": _setup(tmp_path, model, PASSAGES),
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "retrieval.relevance_floor": 0.0,  # bag-of-words scores sit below the MiniLM floor
        "answer.style": "free",
        "judge.policy": "never",
        "gate.follow_hops": True,
        **extra,
    }
    return await aask(QUESTION, preset="A", overrides=overrides)


async def test_each_hop_is_answered_and_the_last_answers_the_question(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader())
    assert result["decision"] == "STOP" and "Tallinn" in result["answer"]
    (first, last) = result["hops"]
    assert (first["question"], first["answer"]) == ("Who is the author of Dead Ernest?", "Mara Quill")
    assert first["citations"][0]["title"] == "Dead Ernest"
    assert last["question"] == "Where was Mara Quill born?" and last["citations"][0]["title"] == "Mara Quill"
    assert {c.get("hop") for c in result["citations"]} == {None, 1}  # every hop cited, earlier ones marked
    reasons = [g["reason"] for g in result["telemetry"]["gate"]]
    assert reasons[0] == "RETRIEVE_NEXT_HOP" and reasons[-1] == "STOP_OVERLAP_OK"
    assert result["telemetry"]["hop_plan"] == "multi_hop_descriptions"


async def test_a_budget_that_cannot_reach_the_last_hop_abstains_not_with_the_bridge(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(), **{"budget.min_round_tokens": 10**6})
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_INCOMPLETE_HOPS")
    assert result["answer"] == "I don't know" and "Mara Quill" not in result["short_answer"]
    assert [h["hop"] for h in result["hops"]] == [1] and result["hops"][0]["answer"] == ""


async def test_an_inner_hop_the_reader_declines_ends_there(tmp_path: Path) -> None:
    model = _reader(first="I don't know.")
    result = await _ask(tmp_path, model)
    assert result["decision"] == "ABSTAIN" and result["answer"] == "I don't know"
    assert [h["hop"] for h in result["hops"]] == [1]
    assert not any("Where was" in prompt for prompt in model.prompts)  # no empty answer fed onward


async def test_without_follow_hops_the_question_is_one_hop(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(), **{"gate.follow_hops": False})
    assert result["hops"] == [] and "RETRIEVE_NEXT_HOP" not in [g["reason"] for g in result["telemetry"]["gate"]]


def test_the_gate_sends_a_supported_inner_answer_to_the_next_hop() -> None:
    a = load_preset("A", {"gate.follow_hops": True})
    assert decide(sig(hop_next=True), a) == ("RETRIEVE_MORE", "RETRIEVE_NEXT_HOP")
    assert decide(sig(hop_next=True, tokens_left=10), a) == ("ABSTAIN", "ABSTAIN_INCOMPLETE_HOPS")
    assert decide(sig(hop_next=False), a) == ("STOP", "STOP_OVERLAP_OK")
    assert decide(sig(hop_next=True, idk=True, one_shot_used=True), a)[0] == "ABSTAIN"  # a declined hop ends the run


def test_an_inner_hop_is_read_in_the_quoted_style_so_its_answer_line_fills_the_next_hop() -> None:
    a = load_preset("A", {"gate.follow_hops": True})
    plan = ["What did Mara Quill use as a basis for her novels?", "What is the capital of #1?"]
    open_question = {"question": plan[0], "question_type": "other"}
    assert not uses_quotes(a, open_question)  # an open question asked alone is answered in sentences
    assert uses_quotes(a, {**open_question, "hop_plan": plan, "hop": 0})  # an inner hop's answer is filled in
    assert not uses_quotes(a, {**open_question, "hop_plan": plan, "hop": 1})  # the last hop is the question
    assert not uses_quotes(load_preset("A", {"answer.style": "free"}), {**open_question, "hop_plan": plan, "hop": 0})

"""The hop planner: nested descriptions become hops, bad plans fall back, unusable answers are refused.

The example questions are written here (MuSiQue-style, not copied from MuSiQue rows 71–100); one
test runs the parser over MuSiQue rows 41–70, the rows its patterns were written from, and holds it
to the hop-count agreement measured there (bench/hop_plan_eval.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorgate.tools.question.hop_plan import (
    MAX_HOPS,
    PLAN_GRAMMAR,
    HopPlan,
    UnusableHopAnswer,
    parse_plan_text,
    plan_hops,
    validation_error,
)

TUNE_AGREEMENT_FLOOR = 0.76  # measured 23/30 = 0.767 on MuSiQue 41-70


@pytest.mark.parametrize(
    ("question", "hops"),
    [
        (
            "Who is the spouse of the author of Dead Souls?",
            ("Who is the author of Dead Souls?", "Who is the spouse of #1?"),
        ),
        (
            "What is the population of Ada Lovelace's city of birth?",
            ("What is Ada Lovelace's city of birth?", "What is the population of #1?"),
        ),
        (
            "What country is the state that contains Lake Tahoe in?",
            ("Which state contains Lake Tahoe?", "What country is #1 in?"),
        ),
        (
            "In what year did the country where Edvard Grieg was born join NATO?",
            ("In which country was Edvard Grieg born?", "In what year did #1 join NATO?"),
        ),
        (
            "Which airline is based in the birthplace of the director of Wild Strawberries?",
            (
                "Who is the director of Wild Strawberries?",
                "What is the birthplace of #1?",
                "Which airline is based in #2?",
            ),
        ),
        (
            "How long is the river that flows through Vienna?",
            ("Which river flows through Vienna?", "How long is #1?"),
        ),
        (
            "Who governed the county where Little Snoring is located?",
            ("Which county is Little Snoring located in?", "Who governed #1?"),
        ),
        (
            "When did the person who founded Tesco die?",
            ("Who founded Tesco?", "When did #1 die?"),
        ),
    ],
)
def test_nested_descriptions_become_hops(question: str, hops: tuple[str, ...]) -> None:
    plan = plan_hops(question)
    assert plan.hops == hops
    assert plan.is_multi_hop and plan.reason == "multi_hop_descriptions"


@pytest.mark.parametrize(
    "question",
    [
        "Who is the author of Dead Souls?",  # the description is the whole question
        "What is the name of Ada Lovelace's father?",
        "Who was the president of the United States in 1990?",
        "When was the Treaty of Versailles signed?",
        "who is the spouse of the author of the book about the war",  # lower case: never split
        "how tall is the actor who plays hagrid in harry potter",
        "what is the capital of the country where the nile ends",
        "Which country is the Eiffel Tower located in?",
        "",
    ],
)
def test_single_hop_questions_stay_whole(question: str) -> None:
    plan = plan_hops(question)
    assert plan.hops == (question.strip(),)
    assert not plan.is_multi_hop and plan.reason.startswith("single_hop")


def test_entities_are_the_names_descriptions_are_about() -> None:
    assert plan_hops("Who is the spouse of the author of Dead Souls?").entities == ("Dead Souls",)
    assert plan_hops("Who is the author of Dead Souls?").entities == ("Dead Souls",)


@pytest.mark.parametrize(
    ("hops", "reason"),
    [
        (["Who wrote #2?", "Who married #1?", "Where was #2 born?"], "fallback_cycle"),
        (["Who wrote #1?", "Where?"], "fallback_cycle"),  # a hop naming itself
        (["Who wrote Dead Souls?", "Where was #3 born?"], "fallback_dangling_reference"),
        (["Who wrote Dead Souls?", "Where was #0 born?"], "fallback_dangling_reference"),
        (["a #1", "b #1", "c #2", "d #3", "e #4"], "fallback_too_many_hops"),
        (["Who wrote Dead Souls?", "  "], "fallback_empty_hop"),
        (["Who wrote #2?", "Who wrote Dead Souls?", "Where was #1 born?"], "fallback_forward_reference"),
        (["Who wrote Dead Souls?", "Where was Gogol born?"], "fallback_unused_hop"),
    ],
)
def test_bad_plans_are_rejected_with_a_reason(hops: list[str], reason: str) -> None:
    assert validation_error(hops) == reason
    text = "\n".join(f"{k}. {hop}" for k, hop in enumerate(hops, 1))
    plan = parse_plan_text(text, question="Where was the author of Dead Souls born?")
    assert plan.hops == ("Where was the author of Dead Souls born?",) and plan.reason == reason


def test_a_planned_chain_is_read_from_numbered_lines() -> None:
    plan = parse_plan_text("1. Who wrote Dead Souls?\n2. Where was #1 born?\n", question="q")
    assert plan.hops == ("Who wrote Dead Souls?", "Where was #1 born?") and plan.reason == "planned"
    assert parse_plan_text("1. Who wrote Dead Souls?", question="q").reason == "single_hop_planned"


@pytest.mark.parametrize("text", ["Who wrote it?\nWhere?", "2. Who wrote it?\n1. Where was #1 born?", ""])
def test_unnumbered_plan_text_falls_back(text: str) -> None:
    plan = parse_plan_text(text, question="Where was the author of Dead Souls born?")
    assert plan.reason == "fallback_unnumbered" and not plan.is_multi_hop


def test_grammar_allows_at_most_the_hops_validation_allows() -> None:
    assert f"hop{{1,{MAX_HOPS}}}" in PLAN_GRAMMAR
    assert f"[1-{MAX_HOPS - 1}]" in PLAN_GRAMMAR  # a reference names an earlier hop only


def test_fill_substitutes_verified_answers() -> None:
    plan = HopPlan(("Who wrote Dead Souls?", "Where was #1 born?", "What river runs through #2?"), "planned")
    assert plan.fill(0, []) == "Who wrote Dead Souls?"
    assert plan.fill(1, ["Nikolai Gogol"]) == "Where was Nikolai Gogol born?"
    assert plan.fill(2, ["Nikolai Gogol", " Sorochyntsi "]) == "What river runs through Sorochyntsi?"


@pytest.mark.parametrize("answers", [[], [""], ["   "], ["I don't know"], ["I don't know. [1]"]])
def test_fill_refuses_missing_empty_or_declined_answers(answers: list[str]) -> None:
    plan = HopPlan(("Who wrote Dead Souls?", "Where was #1 born?"), "planned")
    with pytest.raises(UnusableHopAnswer, match="#1"):
        plan.fill(1, answers)


def test_fill_rejects_a_hop_outside_the_plan() -> None:
    with pytest.raises(IndexError):
        HopPlan(("Who wrote Dead Souls?",), "single_hop_no_description").fill(1, [])


def test_musique_tune_rows_hop_count_agreement(datasets_dir: Path) -> None:
    path = datasets_dir / "musique" / "musique_41_100.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:30]]  # questions 41-70
    agree = sum(len(plan_hops(r["question"]).hops) == len(r["extra"]["hops"]) for r in rows)
    assert agree / len(rows) >= TUNE_AGREEMENT_FLOOR

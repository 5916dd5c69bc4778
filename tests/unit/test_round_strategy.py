"""The choice of what a new retrieval round asks (graph/round_strategy.py), as a table, and the planner's
"no round" path that hands the decision back to the gate's own rules."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.runtime import Runtime

from anchorgate.agents.round_planner import _without_round, plan_round
from anchorgate.graph.presets import load_preset
from anchorgate.graph.round_strategy import RoundPlan, choose_round_plan

LOW = "RETRIEVE_LOW_SUPPORT"
JUDGE = "RETRIEVE_JUDGE_UNSUPPORTED"
ANCHOR = "RETRIEVE_MISSING_ANCHOR"
UNSURE = "RETRIEVE_INCONSISTENT_ANSWER"
DECLINED_STRONG = {"idk": True, "evidence_strong": True}


@pytest.mark.parametrize(
    ("strategy", "next_round", "reason", "signals", "expected"),
    [
        # question: the question again, whatever the signals
        ("question", 2, LOW, {}, RoundPlan("plain", "STRATEGY_PLAIN")),
        ("question", 2, LOW, DECLINED_STRONG, RoundPlan("plain", "STRATEGY_PLAIN")),
        # hyde: HyDE in round 2, the question in later rounds
        ("hyde", 2, LOW, {}, RoundPlan("hyde", "STRATEGY_HYDE")),
        ("hyde", 2, LOW, DECLINED_STRONG, RoundPlan("hyde", "STRATEGY_HYDE")),
        ("hyde", 3, LOW, {}, RoundPlan("plain", "STRATEGY_PLAIN")),
        # rewrite: always, naming the missing anchors; a rejected one falls back to the question
        ("rewrite", 2, ANCHOR, {"missing_anchors": ["Lilu"]}, RoundPlan("rewrite", "STRATEGY_REWRITE", ("Lilu",))),
        ("rewrite", 2, LOW, DECLINED_STRONG, RoundPlan("rewrite", "STRATEGY_REWRITE")),
        # auto: what the signals say is missing
        ("auto", 2, UNSURE, {}, RoundPlan("rewrite", "INCONSISTENT_ANSWER", (), "hyde")),
        ("auto", 2, ANCHOR, {"missing_anchors": ["Lilu", "Gallu"]},
         RoundPlan("rewrite", "MISSING_ANCHOR", ("Lilu", "Gallu"), "hyde")),
        ("auto", 2, ANCHOR, {"missing_anchors": ["Lilu"], **DECLINED_STRONG},
         RoundPlan("rewrite", "MISSING_ANCHOR", ("Lilu",), "hyde")),
        ("auto", 2, LOW, DECLINED_STRONG, RoundPlan("none", "DECLINED_STRONG_EVIDENCE")),
        ("auto", 2, LOW, {"idk": True, "evidence_strong": False}, RoundPlan("hyde", "LOW_SUPPORT")),
        ("auto", 2, JUDGE, {"idk": False, "evidence_strong": True}, RoundPlan("hyde", "LOW_SUPPORT")),
        ("auto", 3, LOW, {}, RoundPlan("rewrite", "LOW_SUPPORT")),
        ("auto", 3, UNSURE, {}, RoundPlan("rewrite", "INCONSISTENT_ANSWER", (), "question")),
    ],
)  # fmt: skip
def test_round_plan_table(
    strategy: str, next_round: int, reason: str, signals: dict[str, Any], expected: RoundPlan
) -> None:
    config = load_preset("B", {"gate.round_strategy": strategy, "budget.max_rounds": 3})
    assert choose_round_plan({"missing_anchors": [], **signals}, reason, config, next_round) == expected


def test_only_b_chooses_what_a_round_asks() -> None:
    assert {name: load_preset(name).gate.round_strategy for name in ("baseline", "A", "B", "C")} == {
        "baseline": "question", "A": "question", "B": "auto", "C": "question",
    }  # fmt: skip


def _signals(**changes: Any) -> dict[str, Any]:
    """A round-1 draft the model declined although the evidence is strong (anchors covered, budget left)."""
    base = {
        "round": 1, "pass_no": 1, "has_context": True, "has_draft": True, "budget_skipped": False, "idk": True,
        "overlap": 0.0, "reflected": True, "tokens_left": 2000, "missing_anchors": [], "one_shot_used": False,
        "novelty": 1.0, "judge_label": None, "judge_calls": 0, "evidence_strong": True, "draft_status": "free",
    }  # fmt: skip
    return {**base, **changes}


def _state(signals: dict[str, Any], reason: str = LOW) -> dict[str, Any]:
    gate = {"round": 1, "pass": 1, "action": "RETRIEVE_MORE", "reason": reason, "signals": {"judge_label": None}}
    return {"question": "What do owls hunt?", "round": 1, "pass_no": 1, "signals": signals, "anchors": [],
            "gate_decision": {"action": "RETRIEVE_MORE", "reason": reason}, "gate_log": [gate]}  # fmt: skip


async def test_no_round_hands_the_decision_to_the_gate_rules_with_no_round_left() -> None:
    update = await plan_round(_state(_signals()), Runtime(context=load_preset("B")))  # type: ignore[arg-type]
    assert update["gate_decision"] == {"action": "ABSTAIN", "reason": "ABSTAIN_MODEL_IDK"}
    (entry,) = update["gate_log"]
    assert entry["round_skipped"] == "DECLINED_STRONG_EVIDENCE" and entry["round"] == 1
    assert update["round_plans"][0]["strategy"] == "none"
    assert "round" not in update and "pending_queries" not in update  # nothing retrieved, no round counted


async def test_a_gate_that_would_still_retrieve_gets_its_round() -> None:
    # The gate wants the anchor one-shot even with no round left: no decision is forced, the round is spent.
    signals = _signals(missing_anchors=["owls"])
    state = {**_state(signals), "anchors": [{"text": "owls", "kind": "entity", "essential": True, "confidence": 1.0}]}
    config = load_preset("B", {"gate.round_strategy": "auto"})
    assert _without_round(state, config, RoundPlan("none", "DECLINED_STRONG_EVIDENCE")) is None  # type: ignore[arg-type]
    update = await plan_round(state, Runtime(context=config))  # type: ignore[arg-type]
    assert update["round"] == 2 and update["round_plans"][0]["strategy"] == "rewrite"


async def test_a_planned_round_asks_the_question_and_each_missing_anchor() -> None:
    state = {**_state(_signals(idk=False, evidence_strong=False)), "anchors": []}
    update = await plan_round(state, Runtime(context=load_preset("B")))  # type: ignore[arg-type]
    assert (update["round"], update["pass_no"], update["hyde_use"], update["rewrite_pending"]) == (2, 2, True, False)
    assert update["pending_queries"] == [
        {"worker": "question-r2", "query": "What do owls hunt?", "dense_query": "What do owls hunt?"}
    ]

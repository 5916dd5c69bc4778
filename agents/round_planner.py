"""Round planner: what the next retrieval pass asks, after the gate said RETRIEVE_MORE.

An anchor one-shot retry appends the missing anchors to the question (no LLM rewrite, so it is
deterministic) and does not count as a round. A new round asks the question (or what
`graph/round_strategy.py` chose from the signals: HyDE's hypothetical passage in round 2, a
guarded rewrite) plus one worker per still-missing anchor; every round's plan is logged
(`round_plans`). When the plan is to spend no round (nothing the signals show would help), the
planner asks the gate's own `decide` what it would do with no round allowed, logs that as the
final gate decision, and the run goes to the finalizer.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from anchorgate.agents.baug_gate import gate_signals
from anchorgate.graph.config import Config
from anchorgate.graph.gate import decide
from anchorgate.graph.round_strategy import RoundPlan, choose_round_plan
from anchorgate.graph.state import State
from anchorgate.tools.question.anchors import Anchor, anchor_query


def _missing(state: State) -> list[Anchor]:
    names = set(state["signals"].get("missing_anchors", []))
    return [
        Anchor(a["text"], a["kind"], a["essential"], a["confidence"], tuple(a.get("aliases", ())))
        for a in state.get("anchors", [])
        if a["text"] in names
    ]


def _without_round(state: State, config: Config, plan: RoundPlan) -> dict[str, Any] | None:
    """The gate's decision on the same signals with no round allowed, as the run's final one.

    None if the gate would still retrieve (an anchor one-shot retry; then the round is spent as
    planned, rather than looping).
    """
    action, reason = decide(gate_signals(state), config, round_allowed=False)
    if action not in ("STOP", "ABSTAIN"):
        return None
    last = (state.get("gate_log") or [{}])[-1]
    entry = {**last, "action": action, "reason": reason, "round_skipped": plan.why}
    return {"gate_decision": {"action": action, "reason": reason}, "gate_log": [entry], "rewrite_pending": False}


async def plan_round(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Counters for the next pass and its worker queries (or the final decision when no round is spent)."""
    config = runtime.context
    question, missing = state["question"], _missing(state)
    pass_no = state.get("pass_no", 1) + 1
    gate_reason = str(state["gate_decision"]["reason"])
    if gate_reason == "RETRIEVE_ANCHOR_ONE_SHOT":
        query = anchor_query(question, missing)
        return {
            "pass_no": pass_no,
            "one_shot_used": True,
            "hyde_use": False,
            "rewrite_pending": False,
            "pending_queries": [{"worker": "anchor-one-shot", "query": query, "dense_query": query}],
        }
    next_round = state.get("round", 1) + 1
    plan = choose_round_plan(state["signals"], gate_reason, config, next_round)
    logged = {"round": next_round, "gate_reason": gate_reason, **plan.as_dict()}
    if plan.strategy == "none":
        closed = _without_round(state, config, plan)
        if closed is not None:
            return {**closed, "round_plans": [logged]}
        plan = RoundPlan("plain", f"{plan.why}_GATE_RETRIES")
        logged = {"round": next_round, "gate_reason": gate_reason, **plan.as_dict()}
    suffix = f"-r{next_round}"
    queries = [{"worker": f"question{suffix}", "query": question, "dense_query": question}]
    for anchor in missing[: config.retrieval.max_anchor_workers]:
        queries.append(
            {
                "worker": f"anchor:{anchor.text}{suffix}",
                "query": anchor_query(question, [anchor]),
                "dense_query": anchor.text,
            }
        )
    return {
        "round": next_round,
        "pass_no": pass_no,
        "pending_queries": queries,
        "hyde_text": "",
        "hyde_use": plan.strategy == "hyde",
        "rewrite_pending": plan.strategy == "rewrite",
        "round_plans": [logged],
    }

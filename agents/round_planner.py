"""Round planner: what the next retrieval pass asks, after the gate said RETRIEVE_MORE.

An anchor one-shot retry appends the missing anchors to the question (no LLM rewrite, so it is
deterministic) and does not count as a round. A new round re-asks the question (through HyDE's
hypothetical passage in round 2 when enabled) plus one worker per still-missing anchor.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.tools.anchors import Anchor, anchor_query


def _missing(state: State) -> list[Anchor]:
    names = set(state["signals"].get("missing_anchors", []))
    return [
        Anchor(a["text"], a["kind"], a["essential"], a["confidence"], tuple(a.get("aliases", ())))
        for a in state.get("anchors", [])
        if a["text"] in names
    ]


async def plan_round(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Counters for the next pass and its worker queries."""
    config = runtime.context
    question, missing = state["question"], _missing(state)
    pass_no = state.get("pass_no", 1) + 1
    if state["gate_decision"]["reason"] == "RETRIEVE_ANCHOR_ONE_SHOT":
        query = anchor_query(question, missing)
        return {
            "pass_no": pass_no,
            "one_shot_used": True,
            "hyde_use": False,
            "pending_queries": [{"worker": "anchor-one-shot", "query": query, "dense_query": query}],
        }
    suffix = f"-r{state.get('round', 1) + 1}"
    queries = [{"worker": f"question{suffix}", "query": question, "dense_query": question}]
    for anchor in missing[: config.max_anchor_workers]:
        queries.append(
            {
                "worker": f"anchor:{anchor.text}{suffix}",
                "query": anchor_query(question, [anchor]),
                "dense_query": anchor.text,
            }
        )
    next_round = state.get("round", 1) + 1
    return {
        "round": next_round,
        "pass_no": pass_no,
        "pending_queries": queries,
        "hyde_text": "",
        "hyde_use": config.use_hyde and next_round == 2,
    }

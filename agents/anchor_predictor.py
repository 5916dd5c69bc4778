"""Anchor predictor: the question's anchors and type, and the first pass's worker queries.

Anchors are extracted by deterministic rules (tools/question/anchors/); each confident one gets its own
retriever worker, and the full question always gets one, so nothing outside the anchors is lost.
Workers beyond `max_anchor_workers` are not sent; the overflow is recorded, not dropped silently.
Anchors go into the state as dicts {text, kind, essential, confidence, aliases, inferred}; `inferred`
marks an anchor guessed without capitalisation cues, which the gate retries for but never abstains for.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.tools.question.anchors import anchor_queries, extract_anchors, question_type
from anchorgate.tools.question.hop_plan import plan_hops


def _hop_plan(question: str) -> dict[str, Any]:
    """A question of nested descriptions as hops: round 1 asks hop 1 (`gate.follow_hops`)."""
    plan = plan_hops(question)
    if not plan.is_multi_hop:
        return {"hop_plan_reason": plan.reason}
    return {"asked_question": question, "question": plan.hops[0], "hop_plan": list(plan.hops), "hop": 0,
            "hop_plan_reason": plan.reason}  # fmt: skip


async def predict_anchors(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Anchors, question type, round 1 and its worker queries."""
    config = runtime.context
    started = time.perf_counter()
    question = state["question"]
    hop_update = _hop_plan(question) if config.gate.follow_hops else {}
    question = hop_update.get("question", question)
    anchors = extract_anchors(question) if config.retrieval.use_anchors else []
    if config.retrieval.use_anchors:
        queries, overflow = anchor_queries(question, anchors, config.retrieval.max_anchor_workers)
    else:
        queries, overflow = [{"worker": "question", "query": question, "dense_query": question}], []
    return {
        **hop_update,
        "anchors": [asdict(a) for a in anchors],  # {text, kind, essential, confidence, aliases, inferred}
        "question_type": question_type(question),
        "round": 1,
        "pass_no": 1,
        "one_shot_used": False,
        "reflected": False,
        "judge_calls": 0,
        "judge": None,
        "pending_queries": queries,
        "overflow": [{"stage": "anchor_workers", "dropped": overflow}] if overflow else [],
        "latency": {"anchor_predictor": time.perf_counter() - started},
    }

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
from anchorgate.tools.question.anchors import Anchor, extract_anchors, question_type

MIN_WORKER_CONFIDENCE = 0.5  # below this an anchor is only checked for coverage, not searched


def anchor_queries(question: str, anchors: list[Anchor], cap: int) -> tuple[list[dict[str, Any]], list[str]]:
    """Worker queries (question first) and the anchors that did not get a worker for the cap."""
    queries = [{"worker": "question", "query": question, "dense_query": question}]
    confident = [a for a in anchors if a.confidence >= MIN_WORKER_CONFIDENCE and a.kind != "keyword"]
    for anchor in confident[:cap]:
        focused = f"{anchor.text} {question}"  # the anchor leads; the question keeps the intent
        queries.append({"worker": f"anchor:{anchor.text}", "query": focused, "dense_query": anchor.text})
    return queries, [a.text for a in confident[cap:]]


async def predict_anchors(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Anchors, question type, round 1 and its worker queries."""
    config = runtime.context
    started = time.perf_counter()
    question = state["question"]
    anchors = extract_anchors(question) if config.retrieval.use_anchors else []
    if config.retrieval.use_anchors:
        queries, overflow = anchor_queries(question, anchors, config.retrieval.max_anchor_workers)
    else:
        queries, overflow = [{"worker": "question", "query": question, "dense_query": question}], []
    return {
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

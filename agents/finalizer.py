"""Finalizer: the user's cited answer, a short answer span for scoring, and the telemetry record."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.tools.answer_text import IDK_ANSWER, is_idk, strip_citations
from anchorgate.tools.citations import resolve_citations
from anchorgate.tools.short_answer import short_answer_span
from anchorgate.tools.usage import totals


def _decide(state: State) -> tuple[str, str]:
    """The final decision: the gate's when it gave one, else what the draft itself says."""
    if state.get("decision"):
        return state["decision"], state.get("reason", "")
    if not state.get("context"):
        return "ABSTAIN", "ABSTAIN_NO_EVIDENCE"
    if not state.get("draft") and any(c.get("skipped") == "BUDGET" for c in state.get("calls", [])):
        return "ABSTAIN", "ABSTAIN_BUDGET"
    if is_idk(state.get("draft", "")):
        return "ABSTAIN", "ABSTAIN_MODEL_IDK"
    return "STOP", "STOP_SINGLE_PASS"


async def finalize(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Answer, short answer, citations, decision and telemetry (the output contract)."""
    started = time.perf_counter()
    decision, reason = _decide(state)
    context = state.get("context", [])
    if decision == "ABSTAIN":
        answer, citations, invalid = IDK_ANSWER, [], []
    else:
        answer = state.get("draft", "")
        citations, invalid = resolve_citations(answer, context)
    tokens = totals(state.get("usage", {}))
    latency = {**state.get("latency", {}), "finalize": round(time.perf_counter() - started, 4)}
    telemetry = {
        "preset": runtime.context.preset,
        "rounds": state.get("round", 0),
        "decision": decision,
        "reason": reason,
        "gate": state.get("gate_log", []),
        "calls": state.get("calls", []),
        "latency_by_node": latency,
        "context": [{"n": p["n"], "id": p["id"], "score": p["score"]} for p in context],
        "context_tokens": state.get("context_tokens", 0),
        "evidence_seen": len(state.get("evidence", [])),
        "invalid_citations": invalid,
        "draft": state.get("draft", ""),
    }
    return {
        "answer": answer,
        "short_answer": "" if decision == "ABSTAIN" else short_answer_span(state["question"], strip_citations(answer)),
        "citations": citations,
        "decision": decision,
        "reason": reason,
        "rounds": state.get("round", 0),
        "tokens": tokens,
        "telemetry": telemetry,
        "latency": {"finalize": time.perf_counter() - started},
    }

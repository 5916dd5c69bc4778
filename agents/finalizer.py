"""Finalizer: the user's cited answer, a short answer span for scoring, and the telemetry record.

A run in which an LLM call failed ends here as ABSTAIN with the fault's reason
(`ABSTAIN_LLM_UNAVAILABLE`, `…_TIMEOUT`, …; `tools.llm.faults`), whatever the gate decided on the
signals of the draft it did or did not get: the fault, not the model, made the outcome. It is in
`telemetry.llm_fault` and appended to the gate log, and `gate_decision` is set to it.

A Chinese answer is written in its question's script (Simplified or Traditional, `match_script`),
whatever the passages' script; the citations' quotes stay verbatim copies of their passages.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.signals import GateDecision
from anchorgate.graph.state import State
from anchorgate.tools.answer.citations import resolve_citations
from anchorgate.tools.answer.short_answer import short_answer_span
from anchorgate.tools.answer.text import IDK_ANSWER, strip_citations
from anchorgate.tools.llm.faults import recorded_fault
from anchorgate.tools.llm.usage import totals
from anchorgate.tools.text.chinese_script import match_script


def _telemetry(state: State, config: Config, decision: str, reason: str, extra: dict[str, Any]) -> dict[str, Any]:
    context = state.get("context", [])
    signals = state.get("signals", {})
    return {
        "preset": config.preset,
        "rounds": state.get("round", 0),
        "passes": state.get("pass_no", 0),
        "decision": decision,
        "reason": reason,
        "gate": state.get("gate_log", []),
        "question_type": state.get("question_type", ""),
        "anchors": state.get("anchors", []),
        "anchor_coverage": signals.get("coverage"),
        "missing_anchors": signals.get("missing_anchors", []),
        "support_overlap": signals.get("overlap"),
        "claims": signals.get("claims", []),
        "judge": state.get("judge"),
        "calls": state.get("calls", []),
        "latency_by_node": dict(state.get("latency", {})),
        "workers": sorted({w for e in state.get("evidence", []) for w in e.get("ranks", {})}),
        "context": [{"n": p["n"], "id": p["id"], "score": p["score"]} for p in context],
        "context_tokens": state.get("context_tokens", 0),
        "pruning": {k: v for k, v in state.get("pruning", {}).items() if k != "highlights"},
        "highlights": state.get("pruning", {}).get("highlights", {}),
        "evidence_seen": len(state.get("evidence", [])),
        "drafts_reused": state.get("drafts_reused", 0),
        "overflow": state.get("overflow", []),
        "citation_repairs": state.get("citation_repairs", []),
        "draft": state.get("draft", ""),
        "draft_structure": state.get("draft_structure"),
        "second_reading": state.get("second_reading"),
        "hyde": state.get("hyde_text", ""),
        "round_plans": state.get("round_plans", []),
        "rewrites": state.get("rewrite_log", []),
        **extra,
    }


def with_verified_quotes(citations: list[dict[str, Any]], structure: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Citations whose quote is the sentence the model copied and we found in that passage."""
    found = {q["found_in"]: q["match"] for q in (structure or {}).get("quotes", []) if q.get("found_in") is not None}
    return [{**c, "quote": found[c["n"]], "verified": True} if c["n"] in found else c for c in citations]


def _outcome(state: State) -> tuple[GateDecision, dict[str, Any] | None, list[dict[str, Any]]]:
    """(the final decision, the LLM fault or None, the gate log entry the fault adds)."""
    gate = state.get("gate_decision") or {"action": "ABSTAIN", "reason": "ABSTAIN_NO_DECISION"}
    fault = recorded_fault(state.get("calls", []))
    if fault is None:
        return gate, None, []
    decision: GateDecision = {"action": "ABSTAIN", "reason": fault["reason"]}
    entry = {"round": state.get("round", 0), "pass": state.get("pass_no", 0), **decision, "signals": {}, "fault": fault}
    return decision, fault, [entry]


def _hop_chain(state: State, decision: str, answer: str, citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each hop's question, answer and citations, the last one's this run's (unanswered unless it stopped)."""
    if not state.get("hop_plan"):
        return []
    last = {"hop": state.get("hop", 0) + 1, "question": state["question"],
            "answer": answer if decision == "STOP" else "", "citations": citations}  # fmt: skip
    done = [dict(h) for h in state.get("hop_chain", [])]
    return done if done and done[-1]["hop"] == last["hop"] else [*done, last]


async def finalize(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Answer, short answer, citations, decision and telemetry (the output contract)."""
    config = runtime.context
    started = time.perf_counter()
    gate, fault, fault_entry = _outcome(state)
    decision, reason = gate["action"], gate["reason"]
    answer = IDK_ANSWER
    citations: list[dict[str, Any]] = []
    invalid: list[int] = []
    if decision == "STOP":
        answer = state.get("draft", "")
        citations, invalid = resolve_citations(answer, state.get("context", []))
        citations = with_verified_quotes(citations, state.get("draft_structure"))
        answer = match_script(answer, state["question"])  # after citations: their quotes stay the passage's text
    short = short_answer_span(state["question"], strip_citations(answer)) if decision == "STOP" else ""
    extra = {"invalid_citations": invalid, "llm_fault": fault, "gate": [*state.get("gate_log", []), *fault_entry],
             "hop_plan": state.get("hop_plan_reason", "")}  # fmt: skip
    hops = _hop_chain(state, decision, short or answer, citations)
    update: dict[str, Any] = {"gate_decision": gate, "gate_log": fault_entry} if fault else {}
    return {
        **update,
        "answer": answer,
        "short_answer": short,
        "citations": [*citations, *[{**c, "hop": h["hop"]} for h in hops[:-1] for c in h["citations"]]],
        "hops": hops,
        "decision": decision,
        "reason": reason,
        "rounds": state.get("round", 0),
        "tokens": totals(state.get("usage", {})),
        "telemetry": _telemetry(state, config, decision, reason, extra),
        "latency": {"finalizer": time.perf_counter() - started},
    }

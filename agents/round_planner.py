"""Round planner: what the next retrieval pass asks, after the gate said RETRIEVE_MORE.

An anchor one-shot retry appends the missing anchors to the question (no LLM rewrite, so it is
deterministic) and does not count as a round. A new round asks the question (or what
`graph/round_strategy.py` chose from the signals: HyDE's hypothetical passage in round 2, a
guarded rewrite) plus one worker per still-missing anchor; every round's plan is logged
(`round_plans`). When the plan is to spend no round (nothing the signals show would help), the
planner asks the gate's own `decide` what it would do with no round allowed, logs that as the
final gate decision, and the run goes to the finalizer.

After RETRIEVE_NEXT_HOP the planner records the answered hop (its question, short answer and cited
passages), fills the verified answer into the next hop's `#k`, and starts that hop as round 1 started
the question: its anchors, one worker for it and one per anchor, fresh evidence. An answer that
cannot be filled in (empty, or a refusal) ends the run as ABSTAIN_INCOMPLETE_HOPS, naming the hop.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.agents.baug_gate import gate_signals
from anchorgate.graph.config import Config
from anchorgate.graph.gate import decide
from anchorgate.graph.round_strategy import RoundPlan, choose_round_plan
from anchorgate.graph.state import State
from anchorgate.tools.answer.citations import resolve_citations
from anchorgate.tools.answer.short_answer import short_answer_span
from anchorgate.tools.answer.text import strip_citations
from anchorgate.tools.question.anchors import Anchor, anchor_queries, anchor_query, extract_anchors, question_type
from anchorgate.tools.question.hop_plan import HopPlan, UnusableHopAnswer


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


def hop_answer(state: State) -> str:
    """The current draft's short answer: a quoted draft's answer line, else the span the finalizer would give."""
    structure = state.get("draft_structure") or {}
    if structure.get("answer"):
        return str(structure["answer"]).strip()
    return short_answer_span(state["question"], strip_citations(state.get("draft", ""))).strip()


def _next_hop(state: State, config: Config, pass_no: int) -> dict[str, Any]:
    """The answered hop recorded and the next one started with its answer filled in."""
    hop, answer = state.get("hop", 0), hop_answer(state)
    citations, _ = resolve_citations(state.get("draft", ""), state.get("context", []))
    record = {"hop": hop + 1, "question": state["question"], "answer": answer, "citations": citations}
    answers = [str(h["answer"]) for h in state.get("hop_chain", [])] + [answer]
    try:
        question = HopPlan(tuple(state["hop_plan"]), "planned").fill(hop + 1, answers)
    except UnusableHopAnswer as exc:
        entry = {**(state.get("gate_log") or [{}])[-1], "action": "ABSTAIN", "reason": "ABSTAIN_INCOMPLETE_HOPS",
                 "hop": hop + 1, "hop_error": str(exc)}  # fmt: skip
        return {"gate_decision": {"action": "ABSTAIN", "reason": "ABSTAIN_INCOMPLETE_HOPS"}, "gate_log": [entry],
                "hop_chain": [record]}  # fmt: skip
    anchors = extract_anchors(question) if config.retrieval.use_anchors else []
    if config.retrieval.use_anchors:
        queries, _ = anchor_queries(question, anchors, config.retrieval.max_anchor_workers)
    else:
        queries = [{"worker": "question", "query": question, "dense_query": question}]
    suffix = f"-h{hop + 2}"
    logged = {"round": state.get("round", 1), "gate_reason": "RETRIEVE_NEXT_HOP", "strategy": "next_hop",
              "why": "NEXT_HOP", "hop": hop + 2, "question": question}  # fmt: skip
    return {
        "question": question, "hop": hop + 1, "hop_chain": [record], "round_plans": [logged],
        "anchors": [asdict(a) for a in anchors], "question_type": question_type(question),
        "pending_queries": [{**q, "worker": f"{q['worker']}{suffix}"} for q in queries],
        "pass_no": pass_no, "one_shot_used": False, "reflected": False, "evidence": [{"reset": True}],
        "hyde_use": False, "hyde_text": "", "rewrite_pending": False, "draft": "", "draft_structure": None,
        "draft_source": "", "second_reading": None,
    }  # fmt: skip


async def plan_round(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Counters for the next pass and its worker queries (or the final decision when no round is spent)."""
    config = runtime.context
    question, missing = state["question"], _missing(state)
    pass_no = state.get("pass_no", 1) + 1
    gate_reason = str(state["gate_decision"]["reason"])
    if gate_reason == "RETRIEVE_NEXT_HOP":
        return _next_hop(state, config, pass_no)
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

"""Conditional edges: pure functions of state (decisions were made and stored by nodes).

A failed LLM call is recorded in the run's call log (`calls`, see `tools.llm.faults`) by the node
that made it; nodes never raise it through LangGraph. From the next routing point on, the run goes
straight to the finalizer, which ends it as ABSTAIN with the fault's reason: no judge, no reflection,
no further round is asked of a service that just failed.
"""

from __future__ import annotations

from langgraph.types import Send

from anchorgate.graph.state import State, WorkerState
from anchorgate.tools.llm.faults import recorded_fault


def send_workers(state: State) -> list[Send]:
    """One retriever worker per pending query (`Send` fan-out; the cap was applied by the planner)."""
    return [
        Send(
            "retriever_worker",
            WorkerState(
                question=state["question"],
                worker=q["worker"],
                query=q["query"],
                dense_query=q["dense_query"],
                pass_no=state["pass_no"],
            ),
        )
        for q in state["pending_queries"]
    ]


def llm_failed(state: State) -> bool:
    """Whether an LLM call of this run failed (the first fault is what the run ends on)."""
    return recorded_fault(state.get("calls", [])) is not None


def after_signals(state: State) -> str:
    """Consult the judge now, or go straight to the gate (always, once an LLM call failed)."""
    if llm_failed(state):
        return "gate"
    return "judge" if state["signals"].get("judge_needed") else "gate"


def after_gate(state: State) -> str:
    """The gate's action: STOP | RETRIEVE_MORE | REFLECT | ABSTAIN; ABSTAIN once an LLM call failed."""
    if llm_failed(state):
        return "ABSTAIN"  # the finalizer names the fault as the reason
    return str(state["gate_decision"]["action"])


def after_planning(state: State) -> str | list[Send]:
    """After the round planner or the query rewriter: the finalizer when the planner spent no round
    (it stored the final decision) or an LLM call failed; a planned rewrite, then a planned HyDE
    passage, before the workers go out."""
    if llm_failed(state) or state["gate_decision"]["action"] != "RETRIEVE_MORE":
        return "finalizer"
    if state.get("rewrite_pending"):
        return "query_rewriter"
    if state.get("hyde_use") and not state.get("hyde_text"):
        return "hyde_writer"
    return send_workers(state)

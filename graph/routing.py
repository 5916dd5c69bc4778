"""Conditional edges: pure functions of state (decisions were made and stored by nodes)."""

from __future__ import annotations

from langgraph.types import Send

from anchorgate.graph.state import State, WorkerState


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


def after_signals(state: State) -> str:
    """Consult the judge now, or go straight to the gate."""
    return "judge" if state["signals"].get("judge_needed") else "gate"


def after_gate(state: State) -> str:
    """The gate's action: STOP | RETRIEVE_MORE | REFLECT | ABSTAIN."""
    return str(state["gate_decision"]["action"])


def after_planning(state: State) -> str | list[Send]:
    """Round 2 with HyDE writes its passage first; otherwise the workers go out."""
    if state.get("hyde_use") and not state.get("hyde_text"):
        return "hyde_writer"
    return send_workers(state)

"""Wiring only: nodes, edges, the BAUG path map, compile with a name. No logic lives here."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from anchorgate.agents.anchor_predictor import predict_anchors
from anchorgate.agents.baug_gate import gate
from anchorgate.agents.finalizer import finalize
from anchorgate.agents.fuse_and_select import fuse_and_select
from anchorgate.agents.generator import generate
from anchorgate.agents.hyde_writer import write_hyde
from anchorgate.agents.intake import intake
from anchorgate.agents.judge import judge
from anchorgate.agents.query_rewriter import rewrite_query
from anchorgate.agents.reflector import reflect
from anchorgate.agents.retriever_worker import retrieve
from anchorgate.agents.round_planner import plan_round
from anchorgate.agents.signal_meter import measure
from anchorgate.graph.config import Config
from anchorgate.graph.routing import after_gate, after_planning, after_signals, send_workers
from anchorgate.graph.state import InputState, OutputState, State

GRAPH_NAME = "anchorgate"
BAUG_PATHS: dict[Hashable, str] = {
    "STOP": "finalizer",
    "ABSTAIN": "finalizer",
    "RETRIEVE_MORE": "round_planner",
    "REFLECT": "reflector",
}


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The question-answering graph; presets switch parts on and off through the run context."""
    builder = StateGraph(State, context_schema=Config, input_schema=InputState, output_schema=OutputState)
    builder.add_node("intake", intake)
    builder.add_node("anchor_predictor", predict_anchors)
    builder.add_node("retriever_worker", retrieve)
    builder.add_node("fuse_and_select", fuse_and_select)
    builder.add_node("generator", generate)
    builder.add_node("signals", measure)
    builder.add_node("judge", judge)
    builder.add_node("gate", gate)
    builder.add_node("round_planner", plan_round)
    builder.add_node("query_rewriter", rewrite_query)
    builder.add_node("hyde_writer", write_hyde)
    builder.add_node("reflector", reflect)
    builder.add_node("finalizer", finalize)

    builder.add_edge(START, "intake")
    builder.add_edge("intake", "anchor_predictor")
    builder.add_conditional_edges("anchor_predictor", send_workers, ["retriever_worker"])
    builder.add_edge("retriever_worker", "fuse_and_select")
    builder.add_edge("fuse_and_select", "generator")
    builder.add_edge("generator", "signals")
    builder.add_conditional_edges("signals", after_signals, {"judge": "judge", "gate": "gate"})
    builder.add_edge("judge", "gate")
    builder.add_conditional_edges("gate", after_gate, BAUG_PATHS)
    after_rewrite = ["hyde_writer", "retriever_worker", "finalizer"]
    builder.add_conditional_edges("round_planner", after_planning, ["query_rewriter", *after_rewrite])
    builder.add_conditional_edges("query_rewriter", after_planning, after_rewrite)
    builder.add_conditional_edges("hyde_writer", send_workers, ["retriever_worker"])
    builder.add_edge("reflector", "signals")
    builder.add_edge("finalizer", END)
    return builder.compile(checkpointer=checkpointer, name=GRAPH_NAME)

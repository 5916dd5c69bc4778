"""Wiring only: nodes, edges, compile with a name. No logic lives here."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from anchorgate.agents.context_assembler import assemble_context
from anchorgate.agents.finalizer import finalize
from anchorgate.agents.generator import generate
from anchorgate.agents.intake import intake
from anchorgate.agents.retriever_worker import dense_retrieve
from anchorgate.graph.config import Config
from anchorgate.graph.state import InputState, OutputState, State

GRAPH_NAME = "anchorgate"


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The question-answering graph: intake → retrieve → assemble → generate → finalize."""
    builder = StateGraph(State, context_schema=Config, input_schema=InputState, output_schema=OutputState)
    builder.add_node("intake", intake)
    builder.add_node("retrieve", dense_retrieve)
    builder.add_node("assemble_context", assemble_context)
    builder.add_node("generate", generate)
    builder.add_node("finalize", finalize)
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "retrieve")
    builder.add_edge("retrieve", "assemble_context")
    builder.add_edge("assemble_context", "generate")
    builder.add_edge("generate", "finalize")
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer, name=GRAPH_NAME)

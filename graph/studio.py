"""Entry point for LangGraph Studio / `langgraph dev`: the graph without a checkpointer.

The server supplies its own checkpointer and passes the run context (a `Config`: preset fields,
budget, model, prompts) from Studio's context form.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph.state import CompiledStateGraph

from anchorgate.graph.builder import build_graph


def make_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """Factory called by the LangGraph server (no compile at import time)."""
    return build_graph()

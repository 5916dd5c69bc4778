"""Entry point for LangGraph Studio / `langgraph dev`: the graph without a checkpointer.

The server supplies its own checkpointer and passes the run context (a `Config`: preset fields,
budget, model, prompts) from Studio's context form.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph.state import CompiledStateGraph

from anchorgate.graph.builder import build_graph
from anchorgate.prompts import get_prompt, prompt_names
from anchorgate.tools.text.tokens import count_tokens


def make_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """Factory called by the LangGraph server (no compile at import time).

    It also reads the files every run needs once (prompt templates, the tokenizer table), here at
    server start-up, so no node does first-time file I/O on the server's event loop.
    """
    for name in prompt_names():
        get_prompt(name)
    count_tokens("warm up")
    return build_graph()

"""HyDE writer (round 2): a hypothetical answer passage, embedded as the question worker's query.

Temperature 0 and a fixed seed keep it deterministic. The passage is only a search key: it never
reaches the answer, so a hallucinated detail cannot leak into what the user reads.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.prompts import render
from anchorgate.tools.llm.budgeted import budgeted_call
from anchorgate.tools.llm.usage import spend_update

HYDE_MAX_TOKENS = 96


async def write_hyde(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The hypothetical passage, set as the dense query of this round's question worker."""
    config = runtime.context
    started = time.perf_counter()
    messages = [HumanMessage(render("hyde", config.llm.prompt_overrides, question=state["question"]))]
    outcome = await budgeted_call(
        config, messages, stage="hyde", usage=state.get("usage", {}), max_tokens=HYDE_MAX_TOKENS
    )
    hyde = outcome.text
    queries = [
        {**q, "dense_query": f"{state['question']}\n{hyde}"} if q["worker"].startswith("question") and hyde else q
        for q in state.get("pending_queries", [])
    ]
    return {
        "hyde_text": hyde,
        "pending_queries": queries,
        "calls": [outcome.record],
        "usage": spend_update(outcome.record),
        "latency": {"hyde_writer": time.perf_counter() - started},
    }

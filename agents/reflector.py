"""Reflector: one second look at the draft.

REFLECT_FIXABLE_FLAW: the judge found a small flaw; the model edits its own answer.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.prompts import render
from anchorgate.tools.answer.reader import ANSWER_STOPS, recited
from anchorgate.tools.llm.budgeted import budgeted_call
from anchorgate.tools.llm.calls import CallOutcome
from anchorgate.tools.llm.usage import spend_update


async def _edit(state: State, config: Config) -> tuple[CallOutcome, dict[str, Any]]:
    messages = [
        SystemMessage(render("reflect_system", config.llm.prompt_overrides)),
        HumanMessage(
            render(
                "reflect_user",
                config.llm.prompt_overrides,
                documents=state["context_text"],
                question=state["question"],
                answer=state.get("draft", ""),
            )
        ),
    ]
    outcome = await budgeted_call(config, messages, stage="reflect", usage=state.get("usage", {}), stop=ANSWER_STOPS)
    return outcome, (await recited(outcome.text, state, config)) if outcome.text else {}


async def reflect(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The revised draft (the old one stays when the call cannot be made)."""
    config = runtime.context
    started = time.perf_counter()
    outcome, revised = await _edit(state, config)
    update: dict[str, Any] = {
        "reflected": True,
        "calls": [outcome.record],
        "usage": spend_update(outcome.record),
        "latency": {"reflector": time.perf_counter() - started},
    }
    if revised:
        # A revision is not asked whether to answer: its first token says nothing about abstaining,
        # so the generator's estimate stands.
        update.update(revised, draft_logprobs=outcome.logprobs, draft_source="")
    return update

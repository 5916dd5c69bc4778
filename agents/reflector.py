"""Reflector: one self-edit of the draft when the judge found a small fixable flaw."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from anchorgate.agents.generator import ANSWER_STOPS, recited
from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.prompts import render
from anchorgate.tools.llm_calls import stage_call
from anchorgate.tools.services import aservices_for
from anchorgate.tools.usage import spend_update


async def reflect(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The revised draft (the old one stays when the edit cannot be made)."""
    config = runtime.context
    started = time.perf_counter()
    messages = [
        SystemMessage(render("reflect_system", config.prompt_overrides)),
        HumanMessage(
            render(
                "reflect_user",
                config.prompt_overrides,
                documents=state["context_text"],
                question=state["question"],
                answer=state.get("draft", ""),
            )
        ),
    ]
    outcome = await stage_call(
        (await aservices_for(config)).llm,
        messages,
        stage="reflect",
        usage=state.get("usage", {}),
        token_budget=config.token_budget,
        max_tokens=config.max_output_tokens,
        timeout_s=config.llm_timeout_s,
        stop=ANSWER_STOPS,
    )
    update: dict[str, Any] = {
        "reflected": True,
        "calls": [outcome.record],
        "usage": spend_update(outcome.record),
        "latency": {"reflector": time.perf_counter() - started},
    }
    if outcome.text:
        # The edit is asked to revise, not to decide whether to answer: its first token says nothing
        # about abstaining, so the generator's estimate stands.
        update.update(await recited(outcome.text, state, config), draft_logprobs=outcome.logprobs)
    return update

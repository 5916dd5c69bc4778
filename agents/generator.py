"""Generator: answer only from the delimited evidence, citing passages as [n]."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.prompts import render
from anchorgate.tools.answer_text import IDK_ANSWER
from anchorgate.tools.confidence import abstain_probability
from anchorgate.tools.llm_calls import stage_call
from anchorgate.tools.services import aservices_for
from anchorgate.tools.support import repair_citations
from anchorgate.tools.usage import spend_update

# A small model sometimes starts copying the evidence block after its answer; a new passage
# header or delimiter ends the answer instead of burning the completion budget.
ANSWER_STOPS = ("\n[", "<documents>", "</documents>", "\nQuestion:")


async def recited(text: str, state: State, config: Config) -> dict[str, Any]:
    """The draft update for `text`: markers moved to the passage that supports each claim, if enabled."""
    if not config.repair_citations or not text:
        return {"draft": text}
    embeddings = (await aservices_for(config)).embeddings
    repaired, repairs = repair_citations(text, state.get("context", []), embeddings, config.support_threshold)
    return {"draft": repaired, "citation_repairs": repairs} if repairs else {"draft": text}


async def generate(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """One answer draft from the packed context; no call (empty draft) without context or budget."""
    config = runtime.context
    started = time.perf_counter()
    if not state.get("context"):
        elapsed = time.perf_counter() - started
        return {"draft": "", "draft_logprobs": None, "draft_abstain_p": None, "latency": {"generate": elapsed}}
    messages = [
        SystemMessage(render("generate_system", config.prompt_overrides)),
        HumanMessage(
            render(
                "generate_user", config.prompt_overrides, documents=state["context_text"], question=state["question"]
            )
        ),
    ]
    outcome = await stage_call(
        (await aservices_for(config)).llm,
        messages,
        stage="generate",
        usage=state.get("usage", {}),
        token_budget=config.token_budget,
        max_tokens=config.max_output_tokens,
        timeout_s=config.llm_timeout_s,
        stop=ANSWER_STOPS,
    )
    return {
        **(await recited(outcome.text, state, config)),
        "draft_logprobs": outcome.logprobs,
        "draft_abstain_p": abstain_probability(outcome.first_tokens, IDK_ANSWER),
        "calls": [outcome.record],
        "usage": spend_update(outcome.record),
        "latency": {"generate": time.perf_counter() - started},
    }

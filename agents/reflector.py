"""Reflector: one second look at the draft, for the reason the gate gave.

- REFLECT_FIXABLE_FLAW: the judge found a small flaw; the model edits its own answer.
- REFLECT_DECLINED_STRONG_EVIDENCE / REFLECT_MALFORMED_DRAFT: the reader declined (or answered
  nothing, or broke the draft's shape) although the evidence is strong; it reads the best `retry_passages` passages
  again, under their original numbers, with a prompt that says they were chosen for the question.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import Evidence, State
from anchorgate.prompts import render
from anchorgate.tools.answer.reader import ANSWER_STOPS, quoted_call, quoted_recited, recited, uses_quotes
from anchorgate.tools.llm.budgeted import budgeted_call
from anchorgate.tools.llm.calls import CallOutcome
from anchorgate.tools.llm.usage import spend_update
from anchorgate.tools.retrieval.packing import format_passage
from anchorgate.tools.retrieval.packing import render as render_documents

RETRY_REASONS = frozenset({"REFLECT_DECLINED_STRONG_EVIDENCE", "REFLECT_MALFORMED_DRAFT"})


def best_passages(state: State, count: int) -> list[Evidence]:
    """The `count` most relevant passages of the context, in passage order, numbers unchanged."""
    context = state.get("context", [])
    best = sorted(context, key=lambda p: (-float(p.get("score", 0.0)), int(p["n"])))[: max(1, count)]
    return sorted(best, key=lambda p: int(p["n"]))


def passages_text(passages: Sequence[Mapping[str, Any]]) -> str:
    """Passages rendered as the generator saw them, under their own numbers."""
    return render_documents([format_passage(int(p["n"]), p.get("title", ""), p["text"]) for p in passages])


async def _edit(state: State, config: Config) -> tuple[CallOutcome, dict[str, Any]]:
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
    outcome = await budgeted_call(config, messages, stage="reflect", usage=state.get("usage", {}), stop=ANSWER_STOPS)
    return outcome, (await recited(outcome.text, state, config)) if outcome.text else {}


async def _retry(state: State, config: Config) -> tuple[CallOutcome, dict[str, Any]]:
    passages = best_passages(state, config.retry_passages)
    outcome = await quoted_call(
        state, config, passages, passages_text(passages), stage="answer_retry", user_template="answer_retry_user"
    )
    return outcome, (await quoted_recited(outcome, state, config)) if outcome.reply is not None else {}


async def reflect(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The revised draft (the old one stays when the call cannot be made)."""
    config = runtime.context
    started = time.perf_counter()
    reason = state["gate_decision"]["reason"] if state.get("gate_decision") else ""
    retrying = reason in RETRY_REASONS and uses_quotes(config, state)
    outcome, revised = await (_retry(state, config) if retrying else _edit(state, config))
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

"""Judge: is the draft supported by the passages it cites? One word, parsed, with a bounded retry.

A 0.5B model does not write reliable JSON, so the structured output is a tiny schema filled
from a one-word verdict (SUPPORTED / PARTIAL / UNSUPPORTED); a reply that names none of them is
retried once with a stricter instruction, then recorded as malformed (no verdict). Confidence is
the probability of the verdict's first token when the model reports logprobs.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel

from anchorgate.agents.signal_meter import draft_key
from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.prompts import render
from anchorgate.tools.answer_text import cited_numbers
from anchorgate.tools.evidence import to_chunk
from anchorgate.tools.llm_calls import CallOutcome, stage_call
from anchorgate.tools.packing import pack_context
from anchorgate.tools.services import aservices_for
from anchorgate.tools.usage import add_usage, spend_update

JUDGE_MAX_TOKENS = 6
_VERDICT = re.compile(r"\b(UNSUPPORTED|NOT\s+SUPPORTED|PARTIAL(?:LY)?|SUPPORTED)\b", re.IGNORECASE)


class JudgeVerdict(BaseModel):
    """The judge's structured output."""

    label: Literal["SUPPORTED", "PARTIAL", "UNSUPPORTED"]
    confidence: float | None = None


def parse_verdict(text: str, logprobs: list[list[float]] | None = None) -> JudgeVerdict | None:
    """The first verdict word in `text` (None when there is none)."""
    match = _VERDICT.search(text)
    if not match:
        return None
    word = match.group(1).upper()
    label = (
        "UNSUPPORTED" if word.startswith(("UN", "NOT")) else "PARTIAL" if word.startswith("PARTIAL") else "SUPPORTED"
    )
    confidence = round(math.exp(logprobs[0][0]), 4) if logprobs and logprobs[0] else None
    return JudgeVerdict(label=label, confidence=confidence)  # type: ignore[arg-type]


def judged_passages(state: State, max_tokens: int) -> str:
    """The passages the draft cites (all of the context when it cites none), packed to a cap."""
    numbers = set(cited_numbers(state.get("draft", "")))
    context = state.get("context", [])
    cited = [p for p in context if p["n"] in numbers] or context
    return pack_context([to_chunk(p) for p in cited], max_tokens).text


async def judge(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """One judgement of the current draft (plus at most `judge_retries` re-asks when unparseable)."""
    config = runtime.context
    started = time.perf_counter()
    documents = judged_passages(state, config.judge_context_tokens)
    messages: list[BaseMessage] = [
        SystemMessage(render("judge_system", config.prompt_overrides)),
        HumanMessage(
            render(
                "judge_user",
                config.prompt_overrides,
                documents=documents,
                question=state["question"],
                answer=state.get("draft", ""),
            )
        ),
    ]
    usage, records = dict(state.get("usage", {})), []
    verdict: JudgeVerdict | None = None
    for attempt in range(config.judge_retries + 1):
        outcome = await _ask(messages, config, usage)
        records.append({**outcome.record, "attempt": attempt})
        usage = add_usage(usage, spend_update(outcome.record))
        if outcome.reply is None:
            break
        verdict = parse_verdict(outcome.text, outcome.logprobs)
        if verdict is not None:
            break
        messages = [*messages, AIMessage(outcome.text), HumanMessage(render("judge_retry", config.prompt_overrides))]
    spend: dict[str, dict[str, int]] = {}
    for record in records:
        spend = add_usage(spend, spend_update(record))
    result = {
        "label": verdict.label if verdict else None,
        "confidence": verdict.confidence if verdict else None,
        "error": None if verdict else (records[-1].get("skipped") or "JUDGE_MALFORMED"),
        "draft_key": draft_key(state.get("draft", "")),
        "pass_no": state.get("pass_no", 1),
    }
    return {
        "judge": result,
        "judge_calls": state.get("judge_calls", 0) + 1,
        "calls": records,
        "usage": spend,
        "latency": {"judge": time.perf_counter() - started},
    }


async def _ask(messages: list[BaseMessage], config: Config, usage: dict[str, dict[str, int]]) -> CallOutcome:
    return await stage_call(
        (await aservices_for(config)).llm,
        messages,
        stage="judge",
        usage=usage,
        token_budget=config.token_budget,
        max_tokens=JUDGE_MAX_TOKENS,
        timeout_s=config.llm_timeout_s,
    )

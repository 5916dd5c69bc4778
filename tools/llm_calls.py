"""One budget-checked LLM call: count the prompt first, cap the completion, record the spend.

A call whose prompt (plus a minimal completion) does not fit in what is left of the question's
token budget is not made; the caller gets `None` and a record saying why, and the graph decides
with what it has. This is how the budget stays a hard ceiling.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

from anchorgate.tools.usage import estimate_prompt_tokens, totals, usage_record

MIN_COMPLETION_TOKENS = 8  # below this an answer cannot say anything useful


@dataclass(frozen=True)
class CallOutcome:
    """The reply (None when the call was not made) and its usage/skip record."""

    reply: AIMessage | None
    record: dict[str, Any]

    @property
    def text(self) -> str:
        """The completion text ('' when skipped)."""
        return str(self.reply.content).strip() if self.reply is not None else ""

    @property
    def logprobs(self) -> list[list[float]] | None:
        """Per-token top-k logprobs when the model reported them."""
        if self.reply is None:
            return None
        value = self.reply.response_metadata.get("logprobs")
        return value if isinstance(value, list) else None

    @property
    def first_tokens(self) -> list[tuple[str, float]] | None:
        """The first position's top candidates as (token text, logprob), when the model reported them.

        Our llama.cpp model reports `first_tokens`; OpenAI-compatible models report
        `logprobs.content[0].top_logprobs`.
        """
        return first_token_candidates(self.reply) if self.reply is not None else None


def first_token_candidates(reply: BaseMessage) -> list[tuple[str, float]] | None:
    """A reply's first-position candidates (token text, logprob), in either reporting format."""
    meta = reply.response_metadata
    if isinstance(meta.get("first_tokens"), list):
        return [(str(text), float(lp)) for text, lp in meta["first_tokens"]]
    content = meta.get("logprobs", {}).get("content") if isinstance(meta.get("logprobs"), dict) else None
    if content and isinstance(content[0], dict) and content[0].get("top_logprobs"):
        return [(str(c["token"]), float(c["logprob"])) for c in content[0]["top_logprobs"]]
    return None


async def counted_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    stage: str,
    tokens_left: int,
    max_tokens: int,
    stop: Sequence[str] = (),
    timeout_s: float | None = None,
    grammar: str | None = None,
) -> CallOutcome:
    """Call `model` only if prompt + completion fit in `tokens_left`; the completion is capped.

    A timeout or a model error is not raised into the graph: the outcome has no reply and its
    record names the cause (`skipped: "TIMEOUT"` / `"ERROR"`), so the gate can abstain with it.
    The prompt estimate is charged for a call that failed after it was sent. A `grammar` (GBNF)
    is sent only to models that declare `supports_grammar`; others get the prompt's instructions.
    """
    estimate = estimate_prompt_tokens(model, messages)
    cap = min(max_tokens, tokens_left - estimate)
    if cap < min(MIN_COMPLETION_TOKENS, max_tokens) or cap <= 0:
        skipped = {"stage": stage, "prompt": 0, "completion": 0, "skipped": "BUDGET", "estimate": estimate}
        return CallOutcome(None, skipped)
    started = time.perf_counter()
    try:
        extra: dict[str, Any] = {"grammar": grammar} if grammar and getattr(model, "supports_grammar", False) else {}
        call = model.ainvoke(list(messages), max_tokens=cap, stop=list(stop) or None, **extra)
        reply = await asyncio.wait_for(call, timeout_s) if timeout_s else await call
    except TimeoutError:
        return CallOutcome(None, _failed(stage, estimate, "TIMEOUT", f"no reply within {timeout_s} s"))
    except Exception as exc:  # noqa: BLE001 — any provider error becomes a recorded, routed outcome
        return CallOutcome(None, _failed(stage, estimate, "ERROR", f"{type(exc).__name__}: {exc}"))
    record = usage_record(stage, messages, reply)
    record.update(seconds=round(time.perf_counter() - started, 3), max_tokens=cap, estimate=estimate)
    message = reply if isinstance(reply, AIMessage) else AIMessage(content=str(reply.content))
    return CallOutcome(message, record)


def _failed(stage: str, estimate: int, cause: str, detail: str) -> dict[str, Any]:
    return {"stage": stage, "prompt": estimate, "completion": 0, "skipped": cause, "error": detail[:300]}


async def stage_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    stage: str,
    usage: dict[str, dict[str, int]],
    token_budget: int,
    max_tokens: int,
    timeout_s: float | None,
    stop: Sequence[str] = (),
    grammar: str | None = None,
) -> CallOutcome:
    """`counted_call` with what is left of the question's budget after the spend so far."""
    left = token_budget - totals(usage)["total"]
    return await counted_call(
        model,
        messages,
        stage=stage,
        tokens_left=left,
        max_tokens=max_tokens,
        stop=stop,
        timeout_s=timeout_s,
        grammar=grammar,
    )

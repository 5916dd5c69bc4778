"""One budget-checked LLM call: count the prompt first, cap the completion, record the spend.

A call whose prompt (plus a minimal completion) does not fit in what is left of the question's
token budget is not made; the caller gets `None` and a record saying why, and the graph decides
with what it has. This is how the budget stays a hard ceiling. A call that fails (the server is
down, busy, silent or talks nonsense) is retried within bounds and then recorded as a fault
(`tools.llm.faults`), which ends the run as ABSTAIN with the fault's reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.runtime import get_runtime

from anchorgate.tools.llm.faults import Fault, RetryPolicy, classify_fault, fault_record, with_client_limits
from anchorgate.tools.llm.usage import estimate_prompt_tokens, usage_record

LOG = logging.getLogger(__name__)

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
        """Per-token top-k logprobs when the model reported them (see `token_logprobs`)."""
        return token_logprobs(self.reply) if self.reply is not None else None

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


def token_logprobs(reply: BaseMessage) -> list[list[float]] | None:
    """A reply's per-token top-k logprobs, highest first, in either reporting format.

    Our llama.cpp model reports the lists themselves; OpenAI-compatible models report
    `logprobs.content[i].top_logprobs[j].logprob` (a token without candidates keeps its own logprob).
    """
    value = reply.response_metadata.get("logprobs")
    if isinstance(value, list):
        return value
    content = value.get("content") if isinstance(value, dict) else None
    if not isinstance(content, list) or not content:
        return None
    rows: list[list[float]] = []
    for token in content:
        if not isinstance(token, dict):
            continue
        candidates = token.get("top_logprobs") or []
        top = [c["logprob"] for c in candidates if isinstance(c, dict) and c.get("logprob") is not None]
        if not top and token.get("logprob") is not None:
            top = [token["logprob"]]
        rows.append(sorted((float(lp) for lp in top), reverse=True))
    return rows or None


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
    retry: RetryPolicy | None = None,
) -> CallOutcome:
    """Call `model` only if prompt + completion fit in `tokens_left`; the completion is capped.

    A failed call is not raised into the graph: the outcome has no reply and its record names the
    fault (`fault`, `reason`, `error`, `attempts`; see `tools.llm.faults`), so the router ends the
    run on it. Unavailable and rate-limited calls are retried per `retry` (default: the running
    graph's settings); each attempt may take `timeout_s`. The prompt estimate is charged for a call
    that failed after it was sent. A `grammar` (GBNF) is sent only to models that declare
    `supports_grammar`; others get the prompt's instructions.
    """
    estimate = estimate_prompt_tokens(model, messages)
    if getattr(model, "runs_in_process", False):
        timeout_s = None  # a local model is slow on a busy machine, not failed (tools/llm/llama_chat.py)
    cap = min(max_tokens, tokens_left - estimate)
    if cap < min(MIN_COMPLETION_TOKENS, max_tokens) or cap <= 0:
        skipped = {"stage": stage, "prompt": 0, "completion": 0, "skipped": "BUDGET", "estimate": estimate}
        return CallOutcome(None, skipped)
    started = time.perf_counter()
    extra: dict[str, Any] = {"grammar": grammar} if grammar and getattr(model, "supports_grammar", False) else {}
    client = with_client_limits(model, timeout_s, 0)  # the retries below are the only ones

    def call() -> Awaitable[BaseMessage]:
        return client.ainvoke(list(messages), max_tokens=cap, stop=list(stop) or None, **extra)

    reply, fault, attempts = await call_with_retries(call, timeout_s, retry or run_retry_policy())
    if reply is None:
        failed = fault_record(stage, fault or Fault("ERROR", "no reply"), prompt=estimate, attempts=attempts)
        return CallOutcome(None, {**failed, "seconds": round(time.perf_counter() - started, 3)})
    record = usage_record(stage, messages, reply)
    record.update(seconds=round(time.perf_counter() - started, 3), max_tokens=cap, estimate=estimate)
    if attempts > 1:
        record["attempts"] = attempts
    message = reply if isinstance(reply, AIMessage) else AIMessage(content=str(reply.content))
    return CallOutcome(message, record)


async def call_with_retries(
    call: Callable[[], Awaitable[BaseMessage]], timeout_s: float | None, policy: RetryPolicy
) -> tuple[BaseMessage | None, Fault | None, int]:
    """(reply, None, attempts) or (None, fault, attempts): retryable faults are asked again with backoff."""
    attempt = 0
    while True:
        attempt += 1
        try:
            pending = call()
            reply = await asyncio.wait_for(pending, timeout_s) if timeout_s else await pending
            return reply, None, attempt
        except Exception as exc:  # noqa: BLE001 — every failure of the call becomes a classified, recorded fault
            fault = classify_fault(exc)
            if isinstance(exc, TimeoutError) and timeout_s:
                fault = Fault("TIMEOUT", f"no reply within {timeout_s} s")
        if not fault.retryable or attempt > policy.retries:
            return None, fault, attempt
        LOG.info("LLM call failed (%s), retry %d of %d: %s", fault.kind, attempt, policy.retries, fault.detail)
        await asyncio.sleep(policy.delay(attempt))


def run_retry_policy() -> RetryPolicy:
    """The retry settings of the graph run this call belongs to (its `Config` is the run context).

    Nodes call the LLM through `budgeted_call` without passing the policy; LangGraph hands every node
    the run's runtime, so it is read from there. Outside a graph run: the defaults.
    """
    try:
        runtime = get_runtime()
    except RuntimeError:  # not inside a graph run (the judge check, direct calls)
        return RetryPolicy()
    context = getattr(runtime, "context", None)
    return RetryPolicy.of(context) if context is not None else RetryPolicy()


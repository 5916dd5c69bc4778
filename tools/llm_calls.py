"""One budget-checked LLM call: count the prompt first, cap the completion, record the spend.

A call whose prompt (plus a minimal completion) does not fit in what is left of the question's
token budget is not made; the caller gets `None` and a record saying why, and the graph decides
with what it has. This is how the budget stays a hard ceiling.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

from anchorgate.tools.usage import estimate_prompt_tokens, usage_record

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


async def counted_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    stage: str,
    tokens_left: int,
    max_tokens: int,
    stop: Sequence[str] = (),
) -> CallOutcome:
    """Call `model` only if prompt + completion fit in `tokens_left`; the completion is capped."""
    estimate = estimate_prompt_tokens(model, messages)
    cap = min(max_tokens, tokens_left - estimate)
    if cap < MIN_COMPLETION_TOKENS:
        skipped = {"stage": stage, "prompt": 0, "completion": 0, "skipped": "BUDGET", "estimate": estimate}
        return CallOutcome(None, skipped)
    started = time.perf_counter()
    reply = await model.ainvoke(list(messages), max_tokens=cap, stop=list(stop) or None)
    record = usage_record(stage, messages, reply)
    record.update(seconds=round(time.perf_counter() - started, 3), max_tokens=cap, estimate=estimate)
    message = reply if isinstance(reply, AIMessage) else AIMessage(content=str(reply.content))
    return CallOutcome(message, record)

"""`budgeted_call`: one LLM call of a graph stage, held to what is left of the question's token budget.

Every node that asks the run's chat model (reader, second reading, free-style fallback, judge,
reflector, rewriter, HyDE) calls it the same way: the model of the run's services, the spend so
far taken off `token_budget`, the completion capped at the stage's maximum, the run's timeout.
`tools/llm/calls.py` makes the call itself (`counted_call`).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from anchorgate.tools.llm.calls import CallOutcome, counted_call
from anchorgate.tools.llm.usage import totals
from anchorgate.tools.services import aservices_for
from anchorgate.tools.settings import ServiceSettings


async def budgeted_call(
    config: ServiceSettings,
    messages: Sequence[BaseMessage],
    *,
    stage: str,
    usage: dict[str, dict[str, int]],
    max_tokens: int | None = None,
    stop: Sequence[str] = (),
    grammar: str | None = None,
) -> CallOutcome:
    """`counted_call` to the run's chat model with `token_budget` less the spend in `usage`;
    the completion is capped at `max_tokens` (default `max_output_tokens`)."""
    return await counted_call(
        (await aservices_for(config)).llm,
        messages,
        stage=stage,
        tokens_left=config.budget.token_budget - totals(usage)["total"],
        max_tokens=config.budget.max_output_tokens if max_tokens is None else max_tokens,
        stop=stop,
        timeout_s=config.llm.timeout_s,
        grammar=grammar,
    )

"""Token accounting: every LLM call's prompt and completion tokens, by stage.

The model's own usage report is used when it gives one; otherwise tiktoken's offline cl100k
counts the prompt and completion text (`source: "tiktoken"`), so no call goes uncounted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from anchorgate.tools.text.tokens import count_tokens

# Chat templates wrap each message in role markers; counted generously for estimates.
TEMPLATE_TOKENS_PER_MESSAGE = 6
TEMPLATE_TOKENS_FIXED = 4
ESTIMATE_MARGIN = 1.10  # tiktoken is not the model's tokenizer: keep estimates on the safe side


def estimate_prompt_tokens(model: BaseChatModel, messages: Sequence[BaseMessage]) -> int:
    """Prompt tokens before a call: exact for the local model, a safe tiktoken bound otherwise."""
    exact = getattr(model, "count_prompt_tokens", None)
    if callable(exact):
        return int(exact(messages))
    content = sum(count_tokens(str(m.content)) for m in messages)
    overhead = TEMPLATE_TOKENS_PER_MESSAGE * len(messages) + TEMPLATE_TOKENS_FIXED
    return int((content + overhead) * ESTIMATE_MARGIN) + 1


def usage_record(stage: str, prompt: Sequence[BaseMessage], reply: BaseMessage) -> dict[str, Any]:
    """{stage, prompt, completion, source} for one finished call."""
    usage = getattr(reply, "usage_metadata", None) or {}
    if usage.get("input_tokens") or usage.get("output_tokens"):
        return {
            "stage": stage,
            "prompt": int(usage.get("input_tokens", 0)),
            "completion": int(usage.get("output_tokens", 0)),
            "source": "model",
        }
    return {
        "stage": stage,
        "prompt": sum(count_tokens(str(m.content)) for m in prompt),
        "completion": count_tokens(str(reply.content)),
        "source": "tiktoken",
    }


def add_usage(current: dict[str, dict[str, int]], update: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Reducer: add per-stage counts. An update {"__reset__": …} clears the tally (new question)."""
    if "__reset__" in update:
        return {k: dict(v) for k, v in update.items() if k != "__reset__"}
    merged = {stage: dict(counts) for stage, counts in (current or {}).items()}
    for stage, counts in update.items():
        slot = merged.setdefault(stage, {"prompt": 0, "completion": 0, "calls": 0})
        for key in ("prompt", "completion", "calls"):
            slot[key] = slot.get(key, 0) + int(counts.get(key, 0))
    return merged


def stage_usage(record: dict[str, Any]) -> dict[str, dict[str, int]]:
    """A usage record as a reducer update for its stage."""
    return {record["stage"]: {"prompt": record["prompt"], "completion": record["completion"], "calls": 1}}


def totals(by_stage: dict[str, dict[str, int]]) -> dict[str, Any]:
    """{prompt, completion, total, by_stage} as the CLI and telemetry report it."""
    prompt = sum(v.get("prompt", 0) for v in by_stage.values())
    completion = sum(v.get("completion", 0) for v in by_stage.values())
    return {"prompt": prompt, "completion": completion, "total": prompt + completion, "by_stage": by_stage}


def spend_update(record: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The usage-reducer update for a call record; a call not made for lack of budget costs nothing."""
    if record.get("skipped") == "BUDGET":
        return {}
    return stage_usage(record)

"""Graph state: a narrow input, the internal round state, and a stable output contract.

Accumulating channels declare reducers with `Annotated`. Evidence is merged by chunk id (first
sighting wins, so a chunk keeps the round it was first found in); token spend and latencies add
up per stage/node. Nodes return partial updates and never mutate what they were given.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from anchorgate.tools.usage import add_usage

Evidence = dict[str, Any]  # {id, doc_id, title, text, source, score, round, worker, metadata}


def merge_evidence(current: list[Evidence] | None, update: list[Evidence] | None) -> list[Evidence]:
    """Reducer: append evidence not seen before (by chunk id); `[{"reset": True}]` empties it."""
    current = current or []
    if update and update[0].get("reset"):
        return [e for e in update[1:]]
    seen = {e["id"] for e in current}
    merged = list(current)
    for item in update or []:
        if item["id"] not in seen:
            seen.add(item["id"])
            merged.append(item)
    return merged


def append_log(current: list[dict[str, Any]] | None, update: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Reducer: append records; an update starting with {"reset": True} starts a new log."""
    if update and update[0].get("reset"):
        return list(update[1:])
    return [*(current or []), *update]


def add_latency(current: dict[str, float] | None, update: dict[str, float]) -> dict[str, float]:
    """Reducer: seconds per node, summed over rounds; {"__reset__": 0} starts over."""
    merged = {} if "__reset__" in update else dict(current or {})
    for node, seconds in update.items():
        if node == "__reset__":
            continue
        merged[node] = round(merged.get(node, 0.0) + seconds, 4)
    return merged


class InputState(TypedDict):
    """What a caller sends: just the question (settings travel in the run context)."""

    question: str


class OutputState(TypedDict, total=False):
    """What a caller gets back."""

    answer: str
    short_answer: str
    citations: list[dict[str, Any]]
    decision: str
    reason: str
    rounds: int
    tokens: dict[str, Any]
    telemetry: dict[str, Any]


class State(InputState, OutputState, total=False):
    """Internal round state persisted by the checkpointer."""

    round: int
    evidence: Annotated[list[Evidence], merge_evidence]
    context: list[Evidence]  # the numbered passages the generator saw, in order (with "n")
    context_text: str
    context_tokens: int
    draft: str
    draft_logprobs: list[list[float]] | None
    usage: Annotated[dict[str, dict[str, int]], add_usage]
    calls: Annotated[list[dict[str, Any]], append_log]
    gate_log: Annotated[list[dict[str, Any]], append_log]
    latency: Annotated[dict[str, float], add_latency]


# Updates that empty every accumulating channel: a thread may carry several questions.
RESET_CHANNELS: dict[str, Any] = {
    "evidence": [{"reset": True}],
    "usage": {"__reset__": {}},
    "calls": [{"reset": True}],
    "gate_log": [{"reset": True}],
    "latency": {"__reset__": 0.0},
}

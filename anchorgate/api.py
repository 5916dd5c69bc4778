"""The Python API: `ask` / `aask` one question, with a preset (A unless given), overrides and a thread id."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from anchorgate.graph.builder import build_graph
from anchorgate.graph.checkpoint import open_checkpointer
from anchorgate.graph.config import Config
from anchorgate.graph.presets import load_preset
from anchorgate.threads import run_config, stream_events
from anchorgate.tools.questions import validate_question
from anchorgate.tools.services import services_for


def resolve_config(preset: str = "A", overrides: dict[str, Any] | None = None) -> Config:
    """The run's Config: the preset, then per-run overrides."""
    return load_preset(preset, overrides)


async def aask(
    question: str,
    *,
    preset: str = "A",
    overrides: dict[str, Any] | None = None,
    config: Config | None = None,
    thread_id: str | None = None,
) -> dict[str, Any]:
    """Answer one question; the run's state is checkpointed under `thread_id` (new one if None)."""
    started = time.perf_counter()
    config = config or resolve_config(preset, overrides)
    question = validate_question(question, config.max_question_chars)
    await asyncio.to_thread(services_for, config)  # load index/models off the event loop
    thread_id = thread_id or f"q-{uuid.uuid4().hex[:16]}"
    async with open_checkpointer(config) as saver:
        graph = build_graph(checkpointer=saver)
        # "sync": each step's checkpoint is on disk before the next starts, so a killed process
        # resumes from the last finished node (see `anchorgate.threads.resume`).
        result = await graph.ainvoke(
            {"question": question}, run_config(config, thread_id), context=config, durability="sync"
        )
    return {**result, "thread_id": thread_id, "latency_s": round(time.perf_counter() - started, 3)}


def ask(question: str, **kwargs: Any) -> dict[str, Any]:
    """Synchronous `aask`."""
    return asyncio.run(aask(question, **kwargs))


async def astream(
    question: str,
    *,
    preset: str = "A",
    overrides: dict[str, Any] | None = None,
    config: Config | None = None,
    thread_id: str | None = None,
) -> AsyncIterator[dict[str, Any]]:
    """Progress events of one question: each node as it finishes, gate decisions, the final answer."""
    config = config or resolve_config(preset, overrides)
    question = validate_question(question, config.max_question_chars)
    await asyncio.to_thread(services_for, config)
    async for event in stream_events(question, config, thread_id or f"q-{uuid.uuid4().hex[:16]}"):
        yield event

"""The Python API: `ask` / `aask` one question, with a preset (A unless given), overrides and a thread id."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from anchorgate.graph.builder import build_graph
from anchorgate.graph.config import Config
from anchorgate.graph.presets import load_preset
from anchorgate.threads import run_config, stream_events, validate_thread_id, warn_not_checkpointed, writer
from anchorgate.tools.checkpoints.store import is_postgres_url, refuse_folder
from anchorgate.tools.errors import CheckpointCorruptError, CheckpointWriteError
from anchorgate.tools.question.validation import validate_question
from anchorgate.tools.services import services_for
from anchorgate.tools.text.language import language_mismatch, question_language

# A store a question without a thread is answered without (a warning says so): damaged or unwritable.
STORE_UNUSABLE = (CheckpointCorruptError, CheckpointWriteError)


def resolve_config(preset: str = "A", overrides: dict[str, Any] | None = None) -> Config:
    """The run's Config: the preset, then per-run overrides."""
    return load_preset(preset, overrides)


def new_thread_id() -> str:
    """A fresh thread id for a question asked without one."""
    return f"q-{uuid.uuid4().hex[:16]}"


async def aask(
    question: str,
    *,
    preset: str = "A",
    overrides: dict[str, Any] | None = None,
    config: Config | None = None,
    thread_id: str | None = None,
) -> dict[str, Any]:
    """Answer one question; the run's state is checkpointed under `thread_id` (new one if None).

    A damaged SQLite store is `CheckpointCorruptError`, and one that cannot be written (an
    unwritable cache or `checkpoint_db` folder) `CheckpointWriteError`, when `thread_id` is given:
    that thread's history is in that store. Without one the question is answered anyway, without
    checkpoints, with a `CheckpointStoreWarning` and `checkpointed: false` in the result. Why not
    a fresh file beside the damaged one: moving or adding files in the user's store is left to
    the command the warning names (`anchorgate reset-checkpoints`), and the damaged file stays
    exactly as it was for salvage. A `checkpoint_db` naming a folder is an error either way: a
    wrong setting, not a damaged or unreachable store.
    """
    started = time.perf_counter()
    config = config or resolve_config(preset, overrides)
    question = validate_question(question, config.llm.max_question_chars)
    thread_id = _given_thread(thread_id, config)
    services = await asyncio.to_thread(services_for, config)  # load index/models off the event loop
    checkpointed = True
    try:
        result = await _invoke(question, config, thread_id or new_thread_id(), memory=False)
    except STORE_UNUSABLE as exc:
        if thread_id is not None:
            raise
        warn_not_checkpointed(exc)
        checkpointed = False
        result = await _invoke(question, config, new_thread_id(), memory=True)
    notes = language_notes(question, services.index.manifest)
    return {
        **result,
        "notes": notes,
        "checkpointed": checkpointed,
        "latency_s": round(time.perf_counter() - started, 3),
    }


def language_notes(question: str, manifest: dict[str, Any]) -> list[str]:
    """A note when the question's language is not the corpus's (a Chinese question over an English corpus):
    the answer is then most likely "I don't know", and the user should know why."""
    shares = (manifest.get("languages") or {}).get("shares") or {}
    note = language_mismatch(question_language(question), shares)
    return [note] if note else []


def _given_thread(thread_id: str | None, config: Config) -> str | None:
    """The caller's thread id checked (None: a new thread), and a `checkpoint_db` that names a folder refused."""
    if not is_postgres_url(config.resources.checkpoint_db) and config.resources.checkpoint_db:
        refuse_folder(Path(config.resources.checkpoint_db).expanduser())
    return None if thread_id is None else validate_thread_id(thread_id)


async def _invoke(question: str, config: Config, thread_id: str, *, memory: bool) -> dict[str, Any]:
    """One run of the graph on `thread_id`, under the thread's lock (see `anchorgate.threads.writer`)."""
    async with writer(config, thread_id, memory=memory) as saver:
        graph = build_graph(checkpointer=saver)
        # "sync": each step's checkpoint is on disk before the next starts, so a killed process
        # resumes from the last finished node (see `anchorgate.threads.resume`).
        result = await graph.ainvoke(
            {"question": question}, run_config(config, thread_id), context=config, durability="sync"
        )
    return {**result, "thread_id": thread_id}


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
    """Progress events of one question: each node as it finishes, gate decisions, the final answer.

    A damaged store is handled as in `aask`, as long as no event was sent yet (events already
    sent cannot be taken back, so a store found damaged later in the run is an error).
    """
    config = config or resolve_config(preset, overrides)
    question = validate_question(question, config.llm.max_question_chars)
    thread_id = _given_thread(thread_id, config)
    await asyncio.to_thread(services_for, config)
    sent = False
    try:
        async for event in stream_events(question, config, thread_id or new_thread_id()):
            sent = True
            yield event
    except STORE_UNUSABLE as exc:
        if thread_id is not None or sent:
            raise
        warn_not_checkpointed(exc)
        async for event in stream_events(question, config, new_thread_id(), memory=True):
            yield event

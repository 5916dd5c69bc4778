"""Checkpointed threads: progress streaming, history, replay (time travel) and resume.

Every run keeps its full `Config` in its state (`settings`, written by the intake node), so a
thread can be resumed or forked later with exactly the settings it ran with, plus overrides.
(LangGraph does not persist run-config metadata in checkpoints, so the state is the safe place.)

Every run that writes a thread holds the thread's lock (`anchorgate.tools.checkpoints.lock`): a second
run on a busy thread is refused, never interleaved into the same history.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from anchorgate.graph.builder import build_graph
from anchorgate.graph.config import Config, steps_needed
from anchorgate.tools.checkpoints.lock import thread_lock
from anchorgate.tools.checkpoints.store import open_checkpointer
from anchorgate.tools.errors import (
    CheckpointCorruptError,
    CheckpointWriteError,
    InvalidThreadIdError,
    ThreadNotFoundError,
)
from anchorgate.tools.llm.usage import totals
from anchorgate.tools.question.hop_plan import MAX_HOPS

OUTCOME_KEYS = ("answer", "decision", "reason", "rounds", "tokens")


class CheckpointStoreWarning(UserWarning):
    """A question was answered without checkpoints: the store is damaged or cannot be written (CLI: `warning:`)."""


def validate_thread_id(thread_id: object) -> str:
    """A thread id given by the caller: non-blank text that encodes as UTF-8 (the lock file and the store hash it).

    Blank is refused rather than read as "no thread": `--thread ""` used to start a random thread
    the caller could never find again. Any other character is allowed (it is printed escaped).
    """
    if not isinstance(thread_id, str):
        raise InvalidThreadIdError(f"the thread id must be text, got {type(thread_id).__name__}")
    if not thread_id.strip():
        raise InvalidThreadIdError(
            f"the thread id {thread_id!r} is blank",
            "name a thread, e.g. --thread t1, or leave --thread out for a new one",
        )
    try:
        thread_id.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidThreadIdError(
            f"the thread id {thread_id!r} is not valid text (it holds an unpaired surrogate)", "use UTF-8 text"
        ) from None
    return thread_id


def warn_not_checkpointed(exc: CheckpointCorruptError | CheckpointWriteError) -> None:
    """Tell the caller that this answer is not saved, why, and how to get a working store back."""
    warnings.warn(
        CheckpointStoreWarning(
            f"{exc.message}; answering without checkpoints (this run cannot be resumed or listed): {exc.hint}"
        ),
        stacklevel=3,
    )


@asynccontextmanager
async def writer(config: Config, thread_id: str, *, memory: bool = False) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The checkpointer of a run that writes `thread_id`, opened under the thread's lock.

    The lock is taken before the store is opened, so a busy thread is refused without touching
    the store. `memory=True` is the fallback for a question asked without a thread when the store
    is damaged: an in-process saver, no file, no lock (the thread id is fresh and nobody else's).
    """
    if memory:
        yield InMemorySaver()
        return
    with thread_lock(config, thread_id):
        async with open_checkpointer(config) as saver:
            yield saver


def run_config(config: Config, thread_id: str, checkpoint_id: str | None = None) -> RunnableConfig:
    """The LangGraph RunnableConfig of a run: thread (and checkpoint), step limit, settings in metadata."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {
        "configurable": configurable,
        "recursion_limit": steps_needed(config.budget.max_rounds) * (MAX_HOPS if config.gate.follow_hops else 1),
    }


def progress_event(node: str, update: Any) -> dict[str, Any]:
    """A compact, JSON-ready event for one finished node."""
    event: dict[str, Any] = {"event": "node_finished", "node": node, "time": round(time.time(), 3)}
    if not isinstance(update, dict):
        return event
    if node == "gate" and update.get("gate_decision"):
        event.update(event="gate_decision", **update["gate_decision"])
    elif node == "finalizer":
        event.update(
            event="final",
            answer=update.get("answer"),
            decision=update.get("decision"),
            reason=update.get("reason"),
            tokens=update.get("tokens"),
        )
    elif node == "retriever_worker":
        event["hits"] = len(update.get("evidence", []))
    elif node == "anchor_predictor":
        event["anchors"] = [a["text"] for a in update.get("anchors", [])]
    return event


async def stream_events(
    question: str, config: Config, thread_id: str, *, memory: bool = False
) -> AsyncIterator[dict[str, Any]]:
    """Progress events of one run: node finished, gate decision with reason, final answer."""
    async with writer(config, thread_id, memory=memory) as saver:
        graph = build_graph(checkpointer=saver)
        stream = graph.astream(
            {"question": question},
            run_config(config, thread_id),
            context=config,
            stream_mode="updates",
            durability="sync",
        )
        async for chunk in stream:
            for node, update in chunk.items():
                yield progress_event(node, update)


async def thread_history(config: Config, thread_id: str) -> list[dict[str, Any]]:
    """Checkpoints of a thread, newest first: id, step, next nodes, round, decision, tokens spent."""
    validate_thread_id(thread_id)
    async with open_checkpointer(config) as saver:
        graph = build_graph(checkpointer=saver)
        rows = []
        async for snapshot in graph.aget_state_history({"configurable": {"thread_id": thread_id}}):
            values = snapshot.values or {}
            rows.append(
                {
                    "checkpoint_id": snapshot.config["configurable"]["checkpoint_id"],
                    "step": (snapshot.metadata or {}).get("step"),
                    "next": list(snapshot.next),
                    # which of the step's tasks finished (their writes saved) before the next checkpoint
                    "tasks": [{"id": t.id, "name": t.name, "done": t.result is not None} for t in snapshot.tasks],
                    "round": values.get("round"),
                    "decision": (values.get("gate_decision") or {}).get("action") or values.get("decision") or "",
                    "reason": (values.get("gate_decision") or {}).get("reason", ""),
                    "tokens": totals(values.get("usage") or {})["total"],
                    "created_at": snapshot.created_at,
                }
            )
    if not rows:
        raise ThreadNotFoundError(f"no checkpoints for thread {thread_id!r}", "list threads with `anchorgate history`")
    return rows


async def _saved_config(graph: Any, thread_id: str, checkpoint_id: str | None, base: Config) -> tuple[Config, Any]:
    """The settings the thread ran with at that checkpoint (`base` if it stopped before intake)."""
    configurable = {"thread_id": thread_id, **({"checkpoint_id": checkpoint_id} if checkpoint_id else {})}
    snapshot = await graph.aget_state({"configurable": configurable})
    if snapshot.metadata is None:  # no such checkpoint
        where = f"checkpoint {checkpoint_id!r} of thread {thread_id!r}" if checkpoint_id else f"thread {thread_id!r}"
        raise ThreadNotFoundError(f"{where} does not exist", "see `anchorgate history THREAD` for valid ids")
    saved = dict(snapshot.values.get("settings") or {})
    # The store the caller opened wins: the thread may have been copied to another file or server.
    store = {"resources.checkpoint_db": base.resources.checkpoint_db, "resources.cache_dir": base.resources.cache_dir}
    return (Config.from_saved(saved).replace(**store) if saved else base), snapshot


async def replay(base: Config, thread_id: str, checkpoint_id: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Fork the thread at `checkpoint_id` and run on with the saved settings plus `overrides`.

    The result also holds `before`: the outcome the thread had before the fork (its latest
    state), so a caller sees how the change of settings changed the answer.
    """
    validate_thread_id(thread_id)
    async with writer(base, thread_id) as saver:
        graph = build_graph(checkpointer=saver)
        saved, _ = await _saved_config(graph, thread_id, checkpoint_id, base)
        latest = (await graph.aget_state({"configurable": {"thread_id": thread_id}})).values
        config = saved.replace(**overrides) if overrides else saved
        result = await graph.ainvoke(
            None, run_config(config, thread_id, checkpoint_id), context=config, durability="sync"
        )
    before = {key: latest.get(key) for key in OUTCOME_KEYS}
    return {**result, "thread_id": thread_id, "forked_from": checkpoint_id, "overrides": overrides, "before": before}


async def resume(base: Config, thread_id: str) -> dict[str, Any]:
    """Continue an interrupted run from its last checkpoint (completed nodes are not re-run).

    The result carries `resumed_at` (every task of the interrupted step, as `history` lists it),
    `kept` (those of them that had finished and saved their writes: not run again), `nodes_run`
    (every node executed by this call, in order) and `tasks_run` (their task ids).
    """
    validate_thread_id(thread_id)
    async with writer(base, thread_id) as saver:
        graph = build_graph(checkpointer=saver)
        config, snapshot = await _saved_config(graph, thread_id, None, base)
        # Not `snapshot.next`: this live view leaves out the tasks whose writes are saved, so a
        # process killed after every task of a step finished but before the step's checkpoint
        # showed an empty `next` and was taken for finished. A finished thread has no task left.
        if not snapshot.tasks:
            return {**snapshot.values, "thread_id": thread_id, "resumed": False, "resumed_at": [], "kept": [],
                    "nodes_run": [], "tasks_run": []}  # fmt: skip
        tasks_run: list[dict[str, str]] = []
        result: dict[str, Any] = {}
        stream = graph.astream(
            None, run_config(config, thread_id), context=config, stream_mode=["tasks", "values"], durability="sync"
        )
        async for mode, part in stream:
            chunk: Any = part  # a dict per stream mode; LangGraph's v1 stream type does not say so
            if mode == "values":
                result = chunk
            elif "result" in chunk or "error" in chunk:  # a task that ran (not its start, not kept writes)
                tasks_run.append({"id": chunk["id"], "name": chunk["name"]})
    return {
        **result,
        "thread_id": thread_id,
        "resumed": True,
        "resumed_at": [task.name for task in snapshot.tasks],
        "kept": [task.name for task in snapshot.tasks if task.result is not None],
        "nodes_run": [task["name"] for task in tasks_run],
        "tasks_run": tasks_run,
    }

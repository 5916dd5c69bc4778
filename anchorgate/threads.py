"""Checkpointed threads: progress streaming, history, replay (time travel) and resume.

Every run keeps its full `Config` in its state (`settings`, written by the intake node), so a
thread can be resumed or forked later with exactly the settings it ran with, plus overrides.
(LangGraph does not persist run-config metadata in checkpoints, so the state is the safe place.)
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from anchorgate.graph.builder import build_graph
from anchorgate.graph.checkpoint import open_checkpointer
from anchorgate.graph.config import Config
from anchorgate.tools.errors import ThreadNotFoundError
from anchorgate.tools.usage import totals

OUTCOME_KEYS = ("answer", "decision", "reason", "rounds", "tokens")


def run_config(config: Config, thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    """The LangGraph RunnableConfig of a run: thread (and checkpoint), step limit, settings in metadata."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable, "recursion_limit": config.recursion_limit}


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


async def stream_events(question: str, config: Config, thread_id: str) -> AsyncIterator[dict[str, Any]]:
    """Progress events of one run: node finished, gate decision with reason, final answer."""
    async with open_checkpointer(config) as saver:
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


async def _saved_config(
    graph: Any, thread_id: str, checkpoint_id: str | None, base: Config
) -> tuple[Config, Any]:
    """The settings the thread ran with at that checkpoint (`base` if it stopped before intake)."""
    configurable = {"thread_id": thread_id, **({"checkpoint_id": checkpoint_id} if checkpoint_id else {})}
    snapshot = await graph.aget_state({"configurable": configurable})
    if not snapshot.values and not snapshot.next:
        where = f"checkpoint {checkpoint_id!r} of thread {thread_id!r}" if checkpoint_id else f"thread {thread_id!r}"
        raise ThreadNotFoundError(f"{where} does not exist", "see `anchorgate history THREAD` for valid ids")
    saved = dict(snapshot.values.get("settings") or {})
    # The store the caller opened wins: the thread may have been copied to another file or server.
    store = {"checkpoint_db": base.checkpoint_db, "cache_dir": base.cache_dir}
    return (Config(**{**saved, **store}) if saved else base), snapshot


async def replay(base: Config, thread_id: str, checkpoint_id: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Fork the thread at `checkpoint_id` and run on with the saved settings plus `overrides`.

    The result also holds `before`: the outcome the thread had before the fork (its latest
    state), so a caller sees how the change of settings changed the answer.
    """
    async with open_checkpointer(base) as saver:
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

    The result carries `resumed_at` (the nodes that were pending) and `nodes_run` (every node
    executed by this call, in order), so a caller can see that finished work was kept.
    """
    async with open_checkpointer(base) as saver:
        graph = build_graph(checkpointer=saver)
        config, snapshot = await _saved_config(graph, thread_id, None, base)
        if not snapshot.next:
            return {**snapshot.values, "thread_id": thread_id, "resumed": False, "resumed_at": [], "nodes_run": []}
        nodes_run: list[str] = []
        result: dict[str, Any] = {}
        stream = graph.astream(
            None, run_config(config, thread_id), context=config, stream_mode=["updates", "values"], durability="sync"
        )
        async for mode, chunk in stream:
            if mode == "updates":
                nodes_run.extend(chunk)
            else:
                result = chunk
    resumed_at = list(snapshot.next)
    return {**result, "thread_id": thread_id, "resumed": True, "resumed_at": resumed_at, "nodes_run": nodes_run}

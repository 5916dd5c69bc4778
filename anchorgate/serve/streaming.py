"""The events of `POST /v1/ask/stream`: progress through the nodes, gate decisions, tokens, reader text, result.

One run of the graph (`stream_mode` updates, values and messages) under the thread's lock, taken by
the route before the response starts so a busy thread is a plain 409. The first event (`accepted`)
is sent before the model or index is touched, so a client sees progress at once. Every step's
checkpoint is written before the next starts (`durability="sync"`): a client that goes away
mid-stream cancels the run and leaves the thread at its last finished step, for `resume`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from anchorgate.api import language_notes
from anchorgate.graph.builder import build_graph
from anchorgate.graph.config import Config
from anchorgate.graph.state import OutputState
from anchorgate.threads import progress_event, run_config
from anchorgate.tools.llm.usage import add_usage, totals
from anchorgate.tools.services import services_for

RECORD_KEYS = frozenset(OutputState.__annotations__)
# (signal, setting, how the gate reads it): shown beside each decision so a reader sees why.
THRESHOLDS: tuple[tuple[str, str, str], ...] = (
    ("overlap", "gate.overlap_tau", ">="),
    ("top_relevance", "gate.strong_evidence", ">="),
    ("tokens_left", "budget.min_round_tokens", ">="),
)


def thresholds_of(config: Config) -> dict[str, dict[str, Any]]:
    """The settings each logged signal is compared with, by signal name (coverage needs every essential anchor)."""
    found: dict[str, dict[str, Any]] = {"coverage": {"setting": "essential anchors", "value": 1.0, "compare": ">="}}
    for signal, setting, compare in THRESHOLDS:
        found[signal] = {"setting": setting, "value": config.get(setting), "compare": compare}
    return found


def passages_of(context: Sequence[Mapping[str, Any]], citations: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The text of each cited passage by chunk id, with its title, source and page (for the page's quote view)."""
    cited = {str(c.get("id")) for c in citations}
    passages = {}
    for item in context:
        if item.get("id") in cited:
            metadata = item.get("metadata") or {}
            passages[str(item["id"])] = {
                "title": item.get("title", ""), "source": item.get("source", ""),
                "text": item.get("text", ""), "page": metadata.get("page"),
            }  # fmt: skip
    return passages


class RunEvents:
    """The events of one run, in order; `result` holds the `ask --json` record once the run has finished."""

    def __init__(self, question: str, config: Config, thread_id: str) -> None:
        self.question, self.config, self.thread_id = question, config, thread_id
        self.usage: dict[str, dict[str, int]] = {}
        self.context: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.started = time.perf_counter()

    async def events(self, saver: Any) -> AsyncIterator[dict[str, Any]]:
        """`accepted`, then one event per finished node, tokens, reader text, and `result` last."""
        yield {"event": "accepted", "thread_id": self.thread_id, "budget": self.config.budget.token_budget,
               "preset": self.config.preset, "thresholds": thresholds_of(self.config)}  # fmt: skip
        services = await asyncio.to_thread(services_for, self.config)  # model and index load off the event loop
        notes = language_notes(self.question, services.index.manifest)
        graph = build_graph(checkpointer=saver)
        final: dict[str, Any] = {}
        stream = graph.astream(
            {"question": self.question}, run_config(self.config, self.thread_id), context=self.config,
            stream_mode=["updates", "values", "messages"], durability="sync",
        )  # fmt: skip
        async for mode, chunk in stream:
            if mode == "values":
                final = dict(chunk)  # type: ignore[call-overload]
            elif mode == "messages":
                reader = self._reader_event(chunk)
                if reader:
                    yield reader
            else:
                for node, update in dict(chunk).items():  # type: ignore[call-overload]
                    for event in self._node_events(node, update):
                        yield event
        latency = round(time.perf_counter() - self.started, 3)
        record = {key: value for key, value in final.items() if key in RECORD_KEYS}  # what `ask --json` holds
        self.result = {
            **record,
            "thread_id": self.thread_id,
            "notes": notes,
            "checkpointed": True,
            "latency_s": latency,
        }
        passages = passages_of(self.context, self.result.get("citations") or [])
        yield {"event": "result", "result": self.result, "passages": passages}

    def _node_events(self, node: str, update: Any) -> list[dict[str, Any]]:
        event = progress_event(node, update)
        if not isinstance(update, dict):
            return [event]
        if isinstance(update.get("context"), list):
            self.context = [dict(item) for item in update["context"]]
        if node == "gate" and update.get("gate_log"):
            event["signals"] = update["gate_log"][-1].get("signals") or {}
            event["round"] = update["gate_log"][-1].get("round")
        events = [event]
        if update.get("usage"):
            self.usage = add_usage(self.usage, update["usage"])
            spent = totals(self.usage)
            events.append({"event": "tokens", "node": node, "spent": spent["total"], "prompt": spent["prompt"],
                           "completion": spent["completion"], "budget": self.config.budget.token_budget})  # fmt: skip
        return events

    @staticmethod
    def _reader_event(chunk: Any) -> dict[str, Any] | None:
        """The text a model call wrote (whole or in pieces, as the model delivers it), by node."""
        message, meta = chunk
        text = getattr(message, "content", "")
        if not isinstance(text, str) or not text:
            return None
        return {"event": "reader", "node": (meta or {}).get("langgraph_node"), "text": text}

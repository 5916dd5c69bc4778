"""The HTTP API's routes: ask (JSON or server-sent events), a thread's history, replay, resume and deletion.

Each route checks its input with the functions the CLI and the Studio server use (see
`anchorgate.serve.requests`) before anything is stored, then calls the same run functions as the
CLI (`anchorgate.api.aask`, `anchorgate.threads.replay/resume/thread_history`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from sse_starlette.sse import EventSourceResponse
from starlette.background import BackgroundTask

from anchorgate.api import aask, new_thread_id, validate_question  # the check `ask` itself applies
from anchorgate.graph.builder import build_graph
from anchorgate.graph.config import Config
from anchorgate.serve.errors import RunFault, raise_on_fault
from anchorgate.serve.metrics import Metrics
from anchorgate.serve.requests import (
    AskBody,
    ReplayBody,
    ServeSettings,
    checked_thread_id,
    replay_overrides,
    run_settings,
)
from anchorgate.serve.streaming import RunEvents, passages_of
from anchorgate.threads import replay, resume, thread_history, writer
from anchorgate.tools.checkpoints.store import open_checkpointer
from anchorgate.tools.errors import ThreadNotFoundError

router = APIRouter(prefix="/v1")
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"description": why}
    for status, why in ((401, "missing or wrong API key"), (404, "no such thread or checkpoint"),
                        (409, "the thread is busy with another run"), (413, "the body is too large"),
                        (422, "bad input: `detail` says what to fix"), (503, "the model, index or store "
                        "cannot be used, or the run ended on an LLM fault (`reason`: ABSTAIN_LLM_*)"))
}  # fmt: skip


def _serve(request: Request) -> ServeSettings:
    return request.app.state.serve  # type: ignore[no-any-return]


def _metrics(request: Request) -> Metrics:
    return request.app.state.metrics  # type: ignore[no-any-return]


@router.post("/ask", responses=ERRORS, summary="Answer a question (the `anchorgate ask --json` record)")
async def ask(body: AskBody, request: Request) -> JSONResponse:
    config = run_settings(_serve(request), body.preset, body.settings)
    thread_id = checked_thread_id(body.thread_id) if body.thread_id is not None else None
    result = await aask(body.question, config=config, thread_id=thread_id)
    _metrics(request).record_run(result, result.get("latency_s"))
    return JSONResponse(raise_on_fault(result))


@router.post("/ask/stream", responses=ERRORS, summary="Answer a question, streaming progress as server-sent events")
async def ask_stream(body: AskBody, request: Request) -> EventSourceResponse:
    config = run_settings(_serve(request), body.preset, body.settings)
    question = validate_question(body.question, config.llm.max_question_chars)
    thread_id = checked_thread_id(body.thread_id) if body.thread_id is not None else new_thread_id()
    stack = AsyncExitStack()
    saver = await stack.enter_async_context(writer(config, thread_id))  # a busy thread is a 409 here, not an event
    run = RunEvents(question, config, thread_id)
    metrics = _metrics(request)

    async def events() -> AsyncIterator[dict[str, str]]:
        try:
            async for event in run.events(saver):
                if event["event"] == "result":
                    metrics.record_run(event["result"], event["result"].get("latency_s"))
                    fault = _fault_event(event["result"])
                    if fault:
                        yield fault
                yield {"event": event["event"], "data": json.dumps(event, ensure_ascii=False)}
        finally:
            await stack.aclose()

    # the generator closes the stack; the background task too, should the response end before it starts
    return EventSourceResponse(events(), ping=10, background=BackgroundTask(stack.aclose))


def _fault_event(result: dict[str, Any]) -> dict[str, str] | None:
    """An `error` event before the record of a run that ended on an LLM fault (the stream's status is already sent)."""
    if not (result.get("telemetry") or {}).get("llm_fault"):
        return None
    fault = RunFault(result)
    return {"event": "error", "data": json.dumps({"event": "error", "status": 503, "detail": str(fault),
                                                  "reason": fault.reason})}  # fmt: skip


@router.get("/threads/{thread_id}/history", responses=ERRORS, summary="A thread's checkpoints, newest first")
async def history(thread_id: str, request: Request) -> dict[str, Any]:
    store = _serve(request).store_config()
    thread_id = checked_thread_id(thread_id)
    rows = await thread_history(store, thread_id)
    values = await _latest_values(store, thread_id)
    settings = values.get("settings") or {}
    return {"thread_id": thread_id, "question": values.get("question"), "settings": settings,
            "outcome": {k: values.get(k) for k in ("answer", "decision", "reason", "rounds", "tokens")},
            "checkpoints": rows}  # fmt: skip


@router.post("/threads/{thread_id}/replay", responses=ERRORS, summary="Fork a thread at a checkpoint and run on")
async def replay_thread(thread_id: str, body: ReplayBody, request: Request) -> JSONResponse:
    store = _serve(request).store_config()
    thread_id = checked_thread_id(thread_id)
    result = await replay(store, thread_id, body.checkpoint_id, replay_overrides(body.overrides))
    _metrics(request).record_run(result)
    return JSONResponse(await _with_passages(store, raise_on_fault(result)))


@router.post("/threads/{thread_id}/resume", responses=ERRORS, summary="Finish an interrupted run")
async def resume_thread(thread_id: str, request: Request) -> JSONResponse:
    store = _serve(request).store_config()
    result = await resume(store, checked_thread_id(thread_id))
    if result.get("resumed"):
        _metrics(request).record_run(result)
    return JSONResponse(await _with_passages(store, raise_on_fault(result)))


@router.delete("/threads/{thread_id}", status_code=204, responses=ERRORS, summary="Delete a thread's checkpoints")
async def delete_thread(thread_id: str, request: Request) -> Response:
    store = _serve(request).store_config()
    thread_id = checked_thread_id(thread_id)
    async with writer(store, thread_id) as saver:  # not while a run writes it (409)
        if await saver.aget_tuple({"configurable": {"thread_id": thread_id}}) is None:
            raise ThreadNotFoundError(f"no checkpoints for thread {thread_id!r}")
        await saver.adelete_thread(thread_id)
    return Response(status_code=204)


async def _latest_values(store: Config, thread_id: str) -> dict[str, Any]:
    async with open_checkpointer(store) as saver:
        snapshot = await build_graph(checkpointer=saver).aget_state({"configurable": {"thread_id": thread_id}})
    return dict(snapshot.values or {})


async def _with_passages(store: Config, result: dict[str, Any]) -> dict[str, Any]:
    """A replayed or resumed record with the text of its cited passages, as the stream's `result` event has."""
    values = await _latest_values(store, str(result["thread_id"]))
    return {**result, "passages": passages_of(values.get("context") or [], result.get("citations") or [])}

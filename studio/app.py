"""HTTP middleware for the LangGraph server (`http.app` in studio/langgraph.json).

Every request that starts or schedules a run, stores an assistant's settings or updates a thread's
state is checked by `studio/checks.py` before the server sees it (routes and rules are listed
there). A bad one is answered with HTTP 422 and `{"detail": "<one line: what is wrong (what to do)>"}`,
so nothing reaches the run queue, the cron table or the checkpoint store; a good one goes on with
its context expanded into the preset's full settings.

Some checks need what the server already stores: the settings of a named assistant (a run's
context overrides them), and, for a thread run without input, whether the thread holds a question.
Those are read through the server's in-process loopback client (`langgraph_sdk.get_client()`
without a URL), i.e. the same HTTP API, without a network hop.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.responses import JSONResponse

from anchorgate.studio.checks import (
    Route,
    check_assistant,
    check_run,
    check_state_update,
    check_thread_has_question,
    continues_thread,
    custom_assistant_id,
    match_route,
)
from anchorgate.tools.errors import ConfigError, InvalidQuestionError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Lookup(Protocol):
    """Reads what the server stores; each method returns None for something that does not exist."""

    async def assistant_context(self, assistant_id: str) -> dict[str, Any] | None: ...

    async def cron_assistant_id(self, cron_id: str) -> str | None: ...

    async def thread_values(self, thread_id: str) -> tuple[bool, Any]: ...


class LoopbackLookup:
    """`Lookup` over the server's own HTTP API, in process."""

    def __init__(self) -> None:
        self._client: Any = None

    async def _get(self, path: str) -> Any:
        import httpx
        from langgraph_sdk import get_client

        if self._client is None:
            self._client = get_client()  # no URL: the in-process transport to this server
        try:
            return await self._client.http.get(path)
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code >= 500:
                raise  # the server itself failing is not "not found": let it report that
            # missing or malformed id: the server answers the request itself (404/422)
            return None

    async def assistant_context(self, assistant_id: str) -> dict[str, Any] | None:
        """The stored context of assistant `assistant_id`."""
        assistant = await self._get(f"/assistants/{assistant_id}")
        context = assistant.get("context") if isinstance(assistant, dict) else None
        return context if isinstance(context, dict) else None

    async def cron_assistant_id(self, cron_id: str) -> str | None:
        """The assistant cron `cron_id` runs."""
        cron = await self._get(f"/runs/crons/{cron_id}")
        return cron.get("assistant_id") if isinstance(cron, dict) else None

    async def thread_values(self, thread_id: str) -> tuple[bool, Any]:
        """(whether the thread exists, its current state values)."""
        state = await self._get(f"/threads/{thread_id}/state")
        return state is not None, state.get("values") if isinstance(state, dict) else None


async def check_request(route: Route, payload: Any, lookup: Lookup) -> Any:
    """The body checked and expanded for `route`; raises ConfigError/InvalidQuestionError."""
    if route.kind == "assistant":
        return check_assistant(payload)
    if route.kind == "state":
        check_state_update(payload)
        return payload
    if route.kind == "batch":
        if not isinstance(payload, list):
            return payload  # the server's schema check reports a batch that is not a list
        return [check_run(item, await _base(item, lookup)) for item in payload]
    if route.kind == "cron_patch":
        assistant_id = await lookup.cron_assistant_id(route.cron_id) if route.cron_id else None
        return check_run(payload, await _base({"assistant_id": assistant_id}, lookup), mode="patch")
    checked = check_run(payload, await _base(payload, lookup), mode="continue" if route.kind == "thread_run" else "new")
    if route.kind == "thread_run" and route.thread_id and continues_thread(payload):
        exists, values = await lookup.thread_values(route.thread_id)
        creates = isinstance(payload, dict) and payload.get("if_not_exists") == "create"
        check_thread_has_question(values, thread_exists=exists, creates_thread=creates)
    return checked


async def _base(payload: Any, lookup: Lookup) -> dict[str, Any] | None:
    """The stored settings of the assistant a run body names, if it names a stored one."""
    assistant_id = custom_assistant_id(payload)
    return await lookup.assistant_context(assistant_id) if assistant_id else None


class RunContextMiddleware:
    """Pure ASGI middleware: check and expand the bodies of run-creating and assistant requests."""

    def __init__(self, app: ASGIApp, lookup: Lookup | None = None) -> None:
        self.app = app
        self.lookup: Lookup = lookup or LoopbackLookup()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = match_route(scope["method"], _route_path(scope)) if scope["type"] == "http" else None
        if route is None:
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        try:
            payload = json.loads(body or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            await self.app(scope, _replay(body, receive), send)  # the server reports bad JSON itself
            return
        try:
            checked = await check_request(route, payload, self.lookup)
        except (ConfigError, InvalidQuestionError) as exc:
            await JSONResponse({"detail": exc.one_line()}, status_code=422)(scope, receive, send)
            return
        new_body = json.dumps(checked).encode("utf-8")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(new_body)).encode()))
        await self.app({**scope, "headers": headers}, _replay(new_body, receive), send)


def _route_path(scope: Scope) -> str:
    """The path without the root path (the in-process client mounts the API under /noauth)."""
    path, root = str(scope.get("path", "")), str(scope.get("root_path", ""))
    return path[len(root) :] if root and path.startswith(root) else path


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the (rewritten) body over once, then defers to the real one."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


app = Starlette()
app.add_middleware(RunContextMiddleware)

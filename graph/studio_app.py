"""HTTP middleware for the LangGraph server (`http.app` in studio/langgraph.json).

Run requests carry the run context a person picked in Studio (a preset name plus overrides).
Before the server accepts a run, this middleware
  * turns `{"preset": "B", "token_budget": 3000}` into B's full settings with that override, so
    picking a preset in Studio really switches the preset's parts on (a bare context would
    otherwise fill every other field with the dataclass defaults, i.e. the baseline);
  * rejects an unknown preset, an unknown key, a wrong type, a negative budget or an empty
    question with HTTP 422 and a one-line message, so nothing reaches the checkpoint store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.applications import Starlette
from starlette.responses import JSONResponse

from anchorgate.graph.presets import load_preset
from anchorgate.tools.errors import ConfigError, InvalidQuestionError
from anchorgate.tools.questions import validate_question

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# POST /runs, /runs/stream, /runs/wait, /runs/batch and the same under /threads/{id}.
RUN_PATH = re.compile(r"^(/threads/[^/]+)?/runs(/stream|/wait|/batch)?/?$")


def resolve_run_payload(payload: Any) -> Any:
    """The payload with its context resolved to full settings; raises ConfigError/InvalidQuestionError."""
    if isinstance(payload, list):  # /runs/batch
        return [resolve_run_payload(item) for item in payload]
    if not isinstance(payload, dict):
        return payload
    resolved = dict(payload)
    context = payload.get("context")
    if isinstance(context, dict):
        overrides = {key: value for key, value in context.items() if key != "preset"}
        preset = context.get("preset", "baseline")
        if not isinstance(preset, str):
            raise ConfigError(f"preset must be a string, got {preset!r}")
        config = load_preset(preset, overrides)
        resolved["context"] = config.to_dict()
        max_chars = config.max_question_chars
    else:
        max_chars = load_preset("baseline").max_question_chars
    question_input = payload.get("input")
    if isinstance(question_input, dict) and "question" in question_input:
        validate_question(question_input["question"], max_chars)
    return resolved


class RunContextMiddleware:
    """Pure ASGI middleware: validate and resolve the context of run-creating requests."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not RUN_PATH.match(scope["path"]):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        try:
            payload = json.loads(body or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            await self.app(scope, _replay(body, receive), send)  # the server reports bad JSON itself
            return
        try:
            resolved = resolve_run_payload(payload)
        except (ConfigError, InvalidQuestionError) as exc:
            await JSONResponse({"detail": exc.one_line()}, status_code=422)(scope, receive, send)
            return
        new_body = json.dumps(resolved).encode("utf-8")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(new_body)).encode()))
        await self.app({**scope, "headers": headers}, _replay(new_body, receive), send)


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

"""What every request passes before a route sees it: the API key, then the body size limit.

Pure ASGI, so a refused request is answered before anything reads its body or looks up a thread:
a wrong key gets the same 401 whether the thread it names exists or not.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# The page, its files, the schema and the probes stay open: they reveal nothing about threads.
PROTECTED_PREFIXES = ("/v1/", "/metrics")


class Guards:
    """Refuse requests without the API key (when one is set) and bodies over `max_body_bytes`."""

    def __init__(self, app: ASGIApp, api_key: str = "", max_body_bytes: int = 64 * 1024) -> None:
        self.app = app
        self.api_key = api_key
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.api_key and str(scope.get("path", "")).startswith(PROTECTED_PREFIXES) and not self._authorised(scope):
            detail = "missing or wrong API key (send the header Authorization: Bearer <ANCHORGATE_API_KEY>)"
            await _respond(send, 401, detail, [(b"www-authenticate", b"Bearer")])
            return
        if _declared_length(scope) > self.max_body_bytes:
            await _respond(send, 413, self._too_large())
            return
        body, too_large = await _read_limited(receive, self.max_body_bytes)
        if too_large:
            await _respond(send, 413, self._too_large())
            return
        await self.app(scope, _replay(body, receive), send)

    def _authorised(self, scope: Scope) -> bool:
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        expected = f"Bearer {self.api_key}".encode()
        return hmac.compare_digest(given, expected)

    def _too_large(self) -> str:
        limit = self.max_body_bytes
        return f"the request body is larger than {limit} bytes (send a shorter question or fewer settings)"


def _declared_length(scope: Scope) -> int:
    raw = dict(scope.get("headers") or []).get(b"content-length", b"0")
    try:
        return int(raw)
    except ValueError:
        return 0  # not a number: the body itself is counted as it arrives


async def _read_limited(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """The whole body, or (what was read, True) as soon as it passes `limit` (a chunked upload)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), False


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the read body over once, then waits on the real one (for a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


async def _respond(send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode("utf-8")
    all_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   *(headers or [])]  # fmt: skip
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": body})

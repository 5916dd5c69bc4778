"""The ASGI app of `anchorgate serve`: the API routes, health and readiness, metrics, the schema and the page.

The web page and its script and style are files of this package (`web/`), served from here: no
CDN, no build step. The interactive docs pages FastAPI would load from a CDN are off; the schema
is at `/openapi.json`. Every response forbids inline script (Content-Security-Policy), so even a
passage that slipped through the page's escaping could not run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from anchorgate.serve.errors import install_error_handlers
from anchorgate.serve.guards import Guards
from anchorgate.serve.metrics import Metrics, RequestMetrics
from anchorgate.serve.requests import ServeSettings, run_settings
from anchorgate.serve.routes import router
from anchorgate.tools.errors import AnchorgateError
from anchorgate.tools.services import services_for

WEB = resources.files("anchorgate.serve") / "web"
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none';"
     b" base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]  # fmt: skip


class Readiness:
    """Whether the default run's model and index are loaded: `loading`, `ready`, or `failed` with the reason."""

    def __init__(self) -> None:
        self.status = "loading"
        self.detail = "loading the model and the index"
        self.facts: dict[str, Any] = {}

    async def load(self, serve: ServeSettings) -> None:
        """Load what the server's default settings run with (errors become the `/readyz` detail)."""
        try:
            config = run_settings(serve, str(serve.defaults.get("preset", "A")), {})
            services = await asyncio.to_thread(services_for, config)
        except AnchorgateError as exc:
            self.status, self.detail = "failed", exc.one_line()
            return
        except Exception as exc:  # noqa: BLE001 — shown by /readyz; the service stays up to report it
            self.status, self.detail = "failed", f"internal error: {type(exc).__name__}: {exc}"
            return
        manifest = getattr(services.index, "manifest", None) or {}
        self.facts = {"llm": config.llm.model, "corpus": services.corpus_name, "chunks": manifest.get("chunks")}
        self.status, self.detail = "ready", "model and index loaded"


def create_app(serve: ServeSettings | None = None, *, preload: bool = True) -> FastAPI:
    """The app; `preload` loads the model and index at start-up (readiness says when they are in)."""
    serve = serve or ServeSettings()
    readiness = Readiness()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(readiness.load(serve)) if preload else None
        yield
        if task is not None and not task.done():
            task.cancel()

    app = FastAPI(title="anchorgate", version="0.1.0", docs_url=None, redoc_url=None, lifespan=lifespan,
                  description="Budget-aware, anchor-based question answering with verified citations.")  # fmt: skip
    app.state.serve, app.state.metrics, app.state.readiness = serve, Metrics(), readiness
    install_error_handlers(app)
    app.include_router(router)
    _add_probes(app)
    app.mount("/static", StaticFiles(directory=str(WEB)), name="static")
    if serve.cors_origins:  # no CORS unless configured: the page is same-origin
        app.add_middleware(CORSMiddleware, allow_origins=list(serve.cors_origins), allow_methods=["GET", "POST",
                           "DELETE"], allow_headers=["Authorization", "Content-Type"])  # fmt: skip
    app.add_middleware(Guards, api_key=serve.api_key, max_body_bytes=serve.max_body_bytes)
    app.add_middleware(RequestMetrics, metrics=app.state.metrics)  # outermost: refusals are counted too
    app.add_middleware(SecurityHeaders)
    return app


def _add_probes(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(str(WEB / "index.html"), media_type="text/html")

    @app.get("/healthz", summary="The process is up")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", summary="The model and the index are loaded", responses={503: {"description": "not yet"}})
    async def readyz(request: Request) -> JSONResponse:
        readiness: Readiness = request.app.state.readiness
        body = {"status": readiness.status, "detail": readiness.detail, **readiness.facts}
        return JSONResponse(body, status_code=200 if readiness.status == "ready" else 503)

    @app.get("/metrics", summary="Prometheus metrics", response_class=Response)
    async def metrics(request: Request) -> Response:
        return request.app.state.metrics.render()  # type: ignore[no-any-return]


class SecurityHeaders:
    """Pure ASGI middleware adding `SECURITY_HEADERS` to every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_headed(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_headed if scope["type"] == "http" else send)

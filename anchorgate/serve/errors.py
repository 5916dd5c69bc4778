"""How the service answers an error: one status code per kind, and `{"detail": "<what is wrong (what to do)>"}`.

Every `AnchorgateError` the CLI turns into an exit code is a status code here: a bad question,
setting or thread id is 422, a busy thread 409, a missing thread 404, and a model or store the
service cannot use 503. A run that ended on an LLM fault made no answer, so it is 503 too, naming the
fault (`ABSTAIN_LLM_*`), like the CLI's exit 69. Request bodies the framework cannot read (bad JSON,
wrong types, unknown fields) are 422 with the same one-line `detail`, never pydantic's list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from anchorgate.tools.errors import (
    AnchorgateError,
    CheckpointCorruptError,
    CheckpointStoreError,
    CheckpointWriteError,
    ConfigError,
    CorpusError,
    IndexCorruptError,
    IndexWriteError,
    InvalidQuestionError,
    InvalidThreadIdError,
    LLMFaultError,
    ModelUnavailableError,
    ThreadBusyError,
    ThreadNotFoundError,
)
from anchorgate.tools.llm.faults import FAULT_REASONS, fault_message

STATUS_BY_ERROR: tuple[tuple[type[AnchorgateError], int], ...] = (
    (InvalidQuestionError, 422),
    (InvalidThreadIdError, 422),
    (ConfigError, 422),
    (ThreadBusyError, 409),
    (ThreadNotFoundError, 404),
    (LLMFaultError, 503),
    (ModelUnavailableError, 503),
    (CheckpointStoreError, 503),
    (CheckpointCorruptError, 503),
    (CheckpointWriteError, 503),
    (CorpusError, 503),
    (IndexCorruptError, 503),
    (IndexWriteError, 503),
)


class RunFault(Exception):
    """A run that ended on an LLM fault: its record is kept (the thread can be resumed), the answer is 503."""

    def __init__(self, result: Mapping[str, Any]) -> None:
        self.fault = dict((result.get("telemetry") or {}).get("llm_fault") or {})
        self.thread_id = result.get("thread_id")
        message, hint = fault_message(self.fault)
        super().__init__(f"{message} ({hint})")

    @property
    def reason(self) -> str:
        """The fault's ABSTAIN reason."""
        return str(self.fault.get("reason") or FAULT_REASONS["ERROR"])


def raise_on_fault(result: dict[str, Any]) -> dict[str, Any]:
    """The result, or `RunFault` when the run ended on an LLM fault."""
    if (result.get("telemetry") or {}).get("llm_fault"):
        raise RunFault(result)
    return result


def status_of(exc: AnchorgateError) -> int:
    """The HTTP status of a user-facing error (500 for one with no mapping: a bug, reported as such)."""
    return next((status for kind, status in STATUS_BY_ERROR if isinstance(exc, kind)), 500)


def error_body(exc: BaseException) -> dict[str, Any]:
    """The JSON body of an error response."""
    if isinstance(exc, RunFault):
        return {"detail": " ".join(str(exc).split()), "reason": exc.reason, "thread_id": exc.thread_id}
    if isinstance(exc, AnchorgateError):
        return {"detail": exc.one_line()}
    return {"detail": f"internal error: {type(exc).__name__}"}


def validation_detail(exc: RequestValidationError) -> str:
    """Pydantic's first complaint as one line: where in the body, what is wrong, and an example to copy."""
    errors = exc.errors()
    if not errors:
        return "the request body is not valid"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    kind = first.get("type", "")
    if kind == "json_invalid":
        return 'the body is not valid JSON (send e.g. {"question": "What does the pass statement do?"})'
    if kind == "extra_forbidden":
        return f'unknown field {where!r} (settings go in "settings"; see /openapi.json)'
    if kind == "missing":
        return f'{where} is missing (send e.g. {{"question": "What does the pass statement do?"}})'
    return f"{where}: {first.get('msg', 'is not valid')} (see /openapi.json for the body's schema)"


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error its status and a one-line `detail`."""

    async def on_anchorgate(_: Request, exc: Exception) -> JSONResponse:
        status = status_of(exc) if isinstance(exc, AnchorgateError) else 500
        return JSONResponse(error_body(exc), status_code=status)

    async def on_fault(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(error_body(exc), status_code=503)

    async def on_validation(_: Request, exc: Exception) -> JSONResponse:
        detail = validation_detail(exc) if isinstance(exc, RequestValidationError) else str(exc)
        return JSONResponse({"detail": detail}, status_code=422)

    async def on_http(_: Request, exc: Exception) -> JSONResponse:
        status = exc.status_code if isinstance(exc, StarletteHTTPException) else 500
        detail = exc.detail if isinstance(exc, StarletteHTTPException) else "error"
        return JSONResponse({"detail": detail}, status_code=status, headers=getattr(exc, "headers", None))

    app.add_exception_handler(AnchorgateError, on_anchorgate)
    app.add_exception_handler(RunFault, on_fault)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)

"""LLM faults: a model call that failed for the service's sake, classified, named and retried within bounds.

A fault is not an answer. It says nothing about the question, so a run with one ends as ABSTAIN
with the reason named after the fault, the CLI exits 69 (EX_UNAVAILABLE) and `anchorgate eval`
never scores it as the model's output. One set of names (`FAULT_REASONS`):

  ABSTAIN_LLM_UNAVAILABLE   the server could not be reached (connection refused, DNS), dropped the
                            connection, or answered HTTP 5xx — after the retries.
  ABSTAIN_LLM_RATE_LIMITED  the server answered HTTP 429 (too many requests) — after the retries.
  ABSTAIN_LLM_TIMEOUT       no reply within `llm.timeout_s` (not retried: the wait would multiply).
  ABSTAIN_LLM_MALFORMED     a reply the client could not read as a chat completion (invalid JSON,
                            no choices, …); not retried: a server that sent one sends it again.
  ABSTAIN_LLM_ERROR         any other failure of the call: HTTP 4xx (a wrong key, an unknown
                            model), an error inside the local model.

Only UNAVAILABLE and RATE_LIMITED are retried, `llm.max_retries` times, waiting the first of
`llm.retry_backoff_s`, then twice as long each time, at most its second (no jitter:
a rerun waits the same). The OpenAI client's own retries are part of that count, never added to
it: the budgeted calls (`tools.llm.calls`) retry themselves with the client's retries off, and the
calls outside them (the pairwise reranker, the eval peer chain) let the client retry that many times.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

FAULT_REASONS: dict[str, str] = {
    "UNAVAILABLE": "ABSTAIN_LLM_UNAVAILABLE",
    "RATE_LIMITED": "ABSTAIN_LLM_RATE_LIMITED",
    "TIMEOUT": "ABSTAIN_LLM_TIMEOUT",
    "MALFORMED": "ABSTAIN_LLM_MALFORMED",
    "ERROR": "ABSTAIN_LLM_ERROR",
}
RETRYABLE = frozenset({"UNAVAILABLE", "RATE_LIMITED"})
_SUMMARY = {
    "UNAVAILABLE": ("the LLM server is unavailable", "check that it runs and that --llm / OPENAI_BASE_URL point at it"),
    "RATE_LIMITED": ("the LLM server is rate limiting the requests",
                     "try again later, or raise llm_max_retries / llm_retry_backoff_s"),
    "TIMEOUT": ("the LLM did not reply in time", "raise --set llm.timeout_s=SECONDS, or check the server's load"),
    "MALFORMED": ("the LLM server's reply is not a chat completion", "check that the server is OpenAI-compatible"),
    "ERROR": ("the LLM call failed", "check the model name, the API key and the server's log"),
}  # fmt: skip
# Exceptions a client library raises while reading a reply: a TypeError/ValueError/KeyError from
# inside these packages means the reply had the wrong shape, not that our code has a bug.
PROVIDER_MODULES = ("openai", "langchain_openai", "ollama", "langchain_ollama", "httpx", "httpcore")
_SHAPE_ERRORS = (TypeError, ValueError, KeyError, AttributeError, IndexError)

DEFAULT_RETRIES = 2
DEFAULT_BACKOFF_S = 0.5
DEFAULT_BACKOFF_MAX_S = 8.0


@dataclass(frozen=True)
class Fault:
    """What went wrong with one call: the kind (a `FAULT_REASONS` key) and the client's message."""

    kind: str
    detail: str
    provider: bool = True  # raised by the LLM client or service (False: an error of unknown origin)

    @property
    def reason(self) -> str:
        """The run's ABSTAIN reason for this fault."""
        return FAULT_REASONS[self.kind]

    @property
    def retryable(self) -> bool:
        """Whether asking again may help (the service was down or busy, not wrong)."""
        return self.kind in RETRYABLE


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a failed call is asked again (see the module docstring)."""

    retries: int = DEFAULT_RETRIES
    backoff_s: float = DEFAULT_BACKOFF_S
    backoff_max_s: float = DEFAULT_BACKOFF_MAX_S

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): doubling, capped."""
        return float(min(self.backoff_s * 2 ** (attempt - 1), self.backoff_max_s))

    @classmethod
    def of(cls, settings: Any) -> RetryPolicy:
        """The policy of a run's settings (a `Config`'s `llm` group); the defaults for what is not set there."""
        llm = getattr(settings, "llm", None)
        first, longest = getattr(llm, "retry_backoff_s", (DEFAULT_BACKOFF_S, DEFAULT_BACKOFF_MAX_S))
        return cls(int(getattr(llm, "max_retries", DEFAULT_RETRIES)), float(first), float(longest))


def classify_fault(exc: BaseException) -> Fault:
    """The fault an exception from a model call stands for (never raises)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    status = _status_code(exc)
    if status is not None:
        kind = "RATE_LIMITED" if status == 429 else "UNAVAILABLE" if status >= 500 else "ERROR"
        return Fault(kind, " ".join(f"HTTP {status}: {exc}".split())[:300])
    if isinstance(exc, TimeoutError) or names & {"APITimeoutError", "TimeoutException"}:
        return Fault("TIMEOUT", detail)
    if isinstance(exc, ConnectionError) or names & {"APIConnectionError", "TransportError"}:
        return Fault("UNAVAILABLE", detail)
    if isinstance(exc, json.JSONDecodeError) or "APIResponseValidationError" in names:
        return Fault("MALFORMED", detail)
    from_provider = _raised_in_provider(exc)
    if isinstance(exc, _SHAPE_ERRORS) and from_provider:
        return Fault("MALFORMED", detail)
    return Fault("ERROR", detail, provider=from_provider)


def _status_code(exc: BaseException) -> int | None:
    """The HTTP status of an API error (openai's `status_code`, httpx's `response.status_code`)."""
    for holder in (exc, getattr(exc, "response", None)):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int) and status >= 400:
            return status
    return None


def _raised_in_provider(exc: BaseException) -> bool:
    """Whether the innermost frame of the traceback is in a client library's code."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    module = str(tb.tb_frame.f_globals.get("__name__", ""))
    return module.split(".")[0] in PROVIDER_MODULES


def fault_record(
    stage: str, fault: Fault, *, prompt: int = 0, attempts: int | None = 1, calls: int = 0
) -> dict[str, Any]:
    """The call record of a failed call (`skipped` keeps the kind for readers of older records).

    `attempts` is None where the client made the retries itself (their number is not reported).
    """
    record: dict[str, Any] = {
        "stage": stage,
        "prompt": prompt,
        "completion": 0,
        "skipped": fault.kind,
        "fault": fault.kind,
        "reason": fault.reason,
        "error": fault.detail,
        "attempts": attempts,
    }
    if calls:
        record["calls"] = calls
    return record  # fmt: skip


def recorded_fault(calls: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The first fault among a run's call records, or None: the run ends on the first one."""
    for call in calls:
        if call.get("fault"):
            return {k: call.get(k) for k in ("stage", "fault", "reason", "error", "attempts")}
    return None


def fault_message(fault: Mapping[str, Any]) -> tuple[str, str]:
    """(message, hint) for the user: what failed, in which call, after how many attempts, and why."""
    kind = str(fault.get("fault") or "ERROR")
    summary, hint = _SUMMARY.get(kind, _SUMMARY["ERROR"])
    attempts = fault.get("attempts")
    tried = "" if attempts is None else f", {attempts} attempt{'s' if attempts != 1 else ''}"
    reason = fault.get("reason") or FAULT_REASONS.get(kind, "ABSTAIN_LLM_ERROR")
    return f"{summary}: {fault.get('error') or kind} ({reason}; {fault.get('stage')} call{tried})", hint


def with_client_limits(model: BaseChatModel, timeout_s: float | None, max_retries: int) -> BaseChatModel:
    """A copy of an OpenAI-compatible model whose client times out after `timeout_s` and retries `max_retries` times.

    Other models are returned as they are (their calls are bounded by `asyncio.wait_for`). Only
    the client objects change (`with_options`, sharing the connection pool), never the model's
    settings, so the LLM cache keys stay the same.
    """
    update: dict[str, Any] = {}
    options: dict[str, Any] = {"max_retries": max_retries}
    if timeout_s:
        options["timeout"] = timeout_s
    for root_name, client_name in (("root_client", "client"), ("root_async_client", "async_client")):
        root = getattr(model, root_name, None)
        if root is not None and hasattr(root, "with_options"):
            limited = root.with_options(**options)
            update.update({root_name: limited, client_name: limited.chat.completions})
    return model.model_copy(update=update) if update else model

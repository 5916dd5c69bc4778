"""What the Studio server accepts: one check for every request body that starts or schedules a run.

Functions used by the HTTP middleware in `studio/app.py`; their only I/O is the cheap look
at the resources a run's settings name (`graph/resources.py`). A body is checked the same way
whichever `langgraph dev` route it came in on (`/runs`, `/runs/stream`, `/runs/wait`,
`/runs/batch`, `/runs/crons`, the same under `/threads/{id}`, `PATCH /runs/crons/{id}`), and an
assistant's stored settings (`POST /assistants`, `PATCH /assistants/{id}`) the same way as a run's:
  * the input is `{"question": …}` with a real question (`validate_question`);
  * a `command` resumes nothing (the graph never pauses for input) and a question it sets is a real one;
  * the context (or the legacy `config.configurable`, never both: the server refuses both at run
    time, so a cron with both would fail at every firing) is a `Config` override: a known preset,
    known keys, values of the right type and range, a model, corpus and cache folder that can be
    reached; it is expanded into the preset's full settings, so picking preset B really switches
    B's parts on instead of the dataclass defaults (baseline).
A state update (`POST /threads/{id}/state`) that sets the question must set a real one, so a
later run of the thread without input does not start from an empty question.
Anything wrong raises ConfigError or InvalidQuestionError, which the middleware answers with 422.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from anchorgate.graph.config import Config
from anchorgate.graph.config_rules import MAX_QUESTION_CHARS
from anchorgate.graph.presets import load_preset
from anchorgate.graph.resources import check_reachable
from anchorgate.tools.errors import ConfigError, InvalidQuestionError
from anchorgate.tools.question.validation import validate_question

RouteKind = Literal["run", "thread_run", "batch", "cron", "cron_patch", "assistant", "state"]
Mode = Literal["new", "continue", "patch"]
INPUT_EXAMPLE = 'send input {"question": "What does the pass statement do?"}'

_ROUTES: list[tuple[str, re.Pattern[str], RouteKind]] = [
    ("POST", re.compile(r"^/runs(?:/stream|/wait)?/?$"), "run"),
    ("POST", re.compile(r"^/runs/batch/?$"), "batch"),
    ("POST", re.compile(r"^/runs/crons/?$"), "cron"),
    ("PATCH", re.compile(r"^/runs/crons/(?P<cron_id>[^/]+)/?$"), "cron_patch"),
    ("POST", re.compile(r"^/threads/(?P<thread_id>[^/]+)/runs(?:/stream|/wait)?/?$"), "thread_run"),
    ("POST", re.compile(r"^/threads/(?P<thread_id>[^/]+)/runs/crons/?$"), "cron"),
    ("POST", re.compile(r"^/assistants/?$"), "assistant"),
    ("PATCH", re.compile(r"^/assistants/(?P<assistant_id>[^/]+)/?$"), "assistant"),
    ("POST", re.compile(r"^/threads/(?P<thread_id>[^/]+)/state/?$"), "state"),
]
# Keys LangGraph itself keeps in `config.configurable` (ids, checkpoint, server and tracing values);
# every other key there is a setting, as in `context`.
_FRAMEWORK_KEYS = frozenset(
    {"thread_id", "user_id", "run_id", "graph_id", "assistant_id", "cron_id", "checkpoint_id", "checkpoint_ns",
     "checkpoint_map"}
)  # fmt: skip
_FRAMEWORK_PREFIXES = ("__", "langgraph_", "x-")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")


@dataclass(frozen=True)
class Route:
    """A route whose body this module checks, with the ids taken from its path."""

    kind: RouteKind
    thread_id: str | None = None
    cron_id: str | None = None


def match_route(method: str, path: str) -> Route | None:
    """The checked route `method path` is, or None for every other route (passed through as is)."""
    for route_method, pattern, kind in _ROUTES:
        found = pattern.match(path) if method == route_method else None
        if found and found.groupdict().get("cron_id") not in {"search", "count"}:
            ids = found.groupdict()
            return Route(kind, thread_id=ids.get("thread_id"), cron_id=ids.get("cron_id"))
    return None


def custom_assistant_id(payload: Any) -> str | None:
    """The assistant id of a run body when it names a stored assistant (a UUID), not the graph."""
    assistant_id = payload.get("assistant_id") if isinstance(payload, dict) else None
    return assistant_id if isinstance(assistant_id, str) and _UUID.match(assistant_id) else None


def resolve_settings(context: Any, base: Mapping[str, Any] | None = None, where: str = "context") -> Config:
    """The full settings of a context override, on top of `base` (an assistant's stored settings).

    A `preset` in the context starts over from that preset; without one the overrides apply to
    `base`, or to the baseline preset when there is no base.
    """
    if not isinstance(context, Mapping):
        raise ConfigError(f"{where} must be a JSON object of settings, got {type(context).__name__}")
    if "preset" in context and not isinstance(context["preset"], str):
        raise ConfigError(f"preset must be a string, got {context['preset']!r}")
    start: Mapping[str, Any] = {} if "preset" in context else (base or {})
    merged = {**start, **context}
    preset = merged.pop("preset", "baseline")
    if not isinstance(preset, str):  # a stored base from before these checks
        raise ConfigError(f"preset must be a string, got {preset!r}")
    settings = load_preset(preset, merged)
    check_reachable(settings)  # a stored assistant's too: its corpus may have gone since
    return settings


def check_input(run_input: Any, max_chars: int, *, required: bool) -> None:
    """A run input is `{"question": <a real question>}`; raises InvalidQuestionError otherwise."""
    if run_input is None:
        if required:
            raise InvalidQuestionError("the run has no input", INPUT_EXAMPLE)
        return
    if not isinstance(run_input, dict):
        raise InvalidQuestionError(f"input must be a JSON object, got {type(run_input).__name__}", INPUT_EXAMPLE)
    unknown = sorted(set(run_input) - {"question"})
    if unknown:
        raise InvalidQuestionError(
            f"input has unknown key(s) {', '.join(map(repr, unknown))}",
            'the input is {"question": …}; settings go in context',
        )
    if "question" not in run_input:
        raise InvalidQuestionError("input has no question", INPUT_EXAMPLE)
    validate_question(run_input["question"], max_chars)


def check_run(payload: Any, base: Mapping[str, Any] | None = None, mode: Mode = "new") -> Any:
    """THE check of a body that starts or schedules runs: the body with its settings expanded.

    `mode`: "new" needs an input (stateless runs, crons); "continue" (a thread's run) may omit it
    to go on from the thread's checkpoint, or send a `command`; "patch" (a cron update) checks
    only the fields present. `base` is the named assistant's stored settings, if any.
    """
    if not isinstance(payload, dict):
        return payload  # not a run body at all: the server's own schema check answers it
    checked = dict(payload)
    context = payload.get("context")
    config = payload.get("config")
    configurable = config.get("configurable") if isinstance(config, dict) else None
    settings = _settings_in(configurable)
    refuse_context_and_configurable(context, configurable)
    if context not in (None, {}):
        resolved = resolve_settings(context, base)
        checked["context"] = resolved.to_dict()
    elif settings and isinstance(config, dict) and isinstance(configurable, dict):
        # the pre-0.6 way to pass a context: the server copies `configurable` into it
        resolved = resolve_settings(settings, base, where="config.configurable")
        checked["config"] = {**config, "configurable": {**configurable, **resolved.to_dict()}}
    else:
        resolved = resolve_settings({}, base)
    command = payload.get("command")
    if command is not None:
        starts_afresh = mode == "new" and payload.get("input") is None
        check_command(command, resolved.llm.max_question_chars, starts_afresh=starts_afresh)
    if mode != "patch" or "input" in payload:
        required = mode == "new" and command is None
        check_input(payload.get("input"), resolved.llm.max_question_chars, required=required)
    return checked


def refuse_context_and_configurable(context: Any, configurable: Any) -> None:
    """Settings come in `context` or in `config.configurable`, not both.

    The server refuses a run with both (HTTP 400) but stores a cron with both, which then fails at
    every firing; refused here for every route alike. The server's own rule: any configurable key.
    """
    if context and configurable:
        raise ConfigError(
            "the body has both context and config.configurable",
            "send the settings in context alone (the server refuses runs with both)",
        )


def check_command(command: Any, max_chars: int, *, starts_afresh: bool) -> None:
    """A run's `command`: nothing to `resume`, and a question it sets (`update`) is a real one.

    `starts_afresh`: the run has no input and no thread state to go on from (a stateless run, a
    cron), so the command's update must set the question.
    """
    if not isinstance(command, dict):
        raise InvalidQuestionError(f"command must be a JSON object, got {type(command).__name__}", INPUT_EXAMPLE)
    if command.get("resume") is not None:
        raise InvalidQuestionError(
            "command.resume: this graph never pauses for input, so there is nothing to resume",
            f"{INPUT_EXAMPLE}, or run the thread without input to go on from its last checkpoint",
        )
    update = command_update(command)
    if "question" in update:
        validate_question(update["question"], max_chars)
    elif starts_afresh:
        raise InvalidQuestionError("the run has no input and its command sets no question", INPUT_EXAMPLE)


def command_update(command: Mapping[str, Any]) -> dict[str, Any]:
    """The state values a command's `update` sets: a JSON object, or LangGraph's list of [key, value] pairs."""
    update = command.get("update")
    if update is None:
        return {}
    if isinstance(update, dict):
        return update
    if isinstance(update, list) and all(isinstance(pair, list | tuple) and len(pair) == 2 for pair in update):
        return {str(key): value for key, value in update}
    raise InvalidQuestionError(
        f"command.update must be a JSON object of state values, got {type(update).__name__}",
        'e.g. {"update": {"question": "What does the pass statement do?"}}',
    )


def check_state_update(payload: Any) -> None:
    """`POST /threads/{id}/state`: a question it sets is a real one (the settings-wide longest).

    The run that goes on from this state checks the question against its own `max_question_chars`
    before it is stored (`check_thread_has_question`); here the empty, blank and content-free go.
    """
    values = payload.get("values") if isinstance(payload, dict) else None
    for update in values if isinstance(values, list) else [values]:
        if isinstance(update, dict) and "question" in update:
            validate_question(update["question"], MAX_QUESTION_CHARS)


def check_assistant(payload: Any) -> Any:
    """An assistant's `context` and `config.configurable` are checked and expanded like a run's."""
    if not isinstance(payload, dict):
        return payload
    checked = dict(payload)
    if payload.get("context") is not None:
        checked["context"] = resolve_settings(payload["context"]).to_dict()
    config = payload.get("config")
    configurable = config.get("configurable") if isinstance(config, dict) else None
    settings = _settings_in(configurable)
    if settings and isinstance(config, dict) and isinstance(configurable, dict):
        resolved = resolve_settings(settings, where="config.configurable").to_dict()
        checked["config"] = {**config, "configurable": {**configurable, **resolved}}
    return checked


def continues_thread(payload: Any) -> bool:
    """Whether a thread's run body asks the thread's own question: no input, no checkpoint, and no
    command, or one that sets no question (a `goto`, an update of something else)."""
    if not isinstance(payload, dict) or payload.get("input") is not None:
        return False
    command = payload.get("command")
    if isinstance(command, dict) and "question" in command_update(command):
        return False
    return not (payload.get("checkpoint") or payload.get("checkpoint_id"))


def check_thread_has_question(
    thread_values: Any, *, thread_exists: bool, creates_thread: bool, max_chars: int = MAX_QUESTION_CHARS
) -> None:
    """A run with no input goes on from the thread: the thread must already hold a real question.

    Real, not just present: a blank one stored by a state update from before that check would
    otherwise start a run that fails in intake.
    """
    if not thread_exists and not creates_thread:
        return  # the server answers 404 for a missing thread itself
    if not isinstance(thread_values, dict) or not thread_values.get("question"):
        raise InvalidQuestionError("the run has no input and the thread holds no question yet", INPUT_EXAMPLE)
    validate_question(thread_values["question"], max_chars)


def _settings_in(configurable: Any) -> dict[str, Any]:
    """The keys of `config.configurable` that are settings, not LangGraph's own values."""
    if not isinstance(configurable, dict):
        return {}
    return {
        key: value
        for key, value in configurable.items()
        if key not in _FRAMEWORK_KEYS and not key.startswith(_FRAMEWORK_PREFIXES)
    }

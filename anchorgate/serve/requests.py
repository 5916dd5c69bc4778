"""Request bodies of the HTTP API and how they become a run's `Config`.

The bodies are pydantic models only for their shape (unknown fields, wrong JSON types); what a
setting may be is checked by the same function as a Studio run's context
(`studio.checks.resolve_settings`). Settings that choose server resources (the corpus, the
model, the stores) are the server's: a client may not point the service at another folder or file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from anchorgate.graph.config import Config
from anchorgate.graph.config_keys import setting_names
from anchorgate.studio.checks import resolve_settings
from anchorgate.threads import validate_thread_id
from anchorgate.tools.errors import ConfigError, InvalidThreadIdError

# What loads a model or an index, or names a file or server: fixed by `anchorgate serve --set/--llm/--corpus`.
SERVER_OWNED = frozenset(
    {"resources.corpus", "resources.embedding_model", "resources.cache_dir", "resources.checkpoint_db",
     "resources.vector_store", "resources.vector_collection", "resources.services_id", "resources.chunk_tokens",
     "llm.model", "llm.n_ctx", "llm.seed"}
)  # fmt: skip
# Thread ids travel in URL paths and name lock files: letters, digits and . _ : - only, never "..".
_SAFE_THREAD_ID = re.compile(r"^[A-Za-z0-9_:.-]{1,128}$")
DEMO_QUESTION = "What does the pass statement do?"


class AskBody(BaseModel):
    """`POST /v1/ask` and `/v1/ask/stream`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"question": DEMO_QUESTION}]})
    question: str = Field(description="the question to answer")
    preset: str = Field("A", description="baseline, A, B or C")
    settings: dict[str, Any] = Field(default_factory=dict, description="setting overrides (`anchorgate config`)")
    thread_id: str | None = Field(None, description="checkpoint thread (default: a new one)")


class ReplayBody(BaseModel):
    """`POST /v1/threads/{id}/replay`: fork at a checkpoint and run on with changed settings."""

    model_config = ConfigDict(extra="forbid")
    checkpoint_id: str = Field(description="a checkpoint id from the thread's history")
    overrides: dict[str, Any] = Field(default_factory=dict, description="settings changed for the fork")


@dataclass(frozen=True)
class ServeSettings:
    """How the service was started: its default settings, API key, body limit and CORS origins."""

    defaults: dict[str, Any] = field(default_factory=dict)
    api_key: str = ""
    max_body_bytes: int = 64 * 1024
    cors_origins: tuple[str, ...] = ()

    def store_config(self) -> Config:
        """The settings that say where checkpoints live (and the rest as the defaults give them)."""
        return Config().replace(**{k: v for k, v in self.defaults.items() if k != "preset"})


def refuse_server_owned(settings: dict[str, Any], where: str = "settings") -> None:
    """A client's settings may not choose the server's resources."""
    owned = sorted(SERVER_OWNED & setting_names(settings))
    if owned:
        raise ConfigError(
            f"{where} may not set {', '.join(owned)}: the server's own",
            "they are fixed when the service starts (anchorgate serve --llm/--corpus/--set)",
        )


def run_settings(serve: ServeSettings, preset: str, settings: dict[str, Any]) -> Config:
    """The full settings of a run: the preset, the server's defaults, then the client's settings."""
    refuse_server_owned(settings)
    defaults = {k: v for k, v in serve.defaults.items() if k != "preset"}
    return resolve_settings({**defaults, **settings, "preset": preset})


def replay_overrides(overrides: dict[str, Any]) -> dict[str, Any]:
    """A replay's overrides: known settings of the right type, none of them the server's."""
    refuse_server_owned(overrides, where="overrides")
    Config().replace(**overrides)  # unknown keys and bad values are refused before the fork is written
    return overrides


def checked_thread_id(thread_id: str) -> str:
    """A thread id from a URL or body: the CLI's check, then the URL-safe alphabet (no path traversal)."""
    validate_thread_id(thread_id)
    if not _SAFE_THREAD_ID.match(thread_id) or ".." in thread_id:
        raise InvalidThreadIdError(
            f"the thread id {thread_id[:80]!r} is not allowed here",
            "use 1-128 letters, digits and . _ : - (no '..')",
        )
    return thread_id

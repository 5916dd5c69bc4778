"""Persisted round state: LangGraph's SQLite checkpointer, or PostgreSQL when `checkpoint_db` is a URL.

`checkpoint_db` = "" (the cache folder's `checkpoints.sqlite`) or a file path selects SQLite; a
`postgresql://` or `postgres://` URL selects `langgraph-checkpoint-postgres` (the `postgres` extra).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from anchorgate.graph.config import Config
from anchorgate.tools.errors import CheckpointStoreError, ConfigError
from anchorgate.tools.paths import cache_root

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_BUSY_TIMEOUT_S = 120.0


def is_postgres_url(value: str) -> bool:
    """True when `value` (a `checkpoint_db`) names a PostgreSQL server rather than a SQLite file."""
    return value.strip().lower().startswith(POSTGRES_SCHEMES)


def checkpoint_path(config: Config) -> Path:
    """The SQLite file holding every thread's checkpoints (never called for a PostgreSQL URL)."""
    if is_postgres_url(config.checkpoint_db):
        raise ConfigError("checkpoint_db is a PostgreSQL URL, not a SQLite file path")
    if config.checkpoint_db:
        path = Path(config.checkpoint_db).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        return path
    return cache_root(config.cache_dir) / "checkpoints.sqlite"


def server_of(url: str) -> str:
    """`host:port/database` of a PostgreSQL URL, without user or password (safe to print)."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname or "localhost", parts.port
    except ValueError:  # a malformed port
        return "<unparsable URL>"
    return f"{host}:{port or 5432}{parts.path or '/'}"


@asynccontextmanager
async def open_checkpointer(config: Config) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The run's checkpointer: PostgreSQL for a URL `checkpoint_db`, else SQLite (WAL: readers never block)."""
    if is_postgres_url(config.checkpoint_db):
        async with _postgres_saver(config.checkpoint_db.strip()) as saver:
            yield saver
        return
    # Each run has its own connection; concurrent runs (20 `aask` calls at once) take turns on
    # SQLite's write lock, so a writer waits up to SQLITE_BUSY_TIMEOUT_S instead of failing.
    async with aiosqlite.connect(str(checkpoint_path(config)), timeout=SQLITE_BUSY_TIMEOUT_S) as conn:
        await conn.execute("PRAGMA journal_mode=WAL")
        sqlite_saver = AsyncSqliteSaver(conn)
        await sqlite_saver.setup()
        yield sqlite_saver


@asynccontextmanager
async def _postgres_saver(url: str) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """An `AsyncPostgresSaver` with its tables created; a failed connection is a one-line error."""
    try:
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    except ImportError:
        raise ConfigError(
            "checkpoint_db is a PostgreSQL URL but langgraph-checkpoint-postgres is not installed",
            "pip install 'anchorgate[postgres]'",
        ) from None
    async with AsyncExitStack() as stack:
        try:  # only connecting and set-up are wrapped; errors of the run itself propagate unchanged
            saver = await stack.enter_async_context(AsyncPostgresSaver.from_conn_string(url))
            await saver.setup()
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            password = urlsplit(url).password
            if password:
                reason = reason.replace(password, "***")
            raise CheckpointStoreError(
                f"cannot use the PostgreSQL checkpoint store at {server_of(url)}: {reason}",
                "is the server running? check user, host, port and database in checkpoint_db",
            ) from None
        yield saver

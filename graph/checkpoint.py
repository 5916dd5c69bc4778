"""Persisted round state: LangGraph's SQLite checkpointer, or PostgreSQL when `checkpoint_db` is a URL.

`checkpoint_db` = "" (the cache folder's `checkpoints.sqlite`) or a file path selects SQLite; a
`postgresql://` or `postgres://` URL selects `langgraph-checkpoint-postgres` (the `postgres` extra).
A damaged SQLite file is reported as `CheckpointCorruptError` naming it and the remedy (see
`anchorgate.graph.checkpoint_health`), whether SQLite notices when the store is opened or later,
when a run reads a damaged page.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from anchorgate.graph.config import Config
from anchorgate.tools.errors import CheckpointCorruptError, CheckpointStoreError, ConfigError
from anchorgate.tools.paths import cache_root

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_BUSY_TIMEOUT_S = 120.0
SQLITE_CORRUPT = 11
SQLITE_NOTADB = 26


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


def is_corruption(exc: BaseException) -> bool:
    """True for SQLite's "malformed" and "not a database" errors (not for busy, locked or I/O errors)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:  # extended result codes keep the primary code in their low byte
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    return str(exc) in ("database disk image is malformed", "file is not a database")


def reset_command(path: Path) -> str:
    """The command that moves this store aside: `--set checkpoint_db` only when it is not the default one."""
    default = checkpoint_path(Config())
    where = "" if path.resolve() == default.resolve() else f" --set checkpoint_db={path}"
    return f"anchorgate reset-checkpoints{where}"


def corrupt_store_error(path: Path, exc: BaseException) -> CheckpointCorruptError:
    """The one-line error for a damaged store: which file, what SQLite said, and the remedy."""
    return CheckpointCorruptError(
        f"checkpoint store {path} is damaged ({exc})",
        f"`{reset_command(path)}` moves it aside to {path.name}.corrupt-<time> and starts a fresh store;"
        " nothing is deleted",
        path=str(path),
    )


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
    path = checkpoint_path(config)
    async with _shared_sqlite_saver(path) as saver:
        try:
            yield saver
        except sqlite3.DatabaseError as exc:  # a damaged page read during the run
            if is_corruption(exc):
                raise corrupt_store_error(path, exc) from exc
            raise


@dataclass
class _SharedSaver:
    """One SQLite connection and saver for every concurrent run of one event loop on one file."""

    ready: asyncio.Future[AsyncSqliteSaver]
    users: int = 0


_SHARED_SAVERS: dict[tuple[int, str], _SharedSaver] = {}


@asynccontextmanager
async def _shared_sqlite_saver(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """The file's saver, shared by the concurrent runs of this event loop and closed with the last.

    Concurrent runs (20 `aask` calls at once) on separate connections failed under load with
    "database is locked": a connection that read in WAL mode and then writes after another one
    committed gets SQLITE_BUSY at once, without waiting. One connection per process and file, whose
    saver serialises its statements with its own lock, has no such conflict; other processes still
    wait up to SQLITE_BUSY_TIMEOUT_S for the write lock.
    """
    loop = asyncio.get_running_loop()
    key = (id(loop), str(path.resolve()))
    entry = _SHARED_SAVERS.get(key)
    if entry is None:
        entry = _SHARED_SAVERS[key] = _SharedSaver(loop.create_future())
        loop.create_task(_open_saver(path, entry.ready))
    entry.users += 1
    try:
        saver = await asyncio.shield(entry.ready)
        yield saver
    finally:
        entry.users -= 1
        if entry.users == 0 and _SHARED_SAVERS.get(key) is entry:
            del _SHARED_SAVERS[key]
            if entry.ready.done() and not entry.ready.cancelled() and entry.ready.exception() is None:
                await entry.ready.result().conn.close()


async def _open_saver(path: Path, ready: asyncio.Future[AsyncSqliteSaver]) -> None:
    """Connect, switch to WAL, create the tables; the outcome (saver or error) goes to `ready`."""
    conn: aiosqlite.Connection | None = None
    try:
        conn = await aiosqlite.connect(str(path), timeout=SQLITE_BUSY_TIMEOUT_S)
        await conn.execute("PRAGMA journal_mode=WAL")
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
    except BaseException as exc:  # noqa: BLE001 — handed to every waiting run, which re-raises it
        if conn is not None:  # its worker thread would otherwise keep the process alive at exit
            await conn.close()
        ready.set_exception(corrupt_store_error(path, exc) if is_corruption(exc) else exc)
        return
    ready.set_result(saver)


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
            await _setup_serialised(saver)
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


# Two processes creating the tables at once race inside PostgreSQL's catalog ("duplicate key value
# violates unique constraint pg_type_typname_nsp_index") although every statement says IF NOT EXISTS.
# The lock is polled, not awaited: a waiter blocked in pg_advisory_lock holds a transaction open, which
# the holder's CREATE INDEX CONCURRENTLY then waits for: a deadlock.
_SETUP_LOCK_KEY = "anchorgate:checkpoint-setup"
_SETUP_LOCK_POLL_S = 0.05


async def _setup_serialised(saver: Any) -> None:
    """`saver.setup()` under a session advisory lock, so concurrent first runs create the tables once."""
    lock_sql = "SELECT pg_try_advisory_lock(hashtextextended(%s, 0)) AS held"
    while not (await (await saver.conn.execute(lock_sql, (_SETUP_LOCK_KEY,))).fetchone())["held"]:
        await asyncio.sleep(_SETUP_LOCK_POLL_S)
    try:
        await saver.setup()
    finally:
        await saver.conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (_SETUP_LOCK_KEY,))

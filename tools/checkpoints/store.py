"""Persisted round state: LangGraph's SQLite checkpointer, or PostgreSQL when `checkpoint_db` is a URL.

`checkpoint_db` = "" (the cache folder's `checkpoints.sqlite`) or a file path selects SQLite; a
`postgresql://` or `postgres://` URL selects `langgraph-checkpoint-postgres` (the `postgres` extra).
A damaged SQLite file is reported as `CheckpointCorruptError` naming it and the remedy (see
`anchorgate.tools.checkpoints.health`), whether SQLite notices when the store is opened or later,
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

from anchorgate.tools.errors import (
    CacheWriteError,
    CheckpointCorruptError,
    CheckpointStoreError,
    CheckpointWriteError,
    ConfigError,
)
from anchorgate.tools.paths import cache_root
from anchorgate.tools.settings import StoreSettings

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_BUSY_TIMEOUT_S = 120.0
SQLITE_CORRUPT = 11
SQLITE_NOTADB = 26
SQLITE_PERM = 3
SQLITE_READONLY = 8
SQLITE_CANTOPEN = 14


def is_postgres_url(value: str) -> bool:
    """True when `value` (a `checkpoint_db`) names a PostgreSQL server rather than a SQLite file."""
    return value.strip().lower().startswith(POSTGRES_SCHEMES)


def checkpoint_path(config: StoreSettings) -> Path:
    """The SQLite file holding every thread's checkpoints (never called for a PostgreSQL URL).

    Its folder is created; a store that cannot be (a folder named as the file, a parent that
    cannot be created) is a `CheckpointWriteError` (exit 73) naming the path.
    """
    if is_postgres_url(config.resources.checkpoint_db):
        raise ConfigError("checkpoint_db is a PostgreSQL URL, not a SQLite file path")
    if not config.resources.checkpoint_db:
        try:
            return cache_root(config.resources.cache_dir) / "checkpoints.sqlite"
        except CacheWriteError as exc:  # one error class for "the store cannot be written", whatever the cause
            raise CheckpointWriteError(f"no checkpoint store: {exc.message}", exc.hint) from exc
    path = Path(config.resources.checkpoint_db).expanduser()
    refuse_folder(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise store_write_error(path, exc) from exc
    return path


def refuse_folder(path: Path) -> None:
    """`checkpoint_db` names the SQLite file: a folder there is a setting mistake, said before SQLite fails on it."""
    if path.is_dir():
        raise CheckpointWriteError(
            f"checkpoint_db {path} is a folder, not a SQLite file",
            f"name a file, e.g. --set resources.checkpoint_db={path / 'checkpoints.sqlite'}",
        )


def store_write_error(path: Path, exc: BaseException) -> CheckpointWriteError:
    """The one-line error for a store that cannot be created or written (exit 73)."""
    reason = getattr(exc, "strerror", None) or str(exc)
    if isinstance(exc, FileExistsError | NotADirectoryError):  # mkdir's words for "a file is in the way"
        reason = "a file stands where its folder should be"
    return CheckpointWriteError(
        f"cannot write the checkpoint store {path}: {reason}",
        "make its folder writable, or set checkpoint_db (or ANCHORGATE_CACHE) to a writable place",
    )


def is_write_failure(exc: BaseException) -> bool:
    """True for SQLite's "cannot open", "read-only" and "no permission" errors: the file cannot be written."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM)
    return str(exc) in ("unable to open database file", "attempt to write a readonly database")


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
    try:
        default: Path | None = cache_root("") / "checkpoints.sqlite"
    except CacheWriteError:  # no default store (its cache cannot be made): name this one
        default = None
    same = default is not None and path.resolve() == default.resolve()
    where = "" if same else f" --set resources.checkpoint_db={path}"
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
async def open_checkpointer(config: StoreSettings) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The run's checkpointer: PostgreSQL for a URL `checkpoint_db`, else SQLite (WAL: readers never block)."""
    if is_postgres_url(config.resources.checkpoint_db):
        async with _postgres_saver(config.resources.checkpoint_db.strip()) as saver:
            yield saver
        return
    path = checkpoint_path(config)
    async with _shared_sqlite_saver(path) as saver:
        try:
            yield saver
        except sqlite3.DatabaseError as exc:  # a damaged page read during the run, or a write refused
            if is_corruption(exc):
                raise corrupt_store_error(path, exc) from exc
            if is_write_failure(exc):
                raise store_write_error(path, exc) from exc
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
        await asyncio.to_thread(_check_opens, path)
        conn = await aiosqlite.connect(str(path), timeout=SQLITE_BUSY_TIMEOUT_S)
        await conn.execute("PRAGMA journal_mode=WAL")
        saver = AsyncSqliteSaver(conn)
        await saver.setup()
    except BaseException as exc:  # noqa: BLE001 — handed to every waiting run, which re-raises it
        if conn is not None:  # its worker thread would otherwise keep the process alive at exit
            await conn.close()
        ready.set_exception(_store_error(path, exc))
        return
    ready.set_result(saver)


def _check_opens(path: Path) -> None:
    """Open the file once with plain sqlite3 first: a file SQLite cannot open is reported here.

    Not by aiosqlite: when its connect fails, its worker thread finishes after `asyncio.run` has
    closed the loop and prints a "RuntimeError: Event loop is closed" traceback under the error.
    """
    try:
        sqlite3.connect(path).close()
    except sqlite3.OperationalError as exc:
        raise store_write_error(path, exc) from exc


def _store_error(path: Path, exc: BaseException) -> BaseException:
    """A failure to open the store as the user-facing error it stands for, if it stands for one."""
    if is_corruption(exc):
        return corrupt_store_error(path, exc)
    if is_write_failure(exc):
        return store_write_error(path, exc)
    return exc


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

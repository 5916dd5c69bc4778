"""A damaged SQLite checkpoint store: recognise it, say what to do, and move it aside on request.

SQLite reports a truncated or overwritten file as SQLITE_CORRUPT ("database disk image is
malformed") or SQLITE_NOTADB ("file is not a database"), at the first statement that reads a
damaged page. Those two, and only those, become `CheckpointCorruptError` (exit 65) naming the file
and the remedy, `anchorgate reset-checkpoints`: it renames the file (and its WAL and shared-memory
files) to `<file>.corrupt-<timestamp>` and creates an empty store in its place. Nothing is ever
deleted: the damaged copy stays for inspection or salvage with the `sqlite3` shell's `.recover`.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from anchorgate.tools.checkpoints.lock import describe_owner, held_locks
from anchorgate.tools.checkpoints.store import checkpoint_path, is_corruption, is_postgres_url
from anchorgate.tools.errors import CheckpointWriteError, ConfigError, ThreadBusyError
from anchorgate.tools.settings import StoreSettings

COMPANIONS = ("-wal", "-shm", "-journal")  # SQLite's files beside the database: they move with it


def store_problem(path: Path) -> str | None:
    """What is wrong with the store file (SQLite's own words), or None when `PRAGMA quick_check` passes."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        if is_corruption(exc):
            return str(exc)
        raise
    finally:
        conn.close()
    verdict = "; ".join(str(row[0]) for row in rows)
    return None if verdict == "ok" else verdict


@dataclass(frozen=True)
class ResetReport:
    """What `reset_store` did: where the old store went (None: not moved) and what was wrong with it."""

    store: Path
    moved_to: Path | None
    problem: str | None
    created: bool  # there was no store: an empty one was created


def reset_store(config: StoreSettings, *, force: bool = False) -> ResetReport:
    """Move a damaged SQLite store aside (`<file>.corrupt-<time>`) and create an empty one in its place.

    A healthy store is kept unless `force` (nothing to do is not an error); a store some run is
    writing right now is never moved.
    """
    if is_postgres_url(config.resources.checkpoint_db):
        raise ConfigError("reset-checkpoints works on a SQLite store; checkpoint_db is a PostgreSQL URL")
    path = checkpoint_path(config)
    if not path.exists():
        _create_store(path)
        return ResetReport(path, None, None, created=True)
    problem = store_problem(path)
    if problem is None and not force:
        return ResetReport(path, None, None, created=False)
    owners = held_locks(path)
    if owners:
        raise ThreadBusyError(
            f"checkpoint store {path} is in use: {describe_owner(owners[0])} is writing thread"
            f" {owners[0].get('thread', '?')!r}",
            "wait for it to finish, then reset",
        )
    moved_to = _move_aside(path)
    _create_store(path)
    return ResetReport(path, moved_to, problem, created=True)


def _move_aside(path: Path) -> Path:
    """Rename the store and its companion files to `<name>.corrupt-<time>[-n]`; returns the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    number = 1
    while any(Path(f"{target}{suffix}").exists() for suffix in ("", *COMPANIONS)):
        number += 1  # never overwrite an earlier copy
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{number}")
    try:
        for suffix in COMPANIONS:  # the WAL may hold committed pages: it keeps its pairing with the copy
            companion = Path(f"{path}{suffix}")
            if companion.exists():
                companion.rename(f"{target}{suffix}")
        path.rename(target)
    except OSError as exc:
        raise CheckpointWriteError(
            f"cannot move {path} aside: {exc.strerror or exc}", "check the folder's permissions"
        ) from exc
    return target


def _create_store(path: Path) -> None:
    """An empty store with LangGraph's tables, in WAL mode like every store `open_checkpointer` opens."""
    try:
        conn = sqlite3.connect(path)
    except sqlite3.OperationalError as exc:
        raise CheckpointWriteError(f"cannot create {path}: {exc}", "check the folder's permissions") from exc
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        SqliteSaver(conn).setup()
    finally:
        conn.close()

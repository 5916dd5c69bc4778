"""One thread, one writer: an advisory lock per checkpoint thread, across processes and tasks.

Two runs writing one thread at once interleave their checkpoints into one history, and `resume`
then continues whichever wrote last. Every run that writes a thread (`ask`, `resume`, `replay`,
`astream`) therefore holds the thread's lock: `fcntl.flock` on `<store>.locks/<hash>.lock`
beside the SQLite file. A second run on a busy thread is refused with `ThreadBusyError` (exit
75); it never waits, so a stuck run cannot queue up others silently.

Why flock: the kernel drops the lock when its holder dies (SIGKILL, OOM), so a killed run never
leaves a stale lock behind, and no liveness check by pid is needed (pids are reused). A lock
belongs to one open file description, so two `aask` calls of one process, which each open the
file, exclude each other like two processes do. Different threads use different files and run
concurrently. The file names its owner (pid, host, start time) for the refusal message only.

A PostgreSQL store has no file beside it, and its writers may run on other machines: there the
lock is an advisory lock of the server (`pg_try_advisory_lock` on a hash of the thread id),
held by a connection of its own for the run. PostgreSQL drops it when that connection ends, whether
the run finished or its process died, so, like flock, it never outlives its holder.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from anchorgate.tools.checkpoints.store import checkpoint_path, is_postgres_url, server_of
from anchorgate.tools.errors import CheckpointStoreError, CheckpointWriteError, ThreadBusyError
from anchorgate.tools.settings import StoreSettings

LOCK_SUFFIX = ".locks"
_LOCK_PREFIX = "anchorgate:thread:"  # the advisory-lock key space of threads (set-up uses another key)


def lock_dir(db_path: Path) -> Path:
    """The folder of the thread locks of one SQLite store: `<store>.locks` beside it."""
    return db_path.with_name(db_path.name + LOCK_SUFFIX)


def lock_file(db_path: Path, thread_id: str) -> Path:
    """The lock file of one thread (a hash: thread ids may hold any character)."""
    digest = hashlib.sha256(thread_id.encode("utf-8")).hexdigest()[:32]
    return lock_dir(db_path) / f"{digest}.lock"


@contextlib.contextmanager
def thread_lock(config: StoreSettings, thread_id: str) -> Iterator[None]:
    """Hold `thread_id`'s lock for the block, or raise `ThreadBusyError` at once if another run holds it."""
    if is_postgres_url(config.resources.checkpoint_db):
        with _server_lock(config.resources.checkpoint_db.strip(), thread_id):
            yield
        return
    db_path = checkpoint_path(config)
    path = lock_file(db_path, thread_id)
    fd = acquire(path, thread_id, db_path)
    try:
        yield
    finally:
        release(path, fd)


@contextlib.contextmanager
def _server_lock(url: str, thread_id: str) -> Iterator[None]:
    """Hold the PostgreSQL advisory lock of `thread_id` on a connection of its own, or raise ThreadBusyError."""
    import psycopg

    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=30)
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        password = urlsplit(url).password
        reason = reason.replace(password, "***") if password else reason
        raise CheckpointStoreError(
            f"cannot lock thread {thread_id!r} at {server_of(url)}: {reason}",
            "is the server running? check user, host, port and database in checkpoint_db",
        ) from None
    try:
        sql = "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))"
        row = conn.execute(sql, (_LOCK_PREFIX + thread_id,)).fetchone()
        if not (row and row[0]):
            raise ThreadBusyError(
                f"thread {thread_id!r} is busy: another run is writing it in {server_of(url)}",
                "one run per thread: try again when it has finished, or use another --thread",
            )
        yield
    finally:
        conn.close()  # closing the connection releases the lock


def acquire(path: Path, thread_id: str, db_path: Path) -> int:
    """Lock `path` (created if missing) and write the owner into it; the open descriptor holds the lock."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(path, exc) from exc
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise _write_error(path, exc) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = read_owner(fd)
            os.close(fd)
            raise _busy_error(thread_id, db_path, owner) from None
        # The previous owner unlinks the file before it lets go: a lock taken on that unlinked
        # file guards nothing, so check that `path` still is the file locked, else open it again.
        if _is_current(fd, path):
            _write_owner(fd, thread_id)
            return fd
        os.close(fd)


def release(path: Path, fd: int) -> None:
    """Remove the lock file (still holding the lock, so no one can take a stale copy), then unlock."""
    try:
        with contextlib.suppress(FileNotFoundError):  # already gone: nothing left to remove
            path.unlink()
    finally:
        os.close(fd)


def held_locks(db_path: Path) -> list[dict[str, Any]]:
    """The owners of the locks that some run holds right now in this store (probed without waiting)."""
    folder = lock_dir(db_path)
    if not folder.is_dir():
        return []
    owners = []
    for path in sorted(folder.glob("*.lock")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:  # released while we listed the folder
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            owners.append(read_owner(fd) or {"thread": "?", "pid": None})
        finally:
            os.close(fd)
    return owners


def read_owner(fd: int) -> dict[str, Any]:
    """The owner record of a lock file; {} while its owner has not written it yet (or wrote garbage)."""
    raw = os.pread(fd, 4096, 0)
    try:
        owner = json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, ValueError):  # a record half written: the message just names no owner
        return {}
    return owner if isinstance(owner, dict) else {}


def describe_owner(owner: dict[str, Any]) -> str:
    """`pid 123 on host h since 12:00:03`, or `another run` when the owner is unknown."""
    if not owner.get("pid"):
        return "another run"
    since = time.strftime("%H:%M:%S", time.localtime(owner["started"])) if owner.get("started") else "?"
    where = f" on host {owner['host']}" if owner.get("host") and owner["host"] != socket.gethostname() else ""
    return f"a run by pid {owner['pid']}{where} since {since}"


def _write_owner(fd: int, thread_id: str) -> None:
    record = {"thread": thread_id, "pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
    data = json.dumps(record).encode("utf-8")
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def _is_current(fd: int, path: Path) -> bool:
    try:
        on_disk = path.stat()
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _busy_error(thread_id: str, db_path: Path, owner: dict[str, Any]) -> ThreadBusyError:
    return ThreadBusyError(
        f"thread {thread_id!r} is busy: {describe_owner(owner)} is writing it in {db_path}",
        "one run per thread: try again when it has finished, or use another --thread",
    )


def _write_error(path: Path, exc: OSError) -> CheckpointWriteError:
    reason = exc.strerror or errno.errorcode.get(exc.errno or 0, type(exc).__name__)
    return CheckpointWriteError(
        f"cannot create the thread lock {path}: {reason}", "make the checkpoint store's folder writable"
    )

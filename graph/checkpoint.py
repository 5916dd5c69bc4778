"""Persisted round state: LangGraph's SQLite checkpointer (async saver for async runs)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from anchorgate.graph.config import Config
from anchorgate.tools.paths import cache_root


def checkpoint_path(config: Config) -> Path:
    """The SQLite file holding every thread's checkpoints."""
    if config.checkpoint_db:
        path = Path(config.checkpoint_db).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        return path
    return cache_root(config.cache_dir) / "checkpoints.sqlite"


@asynccontextmanager
async def open_checkpointer(config: Config) -> AsyncIterator[AsyncSqliteSaver]:
    """An async SQLite saver for the duration of a run (WAL mode: readers never block the writer)."""
    async with AsyncSqliteSaver.from_conn_string(str(checkpoint_path(config))) as saver:
        await saver.setup()
        await saver.conn.execute("PRAGMA journal_mode=WAL")
        yield saver

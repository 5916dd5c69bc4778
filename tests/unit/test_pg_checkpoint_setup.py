"""Concurrent first runs against a fresh PostgreSQL checkpoint database create its tables once, without error.

Without serialising `setup()`, two connections creating the same tables raced inside PostgreSQL's
catalog ("duplicate key value violates unique constraint pg_type_typname_nsp_index"): CI saw it when
two app processes started at once on one shared server.
"""

from __future__ import annotations

import asyncio

import pytest

from anchorgate.graph.config import Config
from anchorgate.tools.checkpoints.store import open_checkpointer
from tests.unit.pg_helpers import fresh_database, pg_server


async def _open_and_list(config: Config, start: asyncio.Event) -> int:
    await start.wait()
    async with open_checkpointer(config) as saver:
        return len([c async for c in saver.alist({"configurable": {"thread_id": "none"}})])


@pytest.mark.asyncio
async def test_eight_concurrent_first_opens_create_the_tables_once() -> None:
    url = fresh_database("ckptsetup")
    config = Config().replace(**{"resources.checkpoint_db": url})
    start = asyncio.Event()
    runs = [asyncio.create_task(_open_and_list(config, start)) for _ in range(8)]
    start.set()
    assert await asyncio.gather(*runs) == [0] * 8
    tables = pg_server().psql(
        "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'checkpoint%'", database=url.rsplit("/", 1)[1]
    )
    assert int(tables.strip()) >= 3

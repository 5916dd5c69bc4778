"""The PostgreSQL checkpointer (`checkpoint_db=postgresql://...`) against a real throwaway server, with fakes.

The fixture runs `initdb` + `pg_ctl` from the local PostgreSQL install (as the `postgres` OS user
when the tests run as root) on a free port of 127.0.0.1 with trust auth, and stops it afterwards.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask, resolve_config
from anchorgate.threads import replay, thread_history
from anchorgate.tools.checkpoints.store import checkpoint_path, open_checkpointer
from anchorgate.tools.errors import AnchorgateError, CheckpointStoreError, ConfigError
from tests.unit.test_threads import _model as toy_model
from tests.unit.test_threads import _overrides as toy_overrides

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pg_bin() -> Path | None:
    """The folder holding initdb/pg_ctl: the newest /usr/lib/postgresql/*/bin, else the PATH."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    found = candidates[-1] if candidates else shutil.which("initdb")
    return Path(found).parent if found else None


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql")
    as_user: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="ag-pg-"))
    if os.geteuid() == 0:  # the server refuses to run as root
        try:
            shutil.chown(root, user="postgres", group="postgres")
        except LookupError:
            shutil.rmtree(root, ignore_errors=True)
            pytest.skip("running as root but there is no `postgres` OS user to run the server as")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, log, port = root / "data", root / "server.log", _free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*as_user, *args], cwd=root, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            server_log = log.read_text(errors="replace") if log.exists() else ""
            pytest.fail(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}\n{server_log}")

    started = False
    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
        options = f"-k {root} -p {port} -h 127.0.0.1 -c fsync=off"
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start")
        started = True
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if started:
            subprocess.run(
                [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                cwd=root,
                capture_output=True,
                timeout=120,
            )
        shutil.rmtree(root, ignore_errors=True)


def _overrides(tmp_path: Path, checkpoint_db: str) -> dict[str, Any]:
    """The SQLite tests' toy bundle (tests/unit/test_threads.py), with checkpoints in PostgreSQL."""
    return toy_overrides(tmp_path, toy_model(), checkpoint_db=checkpoint_db)


async def _count_checkpoints(url: str, thread_id: str) -> int:
    import psycopg

    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread_id,))
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


async def test_answer_and_history_are_stored_in_postgres(tmp_path: Path, pg_url: str) -> None:
    overrides = _overrides(tmp_path, pg_url)
    result = await aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="pg1")
    assert result["decision"] == "STOP" and "mice" in result["answer"]
    rows = await thread_history(resolve_config("A", overrides), "pg1")
    assert len(rows) > 3
    assert rows[0]["next"] == [] and rows[0]["decision"] == "STOP"
    assert any(r["decision"] == "STOP" for r in rows)
    assert await _count_checkpoints(pg_url, "pg1") > 0
    assert await _count_checkpoints(pg_url, "no-such-thread") == 0


async def test_replay_with_a_smaller_budget_abstains(tmp_path: Path, pg_url: str) -> None:
    overrides = _overrides(tmp_path, pg_url)
    first = await aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="pg-r1")
    assert first["decision"] == "STOP"
    rows = await thread_history(resolve_config("A", overrides), "pg-r1")
    before_generation = next(r for r in rows if r["next"] == ["generator"])
    forked = await replay(
        resolve_config("A", overrides), "pg-r1", before_generation["checkpoint_id"], {"budget.token_budget": 30}
    )
    assert forked["decision"] == "ABSTAIN" and forked["reason"] == "ABSTAIN_BUDGET"
    assert forked["tokens"]["total"] <= 30


async def test_unreachable_server_is_a_one_line_error_without_the_password(tmp_path: Path) -> None:
    port = _free_port()  # nothing listens there
    url = f"postgresql://postgres:s3cret-pw@127.0.0.1:{port}/postgres"
    config = resolve_config("A", {"resources.checkpoint_db": url})
    with pytest.raises(AnchorgateError) as caught:
        async with open_checkpointer(config):
            pass
    assert isinstance(caught.value, CheckpointStoreError) and caught.value.exit_code == 69
    line = caught.value.one_line()
    assert "\n" not in line and f"127.0.0.1:{port}/postgres" in line
    assert "s3cret-pw" not in line and "s3cret-pw" not in str(caught.value)
    assert not list(Path.cwd().glob("postgresql:*"))  # no directory made from the URL


async def test_missing_postgres_extra_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langgraph.checkpoint.postgres.aio", None)
    config = resolve_config("A", {"resources.checkpoint_db": "postgres://u@db.example:5432/x"})
    with pytest.raises(ConfigError, match="langgraph-checkpoint-postgres is not installed") as caught:
        async with open_checkpointer(config):
            pass
    assert "anchorgate[postgres]" in caught.value.hint
    with pytest.raises(ConfigError, match="PostgreSQL URL"):
        checkpoint_path(config)

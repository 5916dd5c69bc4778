"""A damaged SQLite checkpoint store, through the CLI and the Python API, on real files.

The store is written by real runs (toy index, scripted model), then cut to half its size or
overwritten with random bytes. Every command names the file and the remedy in one `error:` line
(exit 65); a question without `--thread` still answers, with a `warning:`; `reset-checkpoints`
moves the damaged file aside, byte for byte, and the next runs use a fresh store.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from anchorgate.api import aask, astream, resolve_config
from anchorgate.cli import run
from anchorgate.threads import CheckpointStoreWarning, replay, resume, thread_history
from anchorgate.tools.checkpoints.store import is_corruption
from anchorgate.tools.errors import EX_DATAERR, CheckpointCorruptError
from tests.unit.test_threads import _model, _overrides

QUESTION = "What do owls hunt?"


def _damage(db: Path, how: str) -> None:
    """Cut the file to half its size, or overwrite all of it with random bytes (same size)."""
    size = db.stat().st_size
    if how == "half":
        os.truncate(db, size // 2)
    else:
        db.write_bytes(os.urandom(size))


@pytest.fixture(params=["half", "garbage"])
def damaged(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    """A real store holding five finished threads, then damaged; its overrides, path and digest."""
    overrides = _overrides(tmp_path, _model())
    for n in range(5):
        asyncio.run(aask(QUESTION, preset="A", overrides=overrides, thread_id=f"t{n}"))
    db = Path(overrides["resources.checkpoint_db"])
    with sqlite3.connect(db) as conn:  # fold the WAL into the file, so the damage hits the checkpoints
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _damage(db, request.param)
    return {"overrides": overrides, "db": db, "digest": _digest(db)}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cli(args: list[str], store: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    sets = [
        "--set",
        f"resources.services_id={store['overrides']['resources.services_id']}",
        "--set",
        f"resources.checkpoint_db={store['db']}",
    ]
    code = run([*args, *sets])
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_error_line(err: str, db: Path) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error: checkpoint store {db} is damaged (")
    assert (
        f"anchorgate reset-checkpoints --set resources.checkpoint_db={db}" in lines[0]
        and "nothing is deleted" in lines[0]
    )
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize("command", [["ask", QUESTION, "--thread", "t1"], ["history", "t1"], ["resume", "t1"]])
def test_every_thread_command_names_the_file_and_the_remedy(
    damaged: dict[str, Any], command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(command, damaged, capsys)
    assert code == EX_DATAERR == 65 and out == ""
    _assert_one_error_line(err, damaged["db"])
    assert _digest(damaged["db"]) == damaged["digest"]  # never written to, never removed


def test_a_question_without_a_thread_still_answers_with_a_warning(
    damaged: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(["ask", QUESTION, "--json"], damaged, capsys)
    assert code == 0, err
    warning = err.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith(f"warning: checkpoint store {damaged['db']} is damaged")
    assert "answering without checkpoints" in warning[0] and "reset-checkpoints" in warning[0]
    assert '"decision": "STOP"' in out and '"checkpointed": false' in out
    assert _digest(damaged["db"]) == damaged["digest"]


def test_reset_moves_the_damaged_file_aside_and_runs_go_on_in_a_fresh_store(
    damaged: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    db = damaged["db"]
    code, out, err = _cli(["reset-checkpoints"], damaged, capsys)
    assert code == 0, err
    (moved,) = db.parent.glob(f"{db.name}.corrupt-*")
    assert _digest(moved) == damaged["digest"]  # the user's data, byte for byte
    assert f"moved {db} aside to {moved}" in out
    code, out, err = _cli(["ask", QUESTION, "--thread", "t1", "--json"], damaged, capsys)
    assert code == 0 and err == "" and '"checkpointed": true' in out
    code, out, err = _cli(["history", "t1"], damaged, capsys)
    assert code == 0 and "STOP" in out
    code, out, err = _cli(["reset-checkpoints"], damaged, capsys)  # healthy now: nothing to move
    assert code == 0 and "healthy" in out and len(list(db.parent.glob(f"{db.name}.corrupt-*"))) == 1


async def test_the_api_raises_for_a_thread_and_answers_without_one(damaged: dict[str, Any]) -> None:
    overrides, db = damaged["overrides"], damaged["db"]
    config = resolve_config("A", overrides)
    with pytest.raises(CheckpointCorruptError) as raised:
        await aask(QUESTION, overrides=overrides, thread_id="t1")
    assert raised.value.path == str(db) and raised.value.exit_code == 65
    for call in (thread_history(config, "t1"), resume(config, "t1"), replay(config, "t1", "x", {})):
        with pytest.raises(CheckpointCorruptError, match="is damaged"):
            await call
    with pytest.warns(CheckpointStoreWarning, match="answering without checkpoints"):
        result = await aask(QUESTION, overrides=overrides)
    assert result["decision"] == "STOP" and result["checkpointed"] is False
    with pytest.warns(CheckpointStoreWarning):
        events = [event async for event in astream(QUESTION, overrides=overrides)]
    assert events[-1]["event"] == "final" and events[-1]["decision"] == "STOP"
    assert _digest(db) == damaged["digest"]


async def test_damage_found_in_the_middle_of_a_run_reruns_the_question_without_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite reports damage when it reads a bad page, which may be at the third checkpoint, not the first."""
    overrides = _overrides(tmp_path, _model())
    reference = await aask(QUESTION, overrides=overrides, thread_id="ref")
    real_put = AsyncSqliteSaver.aput

    async def put(self: AsyncSqliteSaver, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        if metadata.get("step") == 2:
            damage = sqlite3.DatabaseError("database disk image is malformed")
            damage.sqlite_errorcode = 11  # type: ignore[attr-defined]  # as sqlite3 sets it for SQLITE_CORRUPT
            raise damage
        return await real_put(self, config, checkpoint, metadata, versions)

    monkeypatch.setattr(AsyncSqliteSaver, "aput", put)
    with pytest.warns(CheckpointStoreWarning):
        result = await aask(QUESTION, overrides=overrides)
    assert result["checkpointed"] is False
    for key in ("answer", "decision", "reason", "tokens", "citations"):
        assert result[key] == reference[key], key
    with pytest.raises(CheckpointCorruptError):
        await aask(QUESTION, overrides=overrides, thread_id="named")


def test_only_damage_counts_as_corruption() -> None:
    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorcode = 5  # type: ignore[attr-defined]
    assert not is_corruption(locked) and not is_corruption(OSError("disk full"))
    for code, text in ((11, "database disk image is malformed"), (26, "file is not a database"), (267, "x")):
        damage = sqlite3.DatabaseError(text)
        damage.sqlite_errorcode = code  # type: ignore[attr-defined]  # 267: SQLITE_CORRUPT_VTAB, an extended code
        assert is_corruption(damage), code


def test_reset_of_a_missing_store_creates_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "new" / "c.sqlite"
    assert run(["reset-checkpoints", "--set", f"resources.checkpoint_db={db}"]) == 0
    assert "created an empty one" in capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert {"checkpoints", "writes"} <= tables

"""`anchorgate prune-checkpoints`: old threads go whole, recent and busy ones stay; SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask, resolve_config
from anchorgate.cli import run
from anchorgate.prune_cli import parse_age, prune_store
from anchorgate.threads import thread_history
from anchorgate.tools.checkpoints.lock import thread_lock
from anchorgate.tools.errors import ThreadNotFoundError
from tests.unit.pg_helpers import fresh_database
from tests.unit.test_threads import _model, _overrides

QUESTION = "What do owls hunt?"


async def old_and_new_threads(overrides: dict[str, Any]) -> datetime:
    """Threads `old-1`, `old-2` asked before the returned moment, `new-1` after it."""
    for thread_id in ("old-1", "old-2"):
        await aask(QUESTION, preset="A", overrides=overrides, thread_id=thread_id)
    between = datetime.now(UTC)
    await aask(QUESTION, preset="A", overrides=overrides, thread_id="new-1")
    return between


async def check_prune(overrides: dict[str, Any]) -> None:
    config = resolve_config("A", overrides)
    between = await old_and_new_threads(overrides)
    later = between + timedelta(days=30)  # "now" 30 days on: the cut-off falls between the old and the new
    listed = await prune_store(config, timedelta(days=30), dry_run=True, now=later)
    assert listed.old == ["old-1", "old-2"] and listed.threads == 3 and not listed.deleted
    with thread_lock(config, "old-2"):  # a run is writing it: kept
        report = await prune_store(config, timedelta(days=30), now=later)
    assert report.deleted == ["old-1"] and report.busy == ["old-2"]
    with pytest.raises(ThreadNotFoundError):
        await thread_history(config, "old-1")
    assert await thread_history(config, "old-2") and await thread_history(config, "new-1")
    again = await prune_store(config, timedelta(days=30), now=later)
    assert again.deleted == ["old-2"] and again.threads == 2


async def test_prune_on_sqlite(tmp_path: Path) -> None:
    await check_prune(_overrides(tmp_path, _model()))


async def test_prune_on_postgresql(tmp_path: Path) -> None:
    url = fresh_database("prune")
    await check_prune({**_overrides(tmp_path, _model()), "resources.checkpoint_db": url})


AGES = [("30d", timedelta(days=30)), ("12h", timedelta(hours=12)), ("2w", timedelta(weeks=2)),
        (" 90m ", timedelta(minutes=90))]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), AGES)
def test_ages(text: str, expected: timedelta) -> None:
    assert parse_age(text) == expected


@pytest.mark.parametrize("text", ["banana", "30", "d", "0d", "-3d", "1.5d", "30y", ""])
def test_a_bad_age_is_exit_64_with_one_line(text: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = run(
        ["prune-checkpoints", f"--older-than={text}", "--set", f"resources.checkpoint_db={tmp_path / 'c.sqlite'}"]
    )
    err = capsys.readouterr().err
    assert code == 64 and err.startswith("error: --older-than") and "30d" in err and err.count("\n") == 1
    assert not (tmp_path / "c.sqlite").exists()  # refused before the store was opened


def test_the_command_reports_what_it_deleted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "c.sqlite"
    assert run(["prune-checkpoints", "--older-than", "30d", "--set", f"resources.checkpoint_db={store}"]) == 0
    assert "deleted 0 of 0 threads" in capsys.readouterr().out
    folder = run(["prune-checkpoints", "--older-than", "30d", "--set", f"resources.checkpoint_db={tmp_path}"])
    assert folder == 73 and "is a folder" in capsys.readouterr().err

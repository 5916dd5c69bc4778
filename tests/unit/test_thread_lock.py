"""One thread, one writer: the thread lock across real processes and concurrent `aask` tasks.

No sleeps: a child process (`test_thread_lock_children`) holds the lock and says so through a
multiprocessing Event, and the in-process tests stop the first run inside its model call with a
threading Event, so what each test sees does not depend on how fast a loaded machine runs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask, astream, resolve_config
from anchorgate.cli import run
from anchorgate.threads import replay, resume, thread_history
from anchorgate.tools.checkpoints.lock import acquire, lock_dir, lock_file, release
from anchorgate.tools.errors import EX_TEMPFAIL, ThreadBusyError
from tests.fakes import ScriptedChatModel, quoting_aware
from tests.unit.test_thread_lock_children import WAIT_S, hold, race
from tests.unit.test_threads import _model, _overrides

QUESTION = "What do owls hunt?"
SPAWN = multiprocessing.get_context("spawn")  # a fresh interpreter: no lock or fd inherited from pytest


@pytest.fixture
def holder(tmp_path: Path) -> Any:
    """Start a child process holding thread 'busy''s lock of `tmp_path`'s store; yields (process, release)."""
    overrides = _overrides(tmp_path, _model())
    held, release_it = SPAWN.Event(), SPAWN.Event()
    child = SPAWN.Process(target=hold, args=(overrides["resources.checkpoint_db"], "busy", held, release_it))
    child.start()
    assert held.wait(WAIT_S), "the child never took the lock"
    yield child, release_it, overrides
    release_it.set()
    child.join(WAIT_S)


def _sets(overrides: dict[str, Any]) -> list[str]:
    return [
        "--set",
        f"resources.services_id={overrides['resources.services_id']}",
        "--set",
        f"resources.checkpoint_db={overrides['resources.checkpoint_db']}",
    ]


def test_a_busy_thread_is_refused_by_every_writing_command(holder: Any, capsys: pytest.CaptureFixture[str]) -> None:
    child, _, overrides = holder
    for command in (["ask", QUESTION, "--thread", "busy"], ["resume", "busy"], ["replay", "busy", "--checkpoint", "x"]):
        assert run([*command, *_sets(overrides)]) == EX_TEMPFAIL == 75
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1, err
        assert err.startswith(f"error: thread 'busy' is busy: a run by pid {child.pid} since ")
        assert "one run per thread" in err and "Traceback" not in err


async def test_the_api_refuses_a_busy_thread_and_runs_other_threads_meanwhile(holder: Any) -> None:
    _, release_it, overrides = holder
    config = resolve_config("A", overrides)
    with pytest.raises(ThreadBusyError, match="'busy' is busy"):
        await aask(QUESTION, overrides=overrides, thread_id="busy")
    for call in (resume(config, "busy"), replay(config, "busy", "x", {})):
        with pytest.raises(ThreadBusyError):
            await call
    with pytest.raises(ThreadBusyError):
        [event async for event in astream(QUESTION, overrides=overrides, thread_id="busy")]
    other = await aask(QUESTION, overrides=overrides, thread_id="other")  # while 'busy' is still held
    assert other["decision"] == "STOP"
    release_it.set()
    await asyncio.to_thread(holder[0].join, WAIT_S)
    done = await aask(QUESTION, overrides=overrides, thread_id="busy")
    assert done["decision"] == "STOP"
    assert (await thread_history(config, "busy"))[0]["next"] == []


def test_reset_never_moves_a_store_a_run_is_writing(holder: Any, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, overrides = holder
    asyncio.run(aask(QUESTION, overrides=overrides, thread_id="other"))  # a store with something in it
    assert run(["reset-checkpoints", "--force", *_sets(overrides)]) == EX_TEMPFAIL
    assert "is in use" in capsys.readouterr().err
    db = Path(overrides["resources.checkpoint_db"])
    assert not list(db.parent.glob(f"{db.name}.corrupt-*"))


async def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    overrides = _overrides(tmp_path, _model())
    db = overrides["resources.checkpoint_db"]
    held, release_it = SPAWN.Event(), SPAWN.Event()
    child = SPAWN.Process(target=hold, args=(db, "t", held, release_it))
    child.start()
    assert await asyncio.to_thread(held.wait, WAIT_S)
    child.kill()  # SIGKILL: no cleanup code runs, the lock file stays behind
    await asyncio.to_thread(child.join, WAIT_S)
    stale = lock_file(Path(db), "t")
    assert json.loads(stale.read_text())["pid"] == child.pid
    result = await aask(QUESTION, overrides=overrides, thread_id="t")  # the kernel dropped the dead run's lock
    assert result["decision"] == "STOP" and not stale.exists()


def test_of_four_processes_starting_at_once_exactly_one_writes(tmp_path: Path) -> None:
    db = str(tmp_path / "c.sqlite")
    start, tried, results = SPAWN.Barrier(4), SPAWN.Barrier(4), SPAWN.Queue()
    children = [SPAWN.Process(target=race, args=(db, "same", start, tried, results)) for _ in range(4)]
    for child in children:
        child.start()
    outcomes = sorted(results.get(timeout=WAIT_S) for _ in children)
    for child in children:
        child.join(WAIT_S)
        assert child.exitcode == 0
    assert outcomes == ["busy", "busy", "busy", "won"]
    assert not list(lock_dir(Path(db)).glob("*.lock"))  # released and removed


def _blocking_model(inside: threading.Event, go_on: threading.Event) -> ScriptedChatModel:
    """A model whose first answer waits, inside the run, until the test lets it go on."""

    def reply(prompt: str) -> str:
        if "Verdict" in prompt:
            return "SUPPORTED"
        inside.set()
        assert go_on.wait(WAIT_S)
        return "Owls hunt mice at night [1]."

    return ScriptedChatModel(script=quoting_aware(reply), report_usage=True)


async def test_concurrent_aask_on_one_thread_in_one_process_never_interleave(tmp_path: Path) -> None:
    inside, go_on = threading.Event(), threading.Event()
    overrides = _overrides(tmp_path, _blocking_model(inside, go_on))
    first = asyncio.create_task(aask(QUESTION, overrides=overrides, thread_id="same"))
    assert await asyncio.to_thread(inside.wait, WAIT_S)  # the first run is inside its model call
    with pytest.raises(ThreadBusyError):
        await aask(QUESTION, overrides=overrides, thread_id="same")
    go_on.set()
    assert (await first)["decision"] == "STOP"
    steps = [row["step"] for row in await thread_history(resolve_config("A", overrides), "same")]
    assert steps == list(range(max(steps), -2, -1))  # one run: -1 … n once each, in order


async def test_runs_on_different_threads_are_inside_at_the_same_time(tmp_path: Path) -> None:
    both_inside = threading.Barrier(2, timeout=WAIT_S)  # breaks (and fails the test) if runs were serialised
    calls = itertools.count()

    def reply(prompt: str) -> str:
        if "Verdict" in prompt:
            return "SUPPORTED"
        if next(calls) < 2:  # two first generations: a run's second call waits for its first, so one per run
            both_inside.wait()
        return "Owls hunt mice at night [1]."

    overrides = _overrides(tmp_path, ScriptedChatModel(script=quoting_aware(reply), report_usage=True))
    results = await asyncio.gather(*(aask(QUESTION, overrides=overrides, thread_id=f"t{n}") for n in range(2)))
    assert [r["decision"] for r in results] == ["STOP", "STOP"]


def test_a_lock_file_replaced_while_waiting_is_not_trusted(tmp_path: Path) -> None:
    """A lock taken on a file its owner already removed guards nothing: acquire opens the new file."""
    db = tmp_path / "c.sqlite"
    path = lock_file(db, "t")
    fd = acquire(path, "t", db)
    release(path, fd)
    assert not path.exists()
    path.write_text("not json")  # a leftover with garbage in it
    fd = acquire(path, "t", db)
    try:
        assert json.loads(path.read_text())["thread"] == "t"
        with pytest.raises(ThreadBusyError, match="'t' is busy"):
            acquire(path, "t", db)  # a second descriptor in the same process is a second writer
    finally:
        release(path, fd)

"""Child-process bodies of the thread-lock tests, in a module that imports little (spawn re-imports it)."""

from __future__ import annotations

from multiprocessing.synchronize import Barrier as BarrierType
from multiprocessing.synchronize import Event as EventType
from typing import Any

from anchorgate.graph.config import Config
from anchorgate.tools.checkpoints.lock import thread_lock
from anchorgate.tools.errors import ThreadBusyError

WAIT_S = 120  # only a bound for a broken test; every wait ends on an event


def hold(db: str, thread: str, held: EventType, release_it: EventType) -> None:
    """Hold `thread`'s lock until told to let go."""
    with thread_lock(Config().replace(**{"resources.checkpoint_db": db}), thread):
        held.set()
        release_it.wait(WAIT_S)


def race(db: str, thread: str, start: BarrierType, tried: BarrierType, results: Any) -> None:
    """Try the lock at the same moment as the others; hold it until all have tried."""
    start.wait(WAIT_S)
    try:
        with thread_lock(Config().replace(**{"resources.checkpoint_db": db}), thread):
            results.put("won")
            tried.wait(WAIT_S)
    except ThreadBusyError:
        results.put("busy")
        tried.wait(WAIT_S)

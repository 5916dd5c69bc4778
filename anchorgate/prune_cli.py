"""`anchorgate prune-checkpoints --older-than 30d`: delete the threads nobody has touched for a while.

A thread goes when its newest checkpoint is older than the cut-off, whole (all its checkpoints and
writes, through the saver's own `adelete_thread`), so no thread is left half pruned and nothing
recent is lost. A thread a run is writing right now is skipped (its lock is held), and the exit code
says so (75: run it again later). Works on the SQLite store and on PostgreSQL (`checkpoint_db`).
"""

from __future__ import annotations

import argparse
import asyncio
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from anchorgate.tools.errors import EX_TEMPFAIL, EX_USAGE, AnchorgateError, ThreadBusyError

_AGE = re.compile(r"^\s*(\d{1,6})\s*([smhdw])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class AgeError(AnchorgateError):
    """An `--older-than` value that is not a positive age."""

    exit_code = EX_USAGE


@dataclass
class PruneReport:
    """What a prune found and did."""

    cutoff: datetime
    threads: int = 0
    deleted: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)


def parse_age(text: str) -> timedelta:
    """`30d`, `12h`, `90m`, `2w`, `45s` as a timedelta; anything else (or zero) is an AgeError."""
    found = _AGE.match(text or "")
    if not found or int(found.group(1)) == 0:
        raise AgeError(f"--older-than {text!r} is not an age", "give a positive number and a unit: 30d, 12h, 90m, 2w")
    return timedelta(**{_UNITS[found.group(2)]: int(found.group(1))})


def add_prune_command(commands: Any) -> None:
    """Register `anchorgate prune-checkpoints` on the CLI's subparsers."""
    prune = commands.add_parser("prune-checkpoints", help="delete threads whose newest checkpoint is older than an age")
    prune.add_argument("--older-than", required=True, metavar="AGE", help="e.g. 30d, 12h, 2w")
    prune.add_argument("--dry-run", action="store_true", help="list what would be deleted, delete nothing")
    prune.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="GROUP.FIELD=VALUE",
        help="resources.checkpoint_db, resources.cache_dir",
    )
    prune.set_defaults(handler=run_prune)


async def prune_store(
    config: Any, older_than: timedelta, *, dry_run: bool = False, now: datetime | None = None
) -> PruneReport:
    """Delete (or with `dry_run` only list) the threads whose newest checkpoint is before `now` − `older_than`."""
    from anchorgate.tools.checkpoints.lock import thread_lock
    from anchorgate.tools.checkpoints.store import open_checkpointer

    report = PruneReport(cutoff=(now or datetime.now(UTC)) - older_than)
    newest: dict[str, datetime] = {}
    async with open_checkpointer(config) as saver:
        async for item in saver.alist(None):
            thread_id = str(item.config["configurable"]["thread_id"])
            stamp = datetime.fromisoformat(item.checkpoint["ts"])
            newest[thread_id] = max(stamp, newest.get(thread_id, stamp))
        report.threads = len(newest)
        report.old = sorted(t for t, stamp in newest.items() if stamp < report.cutoff)
        for thread_id in [] if dry_run else report.old:
            try:
                with thread_lock(config, thread_id):
                    await saver.adelete_thread(thread_id)
            except ThreadBusyError:
                report.busy.append(thread_id)
                continue
            report.deleted.append(thread_id)
    return report


def run_prune(args: argparse.Namespace) -> int:
    """Prune and say what happened; 75 when some old thread was busy and kept."""
    from anchorgate.graph.config import Config, parse_assignments

    age = parse_age(args.older_than)
    config = Config().replace(**parse_assignments(args.set))
    report = asyncio.run(prune_store(config, age, dry_run=args.dry_run))
    cutoff = report.cutoff.isoformat(timespec="seconds")
    if args.dry_run:
        print(f"would delete {len(report.old)} of {report.threads} threads (newest checkpoint before {cutoff}):")
        for thread_id in report.old:
            print(f"  {thread_id!r}")
        return 0
    print(f"deleted {len(report.deleted)} of {report.threads} threads (newest checkpoint before {cutoff})")
    if report.busy:
        print(f"kept {len(report.busy)} busy thread(s), a run is writing them: run it again later")
        return EX_TEMPFAIL
    return 0

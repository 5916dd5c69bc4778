"""`anchorgate reset-checkpoints`, and how the CLI shows checkpoint-store warnings.

`reset-checkpoints` is the remedy the error for a damaged store names: it moves the SQLite file
(and its WAL) aside to `<file>.corrupt-<time>` and creates an empty store, never deleting
anything. A warning (a question answered without checkpoints because the store is damaged) is
printed as one `warning: …` line on stderr, not as Python's `file:line: UserWarning` form.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Iterator
from typing import Any


def add_reset_command(commands: Any) -> None:
    """Register `anchorgate reset-checkpoints` on the CLI's subparsers."""
    reset = commands.add_parser(
        "reset-checkpoints",
        help="move a damaged checkpoint store aside (<file>.corrupt-<time>) and start a fresh one",
    )
    reset.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="GROUP.FIELD=VALUE",
        help="resources.checkpoint_db, resources.cache_dir",
    )
    reset.add_argument("--force", action="store_true", help="move the store aside even if it is healthy")
    reset.set_defaults(handler=run_reset)


def run_reset(args: argparse.Namespace) -> int:
    """Move the store aside if it is damaged (or `--force`) and report where everything is."""
    from anchorgate.graph.config import Config, parse_assignments
    from anchorgate.tools.checkpoints.health import reset_store

    report = reset_store(Config().replace(**parse_assignments(args.set)), force=args.force)
    if report.moved_to is None:
        done = "created an empty one" if report.created else "it is healthy: nothing moved (--force moves it anyway)"
        print(f"checkpoint store {report.store}: {done}")
        return 0
    why = f"it was damaged: {report.problem}" if report.problem else "--force"
    print(f"moved {report.store} aside to {report.moved_to} ({why}); nothing was deleted")
    print(f"fresh checkpoint store: {report.store}")
    return 0


@contextlib.contextmanager
def store_warnings_on_stderr() -> Iterator[None]:
    """Within the block, a `CheckpointStoreWarning` prints as `warning: <message>` on stderr and a
    `DeprecatedSettingName` as `note: <message>`, once per message.

    Once: `anchorgate eval` asks many questions, each of which would repeat the same warning.
    """
    from anchorgate.graph.config_keys import DeprecatedSettingName
    from anchorgate.threads import CheckpointStoreWarning

    with warnings.catch_warnings():
        warnings.simplefilter("always", CheckpointStoreWarning)
        warnings.simplefilter("always", DeprecatedSettingName)
        shown, printed = warnings.showwarning, set()

        def show(message: Warning | str, category: type[Warning], *rest: Any, **kwargs: Any) -> None:
            if not issubclass(category, CheckpointStoreWarning | DeprecatedSettingName):
                shown(message, category, *rest, **kwargs)  # every other warning as Python shows it
                return
            kind = "note" if issubclass(category, DeprecatedSettingName) else "warning"
            line = f"{kind}: {' '.join(str(message).split())}"
            if line not in printed:
                printed.add(line)
                print(line, file=sys.stderr)

        warnings.showwarning = show
        yield

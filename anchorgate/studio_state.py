"""Where the Studio server keeps its state: `<cache>/studio/`, outside the source checkout.

`langgraph dev` (langgraph-runtime-inmem) pickles its threads, runs, crons and store into
`.langgraph_api/` under its working folder; the path is fixed in its code, with no setting to move
it, and it reloads those pickles on every start (stored crons fire again). So `anchorgate studio`
runs the server in `<cache>/studio/` (tools/paths.py: `cache_root`), with a copy of
`studio/langgraph.json` whose paths, written relative to the project root, are made absolute.

While it runs, the server holds an exclusive lock on `<cache>/studio/server.lock`: the lock is
taken before `langgraph dev` replaces the launcher and its descriptor survives the exec, so it
lasts exactly as long as the server. A second server and `anchorgate studio --reset` check it
and refuse while it is held; a server that crashed leaves no stale lock behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.errors import EX_CANTCREAT, EX_TEMPFAIL, AnchorgateError
from anchorgate.tools.paths import cache_root

STATE_FOLDER = ".langgraph_api"
"""The folder `langgraph dev` keeps its pickles in, relative to its working folder."""
CONFIG_NAME = "langgraph.json"
LOCK_NAME = "server.lock"


class StudioStateBusyError(AnchorgateError):
    """The Studio server state is in use by a running server."""

    exit_code = EX_TEMPFAIL


class StudioStateWriteError(AnchorgateError):
    """The Studio server's folder under the cache cannot be created, written or cleared."""

    exit_code = EX_CANTCREAT


def server_home() -> Path:
    """The Studio server's working folder under the cache (created if needed)."""
    home = cache_root() / "studio"
    with _writing(home):
        home.mkdir(parents=True, exist_ok=True)
    return home


def state_folder(home: Path) -> Path:
    """Where the server in `home` keeps its threads, runs, crons and store."""
    return home / STATE_FOLDER


def write_server_config(source: Path, project_root: Path, home: Path) -> Path:
    """Copy the project's `langgraph.json` into `home` with its paths made absolute; the copy's path.

    Written on every start, so an edit of the project's config takes effect at the next start.
    """
    config = json.loads(source.read_text(encoding="utf-8"))
    target = home / CONFIG_NAME
    with _writing(target):
        target.write_text(json.dumps(absolute_paths(config, project_root), indent=2) + "\n", encoding="utf-8")
    return target


def absolute_paths(config: dict[str, Any], project_root: Path) -> dict[str, Any]:
    """`config` with its file paths (dependencies, graph and app files, an env file) resolved against the root."""
    result = dict(config)
    result["dependencies"] = [_absolute(dep, project_root) for dep in config.get("dependencies", [])]
    result["graphs"] = {name: _absolute_spec(spec, project_root) for name, spec in config.get("graphs", {}).items()}
    if isinstance(config.get("http"), dict) and "app" in config["http"]:
        result["http"] = {**config["http"], "app": _absolute_spec(config["http"]["app"], project_root)}
    if isinstance(config.get("env"), str):
        result["env"] = _absolute(config["env"], project_root)
    return result


def _absolute_spec(spec: Any, root: Path) -> Any:
    """`./studio/entry.py:make_graph` -> `/abs/studio/entry.py:make_graph`; a module spec stays as it is."""
    if isinstance(spec, dict) and "path" in spec:
        return {**spec, "path": _absolute_spec(spec["path"], root)}
    if not isinstance(spec, str) or ":" not in spec:
        return spec
    path, name = spec.rsplit(":", 1)
    return f"{_absolute(path, root)}:{name}"


def _absolute(path: str, root: Path) -> str:
    """A path that exists relative to `root`, made absolute; anything else (a package name) unchanged."""
    candidate = root / path
    return str(candidate.resolve()) if candidate.exists() else path


def hold_server_lock(home: Path) -> int:
    """Take the server lock and keep it across `exec` (the returned descriptor); refused while another holds it."""
    descriptor = _try_lock(home)
    if descriptor is None:
        raise StudioStateBusyError(
            f"a Studio server is already running on {state_folder(home)}", "stop it first, or use that one"
        )
    os.set_inheritable(descriptor, True)  # `langgraph dev` replaces this process and keeps holding it
    return descriptor


def reset_state(home: Path) -> str:
    """Delete the server's saved state; one line saying what was removed. Refused while a server runs."""
    folder = state_folder(home)
    descriptor = _try_lock(home)
    if descriptor is None:
        raise StudioStateBusyError(f"a Studio server is using {folder}", "stop it, then run --reset again")
    try:
        if not folder.exists():
            return f"no Studio server state at {folder}: nothing removed"
        with _writing(folder):
            shutil.rmtree(folder)
    finally:
        os.close(descriptor)
    return f"removed the Studio server state (threads, runs, crons, store) at {folder}"


def _try_lock(home: Path) -> int | None:
    """An open descriptor holding the exclusive lock, or None when a running server holds it."""
    with _writing(home / LOCK_NAME):
        descriptor = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        return None
    return descriptor


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """A file-system failure on `path` becomes one error line naming it (exit 73), not an internal error."""
    try:
        yield
    except OSError as exc:
        raise StudioStateWriteError(
            f"cannot write {path}: {exc.strerror or exc}", "set ANCHORGATE_CACHE to a writable folder"
        ) from exc

"""The Studio server keeps its state under the cache folder, outside the checkout; `--reset` clears it.

`langgraph dev` itself is not started here (tests/e2e/test_studio_server.py does that): the launcher's
`exec` is intercepted, and a stand-in server (a process that takes the lock, then execs `sleep`)
shows that the lock survives the exec and keeps `--reset` away from a running server's state.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from anchorgate import studio_cli, studio_state
from anchorgate.studio_state import STATE_FOLDER, StudioStateBusyError, server_home
from anchorgate.tools.paths import cache_root

ANCHORGATE = Path(sys.executable).parent / "anchorgate"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("ANCHORGATE_CACHE", str(root))
    return root


def _saved_state(cache: Path) -> Path:
    """A state folder as `langgraph dev` leaves it: pickles of runs, crons and checkpoints."""
    folder = cache / "studio" / STATE_FOLDER
    folder.mkdir(parents=True)
    (folder / ".langgraph_ops.pckl").write_bytes(b"\x80\x04crons")
    (folder / ".langgraph_checkpoint.1.pckl").write_bytes(b"\x80\x04threads")
    return folder


def _cli(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANCHORGATE_CACHE": str(cache)}
    return subprocess.run([str(ANCHORGATE), *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_server_folder_is_under_the_cache_and_outside_the_checkout(cache: Path) -> None:
    home = server_home()
    assert home == cache_root() / "studio" == cache / "studio" and home.is_dir()
    assert not home.resolve().is_relative_to(studio_cli.PROJECT_ROOT)
    assert studio_state.state_folder(home) == cache / "studio" / ".langgraph_api"


def test_the_served_config_names_the_project_files_by_absolute_paths(cache: Path) -> None:
    from langgraph_cli.config import validate_config_file

    target = studio_state.write_server_config(studio_cli.STUDIO_CONFIG, studio_cli.PROJECT_ROOT, server_home())
    config = validate_config_file(target)
    graph_file, graph_name = config["graphs"]["anchorgate"].rsplit(":", 1)
    app_file = config["http"]["app"].rsplit(":", 1)[0]
    assert graph_name == "make_graph" and Path(graph_file) == studio_cli.PROJECT_ROOT / "studio" / "entry.py"
    assert Path(app_file) == studio_cli.PROJECT_ROOT / "studio" / "app.py"
    assert config["dependencies"] == [str(studio_cli.PROJECT_ROOT)]
    original = json.loads(studio_cli.STUDIO_CONFIG.read_text(encoding="utf-8"))
    assert config["env"] == original["env"] and target.parent == cache / "studio"


def test_absolute_paths_leave_module_specs_and_package_names_alone(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text("graph = None\n", encoding="utf-8")
    config = {
        "dependencies": [".", "langchain_openai"],
        "graphs": {"file": "./g.py:graph", "module": "pkg.mod:graph", "detailed": {"path": "g.py:graph"}},
        "env": ".env.missing",
    }
    result = studio_state.absolute_paths(config, tmp_path)
    assert result["dependencies"] == [str(tmp_path.resolve()), "langchain_openai"]
    assert result["graphs"] == {
        "file": f"{tmp_path.resolve() / 'g.py'}:graph",
        "module": "pkg.mod:graph",
        "detailed": {"path": f"{tmp_path.resolve() / 'g.py'}:graph"},
    }
    assert result["env"] == ".env.missing" and config["graphs"]["file"] == "./g.py:graph"


def test_the_launcher_runs_langgraph_dev_in_the_cache_folder_holding_the_lock(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: dict[str, Any] = {}
    real_lock = studio_cli.hold_server_lock

    def record_lock(home: Path) -> int:
        calls["lock"] = real_lock(home)
        return int(calls["lock"])

    class Execed(Exception):
        pass

    def fake_execv(path: str, argv: list[str]) -> None:
        calls["cwd"], calls["argv"] = Path.cwd(), argv
        raise Execed

    monkeypatch.setattr(studio_cli, "hold_server_lock", record_lock)
    monkeypatch.setattr(studio_cli.os, "execv", fake_execv)
    monkeypatch.chdir(studio_cli.PROJECT_ROOT)  # where `langgraph dev` used to write its state
    try:
        with pytest.raises(Execed):
            studio_cli.run_studio(_studio_args(port=_free_port()))
        home = cache / "studio"
        assert calls["cwd"] == home, "the server's working folder, where it writes .langgraph_api/"
        config = Path(calls["argv"][calls["argv"].index("--config") + 1])
        assert config == home / "langgraph.json" and config.is_file()
        assert os.get_inheritable(calls["lock"]), "the lock must survive the exec into langgraph dev"
        with pytest.raises(StudioStateBusyError):
            studio_state.reset_state(home)
        assert f"server state: {home / '.langgraph_api'}" in capsys.readouterr().out
    finally:
        if "lock" in calls:
            os.close(calls["lock"])


def test_reset_removes_the_state_folder_with_one_line(cache: Path) -> None:
    folder = _saved_state(cache)
    done = _cli("studio", "--reset", cache=cache)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout == f"removed the Studio server state (threads, runs, crons, store) at {folder}\n"
    assert not folder.exists() and (cache / "studio").is_dir()
    again = _cli("studio", "--reset", cache=cache)
    assert again.returncode == 0 and again.stdout == f"no Studio server state at {folder}: nothing removed\n"


def test_reset_is_refused_while_a_server_holds_the_state(cache: Path) -> None:
    folder = _saved_state(cache)
    stand_in = (
        "import os, sys\n"
        "from anchorgate.studio_state import hold_server_lock, server_home\n"
        "hold_server_lock(server_home())\n"
        "print('locked', flush=True)\n"
        "os.execv('/bin/sleep', ['sleep', '60'])\n"  # as `langgraph dev` replaces the launcher
    )
    server = subprocess.Popen(
        [sys.executable, "-c", stand_in],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "ANCHORGATE_CACHE": str(cache)},
    )
    try:
        assert server.stdout is not None and server.stdout.readline() == "locked\n"
        refused = _cli("studio", "--reset", cache=cache)
        assert refused.returncode == 75 and refused.stdout == ""
        assert refused.stderr == f"error: a Studio server is using {folder} (stop it, then run --reset again)\n"
        assert folder.is_dir()
        second = _cli("studio", "--port", str(_free_port()), cache=cache)
        assert second.returncode == 75 and "a Studio server is already running on" in second.stderr
    finally:
        server.kill()
        server.wait(timeout=30)
    assert _cli("studio", "--reset", cache=cache).returncode == 0 and not folder.exists()


def _studio_args(port: int) -> argparse.Namespace:
    return argparse.Namespace(host="127.0.0.1", port=port, reset=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])

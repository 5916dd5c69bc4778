"""`anchorgate studio`: serve the graph to LangGraph Studio with `langgraph dev`, checking first.

`langgraph dev` on a port that is already taken does not exit (it waits), so the port is checked
here and a taken one is a one-line error. The config is the project's `studio/langgraph.json`.
The server runs in `<cache>/studio/`, where it keeps its saved threads, runs and crons, not in the
checkout; `anchorgate studio --reset` deletes them (anchorgate/studio_state.py).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path
from typing import Any

from anchorgate.studio_state import hold_server_lock, reset_state, server_home, state_folder, write_server_config
from anchorgate.tools.errors import EX_UNAVAILABLE, EX_USAGE, AnchorgateError

# graph/ sits next to studio/ in the source tree (the package is installed editable by `make`).
PROJECT_ROOT = Path(__file__).resolve().parents[1]
STUDIO_CONFIG = PROJECT_ROOT / "studio" / "langgraph.json"


class StudioError(AnchorgateError):
    """The Studio server cannot start (port taken, config or langgraph-cli missing)."""

    exit_code = EX_UNAVAILABLE


def add_studio_command(commands: Any) -> None:
    """Register `anchorgate studio` on the CLI's subparsers."""
    studio = commands.add_parser("studio", help="serve the graph to LangGraph Studio (langgraph dev)")
    studio.add_argument("--port", type=int, default=2024)
    studio.add_argument("--host", default="127.0.0.1")
    studio.add_argument(
        "--reset",
        action="store_true",
        help="delete the server's saved threads, runs and crons (<cache>/studio/.langgraph_api) and exit",
    )
    studio.set_defaults(handler=run_studio)


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could bind `host:port` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def langgraph_binary() -> Path:
    """`langgraph` next to this Python, and the project's config it serves; a missing one is a StudioError."""
    binary = Path(sys.executable).parent / "langgraph"
    if not binary.exists():
        raise StudioError("langgraph-cli is not installed", "pip install -e '.[studio]' (make does this)")
    if not STUDIO_CONFIG.exists():
        raise StudioError(f"{STUDIO_CONFIG} not found", "run from a source checkout (pip install -e .)")
    return binary


def studio_command(binary: Path, config: Path, host: str, port: int) -> list[str]:
    """The `langgraph dev` command line."""
    return [str(binary), "dev", "--config", str(config),
            "--host", host, "--port", str(port), "--no-browser", "--no-reload", "--allow-blocking"]  # fmt: skip


def run_studio(args: argparse.Namespace) -> int:
    """`--reset`: clear the saved state. Otherwise check the port, then replace this process with `langgraph dev`."""
    if args.reset:
        print(reset_state(server_home()))
        return 0
    if not 0 < args.port < 65536:
        raise AnchorgateError(f"--port must be 1-65535, got {args.port}")
    if not port_is_free(args.host, args.port):
        error = StudioError(f"port {args.port} on {args.host} is in use", "choose another with --port")
        error.exit_code = EX_USAGE
        raise error
    binary, home = langgraph_binary(), server_home()
    hold_server_lock(home)  # held by `langgraph dev` after the exec, until it exits
    command = studio_command(binary, write_server_config(STUDIO_CONFIG, PROJECT_ROOT, home), args.host, args.port)
    print(f"Studio: https://smith.langchain.com/studio/?baseUrl=http://{args.host}:{args.port}", flush=True)
    print(f"server state: {state_folder(home)} (anchorgate studio --reset clears it)", flush=True)
    os.chdir(home)  # `langgraph dev` keeps its state in `.langgraph_api/` under its working folder
    os.execv(command[0], command)
    return 0  # not reached: execv replaces the process

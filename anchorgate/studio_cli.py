"""`anchorgate studio`: serve the graph to LangGraph Studio with `langgraph dev`, checking first.

`langgraph dev` on a port that is already taken does not exit (it waits), so the port is checked
here and a taken one is a one-line error. The config is the project's `studio/langgraph.json`.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path
from typing import Any

from anchorgate.tools.errors import EX_UNAVAILABLE, EX_USAGE, AnchorgateError

# graph/ sits next to studio/ in the source tree (the package is installed editable by `make`).
STUDIO_CONFIG = Path(__file__).resolve().parents[1] / "studio" / "langgraph.json"


class StudioError(AnchorgateError):
    """The Studio server cannot start (port taken, config or langgraph-cli missing)."""

    exit_code = EX_UNAVAILABLE


def add_studio_command(commands: Any) -> None:
    """Register `anchorgate studio` on the CLI's subparsers."""
    studio = commands.add_parser("studio", help="serve the graph to LangGraph Studio (langgraph dev)")
    studio.add_argument("--port", type=int, default=2024)
    studio.add_argument("--host", default="127.0.0.1")
    studio.set_defaults(handler=run_studio)


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could bind `host:port` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def studio_command(host: str, port: int) -> list[str]:
    """The `langgraph dev` command line (the binary next to this Python)."""
    binary = Path(sys.executable).parent / "langgraph"
    if not binary.exists():
        raise StudioError("langgraph-cli is not installed", "pip install -e '.[studio]' (make does this)")
    if not STUDIO_CONFIG.exists():
        raise StudioError(f"{STUDIO_CONFIG} not found", "run from a source checkout (pip install -e .)")
    return [str(binary), "dev", "--config", str(STUDIO_CONFIG.relative_to(STUDIO_CONFIG.parents[1])),
            "--host", host, "--port", str(port), "--no-browser", "--no-reload", "--allow-blocking"]  # fmt: skip


def run_studio(args: argparse.Namespace) -> int:
    """Check the port, then replace this process with `langgraph dev`."""
    if not 0 < args.port < 65536:
        raise AnchorgateError(f"--port must be 1-65535, got {args.port}")
    if not port_is_free(args.host, args.port):
        error = StudioError(f"port {args.port} on {args.host} is in use", "choose another with --port")
        error.exit_code = EX_USAGE
        raise error
    command = studio_command(args.host, args.port)
    print(f"Studio: https://smith.langchain.com/studio/?baseUrl=http://{args.host}:{args.port}", flush=True)
    os.chdir(STUDIO_CONFIG.parents[1])  # the config's paths are relative to the project root
    os.execv(command[0], command)
    return 0  # not reached: execv replaces the process

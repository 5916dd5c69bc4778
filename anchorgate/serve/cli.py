"""`anchorgate serve`: run the HTTP service and its web page with uvicorn.

The server's settings (`--llm`, `--corpus`, `--set`) are every run's defaults and fix its resources
(model, corpus, stores); a request may change the rest (preset, budget, gate settings). They are
checked before the port is bound, so a wrong one is a one-line error and an exit code, not a
server that fails at every request. `ANCHORGATE_API_KEY`, when set, is required on `/v1/*` and
`/metrics` as `Authorization: Bearer <key>`.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from anchorgate.tools.errors import EX_USAGE, AnchorgateError

DEFAULT_PORT = 8000


def add_serve_command(commands: Any) -> None:
    """Register `anchorgate serve` on the CLI's subparsers."""
    serve = commands.add_parser("serve", help="serve the HTTP API and the web page (uvicorn)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--llm", default=None, help="the model every run uses (local, local-0.5b, openai:<model>, …)")
    serve.add_argument("--corpus", default=None, help="the corpus every run reads ('pydoc', a folder, a .jsonl)")
    serve.add_argument("--preset", default="A", help="the preset loaded at start-up and the page's default")
    serve.add_argument("--set", action="append", default=[], metavar="GROUP.FIELD=VALUE", help="a default setting")
    serve.add_argument("--max-body-bytes", type=int, default=64 * 1024, help="larger request bodies get 413")
    serve.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                       help="allow this origin cross-site (repeatable; none by default)")  # fmt: skip
    serve.set_defaults(handler=run_serve)


def serve_settings(args: argparse.Namespace) -> Any:
    """The service's settings from the command line, checked (a bad value is a ConfigError, exit 78)."""
    from anchorgate.graph.config import parse_assignments
    from anchorgate.graph.presets import load_preset
    from anchorgate.graph.resources import check_reachable
    from anchorgate.serve.requests import ServeSettings

    defaults = parse_assignments(args.set)
    for option, key in (("llm", "llm.model"), ("corpus", "resources.corpus")):
        if getattr(args, option):
            defaults[key] = getattr(args, option)
    check_reachable(load_preset(args.preset, defaults))  # the model file, corpus and cache can be reached
    if args.max_body_bytes < 1024:
        raise AnchorgateError(f"--max-body-bytes must be at least 1024, got {args.max_body_bytes}")
    return ServeSettings(
        defaults={**defaults, "preset": args.preset},
        api_key=os.environ.get("ANCHORGATE_API_KEY", ""),
        max_body_bytes=args.max_body_bytes,
        cors_origins=tuple(args.cors_origin),
    )


def run_serve(args: argparse.Namespace) -> int:
    """Check the settings and the port, then serve until interrupted."""
    import uvicorn

    from anchorgate.serve.app import create_app
    from anchorgate.studio_cli import port_is_free

    if not 0 < args.port < 65536:
        raise _usage_error(f"--port must be 1-65535, got {args.port}")
    settings = serve_settings(args)
    if not port_is_free(args.host, args.port):
        raise _usage_error(f"port {args.port} on {args.host} is in use (choose another with --port)")
    key = "on (ANCHORGATE_API_KEY)" if settings.api_key else "off"
    print(f"anchorgate serve: http://{args.host}:{args.port}/ (API /v1, schema /openapi.json; API key {key})",
          flush=True)  # fmt: skip
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0


def _usage_error(message: str) -> AnchorgateError:
    error = AnchorgateError(message)
    error.exit_code = EX_USAGE
    return error

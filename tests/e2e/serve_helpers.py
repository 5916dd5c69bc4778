"""Real `anchorgate serve` processes for the end-to-end tests: started on a free port, ready, then stopped."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

READY_TIMEOUT_S = 900  # a loaded 2-core machine loads the model and index slowly: generous, never asserted


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def serving(args: list[str], log: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """`anchorgate serve ARGS` on a free port; yields its base URL once `/readyz` says ready."""
    port = free_port()
    argv = [sys.executable, "-m", "anchorgate", "serve", "--port", str(port), *args]
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    with log.open("w") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=full_env)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_ready(base, process, log)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_ready(base: str, process: subprocess.Popen[Any], log: Path) -> None:
    """Poll `/readyz` until 200; a server that exits or reports a failure fails the test with its log."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"anchorgate serve exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            status, body = call(base, "GET", "/readyz")
        except OSError:  # not listening yet
            time.sleep(0.5)
            continue
        if status == 200:
            return
        if body.get("status") == "failed":
            raise AssertionError(f"the server could not load: {body}")
        time.sleep(0.5)
    raise AssertionError(f"not ready after {READY_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


def call(base: str, method: str, path: str, body: Any = None, timeout: float = 900) -> tuple[int, Any]:
    """(status, JSON body) of one request; error statuses are returned, not raised."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, json.loads(raw) if raw else None

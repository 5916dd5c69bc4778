"""How soon `POST /v1/ask/stream` shows progress: time to its first byte and to its first node event.

    .venv/bin/python bench/serve_first_byte.py [--questions 5] [--llm local-0.5b]

A real `anchorgate serve` process (uvicorn, the packaged model through llama.cpp, the demo index) on
loopback; the questions are asked one after another, each on its own thread, and every stream is read
to its end. Reported per request: seconds to the first byte of the response body, to the first
`node_finished` event, and to the final `result` event. Writes bench/results/serve_first_byte.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from common import write_result  # noqa: E402

from bench.concurrent_ask import OVERRIDES, questions  # noqa: E402
from tests.e2e.serve_helpers import serving  # noqa: E402


def stream_timings(base: str, question: str, thread_id: str, timeout: float) -> dict[str, Any]:
    """Seconds from the request to the stream's first byte, first `accepted`, first `node_finished` and `result`."""
    body = json.dumps({"question": question, "thread_id": thread_id, "settings": OVERRIDES}).encode("utf-8")
    request = urllib.request.Request(base + "/v1/ask/stream", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    started = time.monotonic()
    marks: dict[str, float] = {}
    with urllib.request.urlopen(request, timeout=timeout) as response:
        for raw in response:
            marks.setdefault("first_byte_s", time.monotonic() - started)
            line = raw.decode("utf-8").strip()
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
                marks.setdefault(f"first_{event}_s", time.monotonic() - started)
    return {"question": question, "status": response.status, **{k: round(v, 3) for k, v in marks.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--llm", default="local-0.5b")
    parser.add_argument("--request-timeout-s", type=float, default=600.0)
    args = parser.parse_args(argv)
    asked = questions(args.questions)
    with tempfile.TemporaryDirectory(prefix="ag-first-byte-") as tmp:
        serve_args = ["--llm", args.llm, "--set", f"resources.checkpoint_db={tmp}/checkpoints.sqlite"]
        with serving(serve_args, Path(tmp) / "serve.log") as base:
            rows = [stream_timings(base, q, f"first-byte-{i}", args.request_timeout_s) for i, q in enumerate(asked)]
    summary = {
        key: {"median": statistics.median(r[key] for r in rows), "max": max(r[key] for r in rows)}
        for key in ("first_byte_s", "first_accepted_s", "first_node_finished_s", "first_result_s")
        if all(key in r for r in rows)
    }
    payload = {"llm": args.llm, "questions": len(rows), "settings": OVERRIDES, "summary": summary, "requests": rows}
    write_result("serve_first_byte", payload)
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

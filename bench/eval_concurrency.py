"""`anchorgate eval --concurrency N` against an OpenAI-compatible server on 127.0.0.1: wall time and records.

    nice -n 5 .venv/bin/python bench/eval_concurrency.py [--delay 1.0] [--questions 16]

The server is the one of tests/unit/test_eval_concurrency.py: it answers each chat completion from
the question in the prompt after `--delay` seconds (a model server's latency) and counts requests
in flight. The rest is real: ChatOpenAI, all-MiniLM-L6-v2, an index per question, the graph and the
scoring. Presets baseline and A; runs with --concurrency 1, 4 and 8 into fresh folders (indexes are
built by a warm-up run first); records are compared without their timings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from common import write_result  # noqa: E402

import tests.unit.test_eval_concurrency as fake  # noqa: E402
from anchorgate.eval.runner import run_eval  # noqa: E402
from anchorgate.eval.store import read_records  # noqa: E402

PRESETS = ["baseline", "A"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--questions", type=int, default=16)
    args = parser.parse_args()
    fake.DELAY_S = args.delay
    root = Path(tempfile.mkdtemp(prefix="ag-evalconc-"))
    copies = [{**item, "id": f"{item['id']}-{n}"} for n in range(args.questions) for item in fake.ITEMS]
    items = copies[: args.questions]
    dataset = root / "facts.jsonl"
    dataset.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    with fake.serving() as server:
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{server.server_port}/v1"
        os.environ["OPENAI_API_KEY"] = "sk-bench-dummy"
        run(dataset, root, "warm-up", 8)
        results: dict[str, Any] = {}
        for concurrency in (1, 4, 8):
            server.reset()
            seconds = run(dataset, root, f"n{concurrency}", concurrency)
            results[str(concurrency)] = {"seconds": round(seconds, 1), "max_in_flight": server.max_in_flight,
                                         "requests": server.requests}  # fmt: skip
            print(f"--concurrency {concurrency}: {results[str(concurrency)]}", file=sys.stderr)
    reference = records(root / "n1")
    for n in ("4", "8"):
        results[n]["records_equal_to_1"] = records(root / f"n{n}") == reference
        results[n]["speedup"] = round(results["1"]["seconds"] / results[n]["seconds"], 2)
    payload = {
        "command": "nice -n 5 .venv/bin/python bench/eval_concurrency.py",
        "delay_s": args.delay,
        "questions": len(items),
        "presets": PRESETS,
        "runs": results,
        "load_avg_1min": os.getloadavg()[0],
    }
    print(f"wrote {write_result('eval_concurrency', payload)}", file=sys.stderr)


def run(dataset: Path, root: Path, out: str, concurrency: int) -> float:
    overrides = {"llm.model": "openai:fake-chat", "resources.cache_dir": str(root / "cache"), "llm.max_retries": 0}
    started = time.monotonic()
    run_eval(dataset, presets=PRESETS, out_dir=root / out, overrides=overrides, llm_cache="", progress=False,
             concurrency=concurrency)  # fmt: skip
    return time.monotonic() - started


def records(out: Path) -> dict[str, Any]:
    return {preset: fake._untimed(read_records(out / f"{preset}.jsonl")) for preset in PRESETS}


if __name__ == "__main__":
    main()

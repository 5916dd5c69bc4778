"""Issue 14: N concurrent `aask` calls on one SQLite checkpoint store, on a loaded machine, vs sequential.

    .venv/bin/python bench/concurrent_ask.py [--questions 50] [--hogs 2] [--llm local-0.5b]

The questions are the 45 demo questions (bench/demo_questions.jsonl) followed by the first ones of
tests/e2e/test_concurrency.py, all distinct. Everything is real: the demo index (FAISS + BM25 over
pydoc), all-MiniLM-L6-v2, the local model through llama.cpp (its calls queue on the model's lock)
and one SQLite checkpoint file shared by every run. `--hogs` busy-loop processes (default: one per
core) run at the same priority for the whole benchmark, as on a user's busy machine. The questions
are asked once one after another, then all at once with `asyncio.gather`; a run that raises is
counted as an error with its message. Answers, decisions, reasons, tokens, citations, anchors,
context ids and the gate's decisions are compared per question. Writes
bench/results/concurrent_ask.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from common import write_result  # noqa: E402

from anchorgate.api import aask, resolve_config  # noqa: E402
from tests.e2e.test_concurrency import QUESTIONS as E2E_QUESTIONS  # noqa: E402
from tests.e2e.test_concurrency import _key  # noqa: E402

# Short contexts and answers, as in the e2e test, keep 2 x 50 real generations short: the point is the store.
OVERRIDES = {"budget.max_context_tokens": 300, "budget.max_output_tokens": 90, "judge.policy": "never"}


def questions(count: int) -> list[str]:
    """Demo questions first, then the e2e test's, without repeats."""
    demo = [json.loads(line)["question"] for line in (ROOT / "bench" / "demo_questions.jsonl").open(encoding="utf-8")]
    distinct = list(dict.fromkeys(demo + E2E_QUESTIONS))
    if count > len(distinct):
        raise SystemExit(f"error: only {len(distinct)} distinct questions; ask for at most that many")
    return distinct[:count]


async def run_all(asked: list[str], config: Any) -> tuple[list[Any], float, list[Any], float]:
    """Sequential results and seconds, then concurrent results (or exceptions) and seconds."""
    started = time.monotonic()
    sequential = [_key(await aask(q, config=config)) for q in asked]
    sequential_s = time.monotonic() - started
    started = time.monotonic()
    concurrent = await asyncio.gather(*(aask(q, config=config) for q in asked), return_exceptions=True)
    return sequential, sequential_s, concurrent, time.monotonic() - started


def start_hogs(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 1, help="busy processes beside the runs")
    parser.add_argument("--llm", default="local-0.5b")
    args = parser.parse_args()
    asked = questions(args.questions)
    store = Path(tempfile.mkdtemp(prefix="ag-concask-")) / "checkpoints.sqlite"
    config = resolve_config("A", {**OVERRIDES, "llm.model": args.llm, "resources.checkpoint_db": str(store)})
    hogs = start_hogs(args.hogs)
    try:
        sequential, sequential_s, concurrent, concurrent_s = asyncio.run(run_all(asked, config))
        load = Path("/proc/loadavg").read_text().split()[:3]
    finally:
        for hog in hogs:
            hog.kill()
    pairs = list(zip(asked, concurrent, strict=True))
    errors = [f"{q}: {type(r).__name__}: {r}" for q, r in pairs if isinstance(r, BaseException)]
    unequal = [q for q, one, other in zip(asked, sequential, concurrent, strict=True)
               if not isinstance(other, BaseException) and _key(other) != one]  # fmt: skip
    summary = {
        "questions": len(asked),
        "hogs": args.hogs,
        "load_average_at_end": load,
        "errors": len(errors),
        "equal_to_sequential": len(asked) - len(errors) - len(unequal),
        "distinct_answers": len({s["answer"] for s in sequential}),
        "decisions": dict(sorted(Counter(s["decision"] for s in sequential).items())),
        "sequential_s": round(sequential_s, 1),
        "concurrent_s": round(concurrent_s, 1),
    }
    print(json.dumps(summary, indent=2))
    path = write_result("concurrent_ask", {
        "command": "bench/concurrent_ask.py " + " ".join(sys.argv[1:]), "llm.model": args.llm, "preset": "A",
        "overrides": OVERRIDES, "summary": summary, "error_messages": errors, "unequal_questions": unequal,
    })  # fmt: skip
    print(f"wrote {path}", file=sys.stderr)
    sys.exit(1 if errors or unequal else 0)


if __name__ == "__main__":
    main()

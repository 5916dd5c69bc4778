"""Load on `anchorgate serve`: N concurrent `POST /v1/ask` over loopback, to one and to two instances, vs sequential.

    .venv/bin/python bench/serve_load.py [--questions 20] [--llm local-0.5b] [--deadline-s 3600]

Everything is real: `anchorgate serve` processes (uvicorn, the packaged model through llama.cpp, the
demo index) sharing one SQLite checkpoint file. The N distinct demo questions are asked once one
after another (the sequential baseline), then all at once to one instance, then all at once spread
over two instances. Each request names its own thread; an answer counts as lost when no response
came (error or timeout), and as mixed up when it carries another request's thread or differs from
the sequential answer to its question (temperature 0: the same question gives the same record).
Bounded: N at most the number of distinct questions, each request `--request-timeout-s`, each
phase `--deadline-s`. Writes bench/results/serve_load.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from common import write_result  # noqa: E402

from bench.concurrent_ask import OVERRIDES, questions  # noqa: E402
from tests.e2e.serve_helpers import call, serving  # noqa: E402


def record_key(record: dict[str, Any]) -> tuple[Any, ...]:
    """What must be equal for the same question: answer, decision, reason, cited chunks, tokens."""
    cited = tuple(c.get("id") for c in record.get("citations") or [])
    total = (record.get("tokens") or {}).get("total")
    return record.get("answer"), record.get("decision"), record.get("reason"), cited, total


def ask_one(base: str, question: str, thread_id: str, timeout: float) -> dict[str, Any]:
    """One request: status, seconds, and the record (or the error detail)."""
    started = time.monotonic()
    try:
        status, body = call(base, "POST", "/v1/ask", {"question": question, "thread_id": thread_id,
                                                      "settings": OVERRIDES}, timeout=timeout)  # fmt: skip
    except OSError as exc:  # a timeout or a dropped connection: a lost answer
        status, body = 0, {"detail": f"{type(exc).__name__}: {exc}"}
    return {"question": question, "thread_id": thread_id, "status": status, "body": body,
            "seconds": time.monotonic() - started}  # fmt: skip


def run_phase(bases: list[str], asked: list[str], tag: str, *, concurrent: bool, args: Any) -> dict[str, Any]:
    """Ask every question (round-robin over `bases`), one at a time or all at once; the responses and wall time."""
    jobs = [(bases[i % len(bases)], q, f"{tag}-{i}") for i, q in enumerate(asked)]
    started = time.monotonic()
    if concurrent:
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = [pool.submit(ask_one, base, q, t, args.request_timeout_s) for base, q, t in jobs]
            done, _ = wait(futures, timeout=args.deadline_s)
            responses = [f.result() if f in done else {"question": q, "thread_id": t, "status": 0,
                         "body": {"detail": "deadline"}, "seconds": args.deadline_s}
                         for f, (_, q, t) in zip(futures, jobs, strict=True)]  # fmt: skip
    else:
        responses = [ask_one(base, q, t, args.request_timeout_s) for base, q, t in jobs]
    return {"responses": responses, "wall_s": time.monotonic() - started}


def percentile(ordered: list[float], share: float) -> float:
    """The nearest-rank percentile of sorted values."""
    return ordered[max(0, round(share * len(ordered)) - 1)]


def summarise(phase: dict[str, Any], reference: dict[str, tuple[Any, ...]] | None) -> dict[str, Any]:
    """p50/p95 latency, errors, lost and mixed-up answers, throughput."""
    responses = phase["responses"]
    ok = [r for r in responses if r["status"] == 200]
    mixed = [r["question"] for r in ok if r["body"].get("thread_id") != r["thread_id"]
             or (reference is not None and record_key(r["body"]) != reference[r["question"]])]  # fmt: skip
    seconds = sorted(r["seconds"] for r in responses)
    return {
        "requests": len(responses), "ok": len(ok), "errors": len(responses) - len(ok),
        "error_details": sorted({f"{r['status']}: {(r['body'] or {}).get('detail')}" for r in responses
                                 if r["status"] != 200})[:10],
        "lost": len(responses) - len(ok), "mixed_up": len(mixed), "mixed_up_questions": mixed,
        "p50_s": round(statistics.median(seconds), 2), "p95_s": round(percentile(seconds, 0.95), 2),
        "wall_s": round(phase["wall_s"], 1), "throughput_per_min": round(60 * len(ok) / phase["wall_s"], 2),
    }  # fmt: skip


@contextlib.contextmanager
def instances(count: int, store: Path, llm: str, logs: Path) -> Iterator[list[str]]:
    with contextlib.ExitStack() as stack:
        args = ["--llm", llm, "--set", f"resources.checkpoint_db={store}"]
        yield [stack.enter_context(serving(args, logs / f"serve-{n}.log")) for n in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--llm", default="local-0.5b")
    parser.add_argument("--request-timeout-s", type=float, default=1800)
    parser.add_argument("--deadline-s", type=float, default=3600)
    args = parser.parse_args()
    asked = questions(args.questions)
    work = Path(tempfile.mkdtemp(prefix="ag-serve-load-"))
    store = work / "checkpoints.sqlite"
    with instances(2, store, args.llm, work) as bases:
        sequential = run_phase(bases[:1], asked, "seq", concurrent=False, args=args)
        reference = {r["question"]: record_key(r["body"]) for r in sequential["responses"] if r["status"] == 200}
        one = run_phase(bases[:1], asked, "one", concurrent=True, args=args)
        two = run_phase(bases, asked, "two", concurrent=True, args=args)
    summary = {"sequential": summarise(sequential, None), "one_instance": summarise(one, reference),
               "two_instances": summarise(two, reference)}  # fmt: skip
    for name in ("one_instance", "two_instances"):
        summary[name]["throughput_vs_sequential"] = round(sequential["wall_s"] / summary[name]["wall_s"], 2)
    summary["load_average_at_end"] = Path("/proc/loadavg").read_text().split()[:3]
    print(json.dumps(summary, indent=2))
    path = write_result("serve_load", {"command": "bench/serve_load.py " + " ".join(sys.argv[1:]), "llm": args.llm,
                                       "preset": "A", "settings": OVERRIDES, "summary": summary})  # fmt: skip
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()

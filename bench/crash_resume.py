"""Issue 14: crash-resume correctness — SIGKILL `anchorgate ask` at random points, then `anchorgate resume`.

    .venv/bin/python bench/crash_resume.py [--points 20] [--seed 0] [--preset B] [--llm local-0.5b]

One uninterrupted run of the question gives the reference answer, its steps and how long each
step took (from the checkpoints' timestamps). A kill point is a seeded random step and a random
fraction of that step's time: a fresh run on its own thread is killed (SIGKILL, whole process
group) that long after the step's checkpoint appears, so points fall in short steps (the parallel
retriever workers, the gate) as well as in the long LLM calls, and `anchorgate resume` finishes
it in a new process. Per point the script records
whether the resumed outcome (answer, short answer, decision, reason, tokens, citations) equals
the reference, and whether any task that had finished before the kill ran again: the finished
tasks are read from the checkpoint history before resuming (every task of the earlier steps, and
the tasks of the interrupted step whose writes were saved) and compared, by task id, with the
tasks `resume` ran. It also checks that the resumed thread's history has the reference's steps.
The random fractions are seeded; where a kill lands also depends on the machine's speed, so each
point records the step it interrupted. Writes bench/results/crash_resume.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import write_result  # noqa: E402

from anchorgate.graph.config import Config  # noqa: E402
from anchorgate.threads import thread_history  # noqa: E402
from anchorgate.tools.checkpoints.health import reset_store  # noqa: E402

QUESTION = "What does the pass statement do in Fortran 77?"  # B makes a second pass for the missing anchor
COMPARED = ("answer", "short_answer", "decision", "reason", "tokens", "citations")
CLI = str(Path(sys.executable).parent / "anchorgate")
POLL_S = 0.02  # how often to look for a thread's next checkpoint
Point = dict[str, Any]


def _ask(args: argparse.Namespace, db: Path, thread: str) -> list[str]:
    return [CLI, "ask", args.question, "--preset", args.preset, "--llm", args.llm, "--thread", thread,
            "--set", f"resources.checkpoint_db={db}", "--json"]  # fmt: skip


def _checkpoints(db: Path, thread: str) -> int:
    """How many checkpoints the thread has on disk (read-only; WAL readers never wait for the writer)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        (count,) = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ?", (thread,)).fetchone()
    conn.close()
    return int(count)


def _wait_checkpoints(process: subprocess.Popen[str], db: Path, thread: str, count: int) -> bool:
    """Block until the run has `count` checkpoints on disk; False if it ended first."""
    while _checkpoints(db, thread) < count:
        if process.poll() is not None:
            return False
        time.sleep(POLL_S)
    return True


def _history(db: Path, thread: str) -> list[dict[str, Any]]:
    return asyncio.run(thread_history(Config().replace(**{"resources.checkpoint_db": str(db)}), thread))


def _steps(history: list[dict[str, Any]]) -> list[tuple[int, list[str]]]:
    """(step, sorted task names) per checkpoint, oldest first: the shape of a run."""
    return [(row["step"], sorted(task["name"] for task in row["tasks"])) for row in reversed(history)]


def reference_run(args: argparse.Namespace, db: Path) -> dict[str, Any]:
    """The uninterrupted run: its outcome, its steps, and the seconds from each checkpoint to the next."""
    done = subprocess.run(_ask(args, db, "reference"), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"reference run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    result = json.loads(done.stdout)
    history = _history(db, "reference")
    times = [datetime.fromisoformat(row["created_at"]).timestamp() for row in reversed(history)]
    return {"result": {k: result[k] for k in COMPARED}, "steps": _steps(history),
            "step_s": [round(later - now, 3) for now, later in zip(times, times[1:], strict=False)]}  # fmt: skip


def finished_tasks(history: list[dict[str, Any]]) -> set[str]:
    """Ids of the tasks whose work is saved: all of the earlier steps, and the done ones of the latest."""
    latest, earlier = history[0], history[1:]
    done = {task["id"] for row in earlier for task in row["tasks"]}
    return done | {task["id"] for task in latest["tasks"] if task["done"]}


def run_and_kill(args: argparse.Namespace, db: Path, thread: str, index: int, delay: float) -> bool:
    """Start a run; SIGKILL its process group `delay` s after its checkpoint number `index` (0 = first) appears.

    False when the run ended before it could be killed.
    """
    process = subprocess.Popen(_ask(args, db, thread), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               text=True, start_new_session=True)  # fmt: skip
    if not _wait_checkpoints(process, db, thread, index + 1):
        return False
    try:
        process.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return True


def kill_and_resume(args: argparse.Namespace, db: Path, thread: str, rng: random.Random, ref: Point) -> Point:
    """One point: run, kill at a random step and moment, resume in a new process, compare with the reference."""
    index = rng.randrange(len(ref["step_s"]))
    delay = rng.random() * ref["step_s"][index]
    killed = run_and_kill(args, db, thread, index, delay)
    before = _history(db, thread)
    point: dict[str, Any] = {"thread": thread, "aimed_at_step": ref["steps"][index][0], "delay_s": round(delay, 3),
                             "killed": killed, "step_at_kill": before[0]["step"], "pending_at_kill": before[0]["next"],
                             "done_at_kill": [t["name"] for t in before[0]["tasks"] if t["done"]]}  # fmt: skip
    started = time.monotonic()
    done = subprocess.run([CLI, "resume", thread, "--set", f"resources.checkpoint_db={db}", "--json"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    point["resume_s"] = round(time.monotonic() - started, 2)
    if done.returncode != 0:
        return {**point, "error": done.stderr.strip()[-500:], "equal": False, "rerun_finished": None}
    resumed = json.loads(done.stdout)
    return {
        **point,
        "resumed": resumed["resumed"],
        "kept": resumed["kept"],
        "nodes_run": resumed["nodes_run"],
        "differs": [key for key in COMPARED if resumed[key] != ref["result"][key]],
        "equal": all(resumed[key] == ref["result"][key] for key in COMPARED),
        "rerun_finished": sorted(finished_tasks(before) & {task["id"] for task in resumed["tasks_run"]}),
        "history_matches_reference": _steps(_history(db, thread)) == ref["steps"],
    }


def summarise(points: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over the points that were really killed (a run that finished first proves nothing)."""
    killed = [p for p in points if p["killed"]]
    return {
        "points": len(points),
        "killed": len(killed),
        "killed_unfinished": sum(bool(p["pending_at_kill"]) for p in killed),  # the others after the last checkpoint
        "resumed_true": sum(bool(p.get("resumed")) for p in killed),
        "resumed_equal_to_uninterrupted": sum(p["equal"] for p in killed),
        "points_with_a_finished_task_rerun": sum(bool(p["rerun_finished"]) for p in killed),
        "resume_errors": sum("error" in p for p in killed),
        "history_matches_reference": sum(bool(p.get("history_matches_reference")) for p in killed),
        "interrupted_steps": sorted({p["step_at_kill"] for p in killed}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=20, help="kill points (default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preset", default="B")
    parser.add_argument("--llm", default="local-0.5b")
    parser.add_argument("--question", default=QUESTION)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="crash_resume_") as folder:
        db = Path(folder) / "checkpoints.sqlite"
        reset_store(Config().replace(**{"resources.checkpoint_db": str(db)}))  # the tables exist before the first look
        started = time.monotonic()
        ref = reference_run(args, db)
        print(f"reference: {ref['result']['decision']}, {len(ref['steps'])} checkpoints", flush=True)
        points = []
        for n in range(args.points):
            point = kill_and_resume(args, db, f"kill-{n}", rng, ref)
            points.append(point)
            shown = ("thread", "aimed_at_step", "delay_s", "killed", "step_at_kill", "pending_at_kill", "done_at_kill",
                     "equal", "rerun_finished")  # fmt: skip
            print(json.dumps({k: point.get(k) for k in shown}), flush=True)
    summary = summarise(points)
    payload = {"command": " ".join(sys.argv), "question": args.question, "preset": args.preset, "llm": args.llm,
               "seed": args.seed, "reference": ref, "summary": summary, "points": points,
               "wall_s": round(time.monotonic() - started, 1)}  # fmt: skip
    path = write_result("crash_resume", payload)
    print(json.dumps(summary, indent=2))
    print(f"→ {path}")


if __name__ == "__main__":
    main()

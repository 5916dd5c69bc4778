"""The model-server route vs in-process: the default GGUF behind llama.cpp's OpenAI-compatible server.

    .venv/bin/python bench/model_server_parity.py [--skip 250 --limit 270] [--plain] [--deadline-s 5400]

Starts `python -m llama_cpp.server` (llama-cpp-python[server], the pinned 0.3.36) on the default
`local` GGUF on a free loopback port, with the in-process model's settings: n_ctx 4096, seed 42,
every core for decoding and prompt processing (tools/llm/chat_models.py), the chat template from
the GGUF's own metadata (what tools/llm/llama_chat.py formats with; the server guesses the same
from the file when no --chat_format is given), and logits for every position (the server's default,
which its logprobs need). Then runs `anchorgate eval --presets A --no-llm-cache` on the same
questions twice: `--llm local` (llama.cpp in this process) and `--llm openai:<alias>` against the
server, with OPENAI_BASE_URL pointing at it and ANCHORGATE_OPENAI_LLAMA_CPP=1 (the server gets the
reader's GBNF grammar and repeat penalty 1.0, as in-process; tools/llm/openai_chat.py). `--plain`
adds a third run without that switch: the stock OpenAI request a user gets by default.

Compared per question: answer (`prediction`), short_answer, decision, reason, prompt and completion
tokens, the per-call token list, and whether the logprob signals (gen_confidence,
answer_confidence, abstain_p in the gate's telemetry) are present, with their largest difference.
Run folders go under /tmp/model_server_parity (resumable: `anchorgate eval` skips questions already
in a folder); the committed record is bench/results/model_server_parity.json. Bounded: the server
must answer within `--ready-s`, every eval within `--deadline-s`; the server is always terminated.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from common import DATASETS, write_result  # noqa: E402

from anchorgate.tools.llm.chat_models import resolve_gguf  # noqa: E402

SIGNALS = ("gen_confidence", "answer_confidence", "abstain_p")
ALIAS = "qwen2.5-coder-1.5b-instruct"
N_CTX = 4096  # graph/config.py's n_ctx default
SEED = 42  # graph/config.py's seed default
WORK = Path("/tmp/model_server_parity")


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(model: Path, port: int) -> list[str]:
    """llama-cpp-python's OpenAI-compatible server with the in-process model's settings."""
    threads = str(os.cpu_count() or 1)
    return [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(N_CTX), "--seed", str(SEED),
        "--n_threads", threads, "--n_threads_batch", threads, "--verbose", "false",
    ]  # fmt: skip


@contextlib.contextmanager
def model_server(model: Path, port: int, ready_s: float, log: Path) -> Iterator[list[str]]:
    """The running server (its command is yielded); terminated, then killed, whatever happens."""
    command = server_command(model, port)
    with log.open("w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + ready_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the model server exited with {proc.returncode}; see {log}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the model server was not ready within {ready_s} s; see {log}")
            time.sleep(1)
        yield command
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)


def eval_command(args: argparse.Namespace, llm: str, out: Path) -> list[str]:
    """`anchorgate eval` on the chosen rows with preset A, no LLM cache."""
    return [
        str(ROOT / ".venv" / "bin" / "anchorgate"), "eval", "--no-progress", "--presets", "A", "--no-llm-cache",
        "--llm", llm, "--dataset", str(args.dataset), "--skip", str(args.skip), "--limit", str(args.limit),
        "--out", str(out),
    ]  # fmt: skip


def run_eval(command: list[str], env: dict[str, str], deadline_s: float, log: Path) -> float:
    """Run one eval (resuming a folder already begun); its wall time in seconds."""
    started = time.monotonic()
    with log.open("a") as out:
        subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=deadline_s, check=True)
    return round(time.monotonic() - started, 1)


def records(out: Path) -> dict[str, dict[str, Any]]:
    """The preset-A records of a run folder by question id."""
    path = out / "A.jsonl"
    return {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if r.get("id")}


def signal_values(record: dict[str, Any]) -> dict[str, list[float | None]]:
    """Each logprob signal's value per gate round (None where the round has none)."""
    gate = (record.get("telemetry") or {}).get("gate") or []
    return {name: [g.get(name) for g in gate] for name in SIGNALS}


def compare(ref: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """One question: which fields are equal, the values where they are not, and the signals' presence."""
    fields = {
        "answer": lambda r: r.get("prediction"),
        "short_answer": lambda r: r.get("short_answer"),
        "decision": lambda r: r.get("decision"),
        "reason": lambda r: r.get("reason"),
        "prompt_tokens": lambda r: (r.get("tokens") or {}).get("prompt"),
        "completion_tokens": lambda r: (r.get("tokens") or {}).get("completion"),
        "calls": lambda r: [
            (c.get("stage"), c.get("prompt"), c.get("completion")) for c in (r.get("telemetry") or {}).get("calls", [])
        ],
    }
    row: dict[str, Any] = {"id": ref["id"], "question": ref.get("question"), "equal": {}, "differences": {}}
    for name, get in fields.items():
        a, b = get(ref), get(other)
        row["equal"][name] = a == b
        if a != b:
            row["differences"][name] = {"in_process": a, "server": b}
    ref_signals, other_signals = signal_values(ref), signal_values(other)
    row["signals_present"] = {
        "in_process": {n: any(v is not None for v in ref_signals[n]) for n in SIGNALS},
        "server": {n: any(v is not None for v in other_signals[n]) for n in SIGNALS},
    }
    gaps = [
        abs(a - b)
        for n in SIGNALS
        for a, b in zip(ref_signals[n], other_signals[n], strict=False)
        if a is not None and b is not None
    ]
    row["signals_max_abs_diff"] = round(max(gaps), 6) if gaps else None
    row["correct"] = {"in_process": ref.get("correct"), "server": other.get("correct")}
    return row


def summarise(ref: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per-question rows and the counts of questions equal on each field."""
    ids = [i for i in ref if i in other]
    rows = [compare(ref[i], other[i]) for i in ids]
    fields = list(rows[0]["equal"]) if rows else []
    counts = {f: sum(r["equal"][f] for r in rows) for f in fields}
    sides = ("in_process", "server")
    presence = {side: {n: sum(r["signals_present"][side][n] for r in rows) for n in SIGNALS} for side in sides}
    diffs = [r["signals_max_abs_diff"] for r in rows if r["signals_max_abs_diff"] is not None]
    return {
        "questions": len(ids),
        "equal": counts,
        "identical_all_fields": sum(all(r["equal"].values()) for r in rows),
        "signals_present": presence,
        "signals_max_abs_diff": max(diffs) if diffs else None,
        "correct": {
            "in_process": sum(bool(r["correct"]["in_process"]) for r in rows),
            "server": sum(bool(r["correct"]["server"]) for r in rows),
        },
        "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=DATASETS / "nq_open_oracle")
    parser.add_argument("--skip", type=int, default=250)
    parser.add_argument("--limit", type=int, default=270)
    parser.add_argument("--plain", action="store_true", help="also run without ANCHORGATE_OPENAI_LLAMA_CPP")
    parser.add_argument("--ready-s", type=float, default=300.0)
    parser.add_argument("--deadline-s", type=float, default=5400.0, help="bound on each eval run")
    args = parser.parse_args()

    WORK.mkdir(parents=True, exist_ok=True)
    model = resolve_gguf("local")
    base_env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    base_env.pop("ANCHORGATE_OPENAI_LLAMA_CPP", None)
    runs: dict[str, dict[str, Any]] = {}

    port = free_port()
    with model_server(model, port, args.ready_s, WORK / "server.log") as command:
        server = {"command": shlex.join(command), "llama_cpp_python": _version("llama_cpp_python")}
        served_env = {**base_env, "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": "unused"}
        variants = {"server": {"ANCHORGATE_OPENAI_LLAMA_CPP": "1"}}
        if args.plain:
            variants["server_plain"] = {}
        for name, extra in variants.items():
            out = WORK / name
            cmd = eval_command(args, f"openai:{ALIAS}", out)
            seconds = run_eval(cmd, {**served_env, **extra}, args.deadline_s, WORK / f"{name}.log")
            runs[name] = {"command": shlex.join(cmd), "environment": {"OPENAI_BASE_URL": served_env["OPENAI_BASE_URL"],
                          "OPENAI_API_KEY": "unused", **extra}, "seconds_this_invocation": seconds}  # fmt: skip

    # In-process second: the server is down by then, so the two never compete for the cores.
    local_out = WORK / "in_process"
    local_cmd = eval_command(args, "local", local_out)
    runs["in_process"] = {"command": shlex.join(local_cmd), "seconds_this_invocation": run_eval(
        local_cmd, base_env, args.deadline_s, WORK / "in_process.log")}  # fmt: skip

    reference = records(local_out)
    for name, run in runs.items():  # a folder may have been filled by an earlier, interrupted invocation
        folder = records(local_out if name == "in_process" else WORK / name)
        run["question_seconds_sum"] = round(sum(float(r.get("latency_s") or 0) for r in folder.values()), 1)
    comparisons = {name: summarise(reference, records(WORK / name)) for name in runs if name != "in_process"}
    payload = {
        "what": "preset A, --no-llm-cache, temperature 0: in-process llama.cpp vs the same GGUF behind"
        " llama-cpp-python's OpenAI-compatible server (--llm openai:)",
        "dataset": str(args.dataset),
        "rows": f"{args.skip + 1}-{args.limit}",
        "model_file": str(model),
        "server": server,
        "runs": runs,
        "run_folders": f"{WORK} (not committed: this file is the record of the run; bench/splits.json lists the rows)",
        "comparisons": comparisons,
    }
    path = write_result("model_server_parity", payload)
    for name, summary in comparisons.items():
        print(f"{name}: {summary['questions']} questions; equal per field {summary['equal']}; "
              f"identical on every field {summary['identical_all_fields']}; "
              f"signals present {summary['signals_present']}; "
              f"largest signal difference {summary['signals_max_abs_diff']}; correct {summary['correct']}")  # fmt: skip
    print(f"wrote {path}")
    return 0


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    raise SystemExit(main())

"""`anchorgate eval --concurrency N` against an OpenAI-compatible server on 127.0.0.1.

The only fake is the server (a thread speaking the chat completions API, as in test_llm_faults.py):
it answers from the question in the prompt after a delay and records how many requests it held at
once. Everything else is real: the ChatOpenAI client, the all-MiniLM-L6-v2 embeddings, an index per
question's own passages (so per-question bundles are replaced while other runs are in flight), the
graph, scoring and the result files. Records are compared without their timings (`latency_s`,
`latency_by_node`), which differ between any two runs.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from anchorgate.eval.cli import main as eval_main
from anchorgate.eval.errors import EvalUsageError
from anchorgate.eval.runner import run_eval
from anchorgate.eval.slots import effective_concurrency
from anchorgate.eval.store import read_records
from tests.fakes import as_quoted, running

DELAY_S = 0.25
FACTS = {
    "owls": ("What do owls hunt at night?", "Owls hunt mice at night.", "mice"),
    "tea": ("What is green tea brewed from?", "Green tea is brewed from the leaves of Camellia sinensis.", "leaves"),
    "salmon": ("Where do salmon spawn?", "Salmon spawn in the rivers where they hatched.", "rivers"),
    "bats": ("How do bats find insects?", "Bats find insects by echolocation.", "echolocation"),
    "bees": ("What do bees make?", "Bees make honey from nectar.", "honey"),
    "moles": ("Where do moles live?", "Moles live in tunnels under the ground.", "tunnels"),
}
ITEMS = [
    {"id": key, "question": q, "answers": [gold], "passages": [{"id": key, "title": key.title(), "text": text}],
     "gold_passage_ids": [key]}
    for key, (q, text, gold) in FACTS.items()
]  # fmt: skip
PRESETS = ["baseline", "A", "peer"]
CACHE_DIR: list[Path] = []


class ChatServer(ThreadingHTTPServer):
    """Chat completions answered from the prompt's question after `DELAY_S`; counts requests in flight."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.in_flight = self.max_in_flight = self.requests = 0
        self.fail_words: set[str] = set()

    def reset(self) -> None:
        with self.lock:
            self.max_in_flight = self.requests = 0


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 — the base class's signature
        """Quiet."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        with self.server.lock:
            self.server.requests += 1
            self.server.in_flight += 1
            self.server.max_in_flight = max(self.server.max_in_flight, self.server.in_flight)
        try:
            time.sleep(DELAY_S)
            if any(word in prompt for word in self.server.fail_words):
                self._send(500, {"error": {"message": "fake failure", "type": "test"}})
            else:
                self._send(200, _completion(str(body.get("model")), _reply(prompt)))
        finally:
            with self.server.lock:
                self.server.in_flight -= 1

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _reply(prompt: str) -> str:
    """The fact of the question asked (the last 'Question:' line), cited, in the shape the prompt asks for."""
    if "Verdict" in prompt:
        return "SUPPORTED"
    asked = re.findall(r"Question: (.+)", prompt)
    question = asked[-1].strip() if asked else ""
    fact = next((text for q, text, _ in FACTS.values() if q == question), "")
    answer = f"{fact[:-1]} [1]." if fact else "I don't know."
    return as_quoted(answer) if "QUOTE [n]" in prompt else answer


def _completion(model: str, text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-c", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                         "logprobs": None}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}}  # fmt: skip


@contextlib.contextmanager
def serving() -> Iterator[ChatServer]:
    with running(ChatServer()) as server:
        yield server


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    with serving() as running, pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{running.server_port}/v1")
        patch.setenv("OPENAI_API_KEY", "sk-test-dummy-not-a-key")
        yield running


@pytest.fixture(autouse=True)
def fresh_counts(server: ChatServer) -> None:
    server.reset()
    server.fail_words = set()


def _eval(tmp_path: Path, out: str, concurrency: int, **kwargs: Any) -> tuple[dict[str, Any], float]:
    dataset = tmp_path / "facts.jsonl"
    dataset.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    # one cache folder for every run of the module: each question's index is built once
    overrides = {"llm.model": "openai:fake-chat", "resources.cache_dir": str(CACHE_DIR[0]), "llm.max_retries": 0}
    options: dict[str, Any] = {"presets": PRESETS, "progress": False, "llm_cache": "", "overrides": overrides}
    started = time.monotonic()
    summary = run_eval(dataset, out_dir=tmp_path / out, concurrency=concurrency, **{**options, **kwargs})
    return summary, time.monotonic() - started


def _untimed(records: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Records without what depends on the clock."""
    cleaned = {}
    for qid, record in records.items():
        telemetry = {k: v for k, v in record["telemetry"].items() if k != "latency_by_node"}
        cleaned[qid] = {**{k: v for k, v in record.items() if k != "latency_s"}, "telemetry": telemetry}
    return cleaned


def _records(out: Path) -> dict[str, dict[str, dict[str, Any]]]:
    return {preset: _untimed(read_records(out / f"{preset}.jsonl")) for preset in PRESETS}


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory, server: ChatServer) -> tuple[Path, float]:
    """A `--concurrency 1` run (the server held one request at a time): its folder and wall time."""
    CACHE_DIR[:] = [tmp_path_factory.mktemp("cache")]
    root = tmp_path_factory.mktemp("serial")
    server.reset()
    summary, seconds = _eval(root, "one", 1)
    assert summary["concurrency"] == 1 and server.max_in_flight == 1 and server.requests >= len(ITEMS) * 3
    return root / "one", seconds


@pytest.fixture
def reference(serial: tuple[Path, float]) -> dict[str, dict[str, dict[str, Any]]]:
    """The records of the `--concurrency 1` run."""
    return _records(serial[0])


def test_four_in_flight_give_the_records_of_one_at_a_time(
    tmp_path: Path, server: ChatServer, serial: tuple[Path, float], reference: dict[str, Any]
) -> None:
    """Also the issue's check that the server saw concurrent requests (max in flight > 1)."""
    server.reset()
    summary, _ = _eval(tmp_path, "four", 4)
    assert summary["concurrency"] == 4 and summary["new_records"] == dict.fromkeys(PRESETS, len(ITEMS))
    assert server.max_in_flight > 1  # the server really saw concurrent requests
    assert _records(tmp_path / "four") == reference
    assert all(r["decision"] == "STOP" and r["f1"] for preset in reference.values() for r in preset.values())
    metrics = [json.loads((out / "metrics.json").read_text())["presets"] for out in (serial[0], tmp_path / "four")]
    for preset in PRESETS:  # everything but latency is the same number
        assert {k: v for k, v in metrics[0][preset].items() if "latency" not in k} == {
            k: v for k, v in metrics[1][preset].items() if "latency" not in k
        }
    # Wall time is not asserted: on a shared 2-core machine the CPU part of each run (retrieval,
    # scoring) varies more than the server's delay saves; bench/eval_concurrency.py measures it.


def test_a_concurrent_run_resumes_and_retries_its_llm_faults(
    tmp_path: Path, server: ChatServer, reference: dict[str, Any]
) -> None:
    summary, _ = _eval(tmp_path, "resumed", 4, limit=2)  # a first run over the first two questions
    assert summary["new_records"] == dict.fromkeys(PRESETS, 2)
    server.fail_words = {"Bees", "Moles"}  # the server fails these questions' calls (HTTP 500)
    summary, _ = _eval(tmp_path, "resumed", 4)
    assert summary["new_records"] == dict.fromkeys(PRESETS, len(ITEMS) - 2)  # the first two were not asked again
    faulted = {qid for preset in PRESETS for qid, r in read_records(tmp_path / "resumed" / f"{preset}.jsonl").items()
               if r["llm_fault"]}  # fmt: skip
    assert faulted == {"bees", "moles"}
    server.fail_words = set()
    server.reset()
    summary, _ = _eval(tmp_path, "resumed", 4)
    assert summary["new_records"] == dict.fromkeys(PRESETS, 2) and server.requests > 0  # only the faults again
    assert _records(tmp_path / "resumed") == reference
    assert server.max_in_flight > 1


def test_cache_hits_are_counted_per_run_while_others_are_in_flight(
    tmp_path: Path, server: ChatServer, serial: tuple[Path, float]
) -> None:
    cache = str(tmp_path / "llm.sqlite")
    _eval(tmp_path, "cold", 4, llm_cache=cache)
    server.reset()
    _eval(tmp_path, "warm", 4, llm_cache=cache)
    assert server.requests == 0  # every reply came from the cache
    for preset in PRESETS:
        for record in read_records(tmp_path / "warm" / f"{preset}.jsonl").values():
            assert record["llm_cache_hits"] == len(record["telemetry"]["calls"]) > 0


def test_a_local_model_runs_one_question_at_a_time() -> None:
    assert effective_concurrency(4, "openai:gpt") == (4, "")
    for llm in ("local", "local-0.5b", "gguf:/models/x.gguf"):
        count, note = effective_concurrency(8, llm)
        assert count == 1 and "reduced to 1" in note and "one call at a time" in note and llm in note
    with pytest.raises(EvalUsageError) as caught:
        effective_concurrency(0, "openai:gpt")
    assert caught.value.exit_code == 64


def test_the_cli_warns_before_reducing_and_refuses_a_bad_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["eval", "--dataset", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]
    assert eval_main([*base, "--concurrency", "0"]) == 64
    expected = "error: --concurrency must be at least 1 (got 0) (1 runs one question at a time)"
    assert capsys.readouterr().err.strip() == expected
    assert eval_main([*base, "--concurrency", "many"]) == 64
    assert eval_main([*base, "--llm", "local-0.5b", "--concurrency", "3"]) == 66  # then the missing dataset
    err = capsys.readouterr().err
    assert "warning: --concurrency 3 reduced to 1: the local llama.cpp model (local-0.5b)" in err

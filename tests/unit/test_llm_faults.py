"""LLM faults end a run as ABSTAIN with a named reason and exit 69, never as an exit-0 empty answer.

The only fake is the server: a real HTTP server on 127.0.0.1 (a thread) speaking just enough of the
OpenAI chat API to fail in each named way. Every run goes through the CLI (`run([...])`) with
`--llm openai:<name>`, the real `langchain-openai` ChatOpenAI client, the real embeddings and a real
index of a small corpus. OPENAI_BASE_URL and a dummy OPENAI_API_KEY are set only inside each test.
The server picks its behaviour from the requested model's name (`<mode>.<tag>.<port>`): a name is
unique per case, so no cached services bundle of another case (or another server) is reused.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from anchorgate.cli import run
from anchorgate.graph.config import Config
from anchorgate.tools.llm.faults import FAULT_REASONS, RetryPolicy, fault_message
from anchorgate.tools.services import load_index_for
from tests.fakes import running

QUESTION = "What do owls hunt at night?"
ANSWER = "Owls hunt mice at night [1]."
DOCS = {
    "owls.txt": "Owls are nocturnal birds of prey. Owls hunt mice at night.",
    "barn_owls.txt": "Barn owls hunt voles and mice in open fields at night.",
    "owl_flight.txt": "Owls fly silently, which helps them hunt small animals at night.",
    "tea.txt": "Green tea is brewed from the leaves of Camellia sinensis.",
}
TIMEOUT_S = 0.5
HANG_S = 120.0  # far longer than any bound asserted below: a run that ends sooner was ended by its timeout
# generous: a fault run takes ~1 s idle, and 15 s was once exceeded on a machine running two model
# evaluations and another test suite; a timeout that failed would take HANG_S
RUN_BOUND_S = 60.0
LIMITS = [f"llm.timeout_s={TIMEOUT_S}", "llm.max_retries=1", "llm_retry_backoff_s=0.05"]


class FaultServer(ThreadingHTTPServer):
    """OpenAI-compatible chat completions that fail on purpose; counts and times every request per model."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: Counter[str] = Counter()
        self.arrivals: dict[str, list[float]] = {}
        self.fail_words: set[str] = set()  # mode "mixed": a prompt with one of these words gets HTTP 500
        self.answer = ANSWER  # what a successful completion says
        self.release = threading.Event()
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The OPENAI_BASE_URL of this server."""
        return f"http://127.0.0.1:{self.server_port}/v1"

    def model(self, mode: str, tag: str) -> str:
        """A model name selecting `mode`, unique for (mode, tag, this server)."""
        return f"{mode}.{tag}.{self.server_port}"

    def arrived(self, model: str) -> int:
        """Count a request; returns how many this model has had (this one included)."""
        with self._lock:
            self.requests[model] += 1
            self.arrivals.setdefault(model, []).append(time.monotonic())
            return self.requests[model]


class _Handler(BaseHTTPRequestHandler):
    server: FaultServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 — the base class's signature
        """Quiet: the tests assert on the client's side."""

    def do_POST(self) -> None:
        """One chat completion request, answered the way the model name's mode says."""
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        model = str(body.get("model", ""))
        mode = model.split(".")[0]
        count = self.server.arrived(model)
        prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        if mode == "hang":
            self.server.release.wait(HANG_S)
            return  # no reply at all: the connection closes when the server shuts down
        if mode == "close":
            return  # the connection is closed without a response
        if mode == "malformed":
            self._send(200, b"{not json")
        elif mode.startswith("status-"):
            self._error(int(mode.removeprefix("status-")))
        elif (mode == "flaky" and count == 1) or (mode == "mixed" and any(w in prompt for w in self.server.fail_words)):
            self._error(500)
        else:
            self._send(200, json.dumps(_completion(model, self.server.answer)).encode("utf-8"))

    def _error(self, status: int) -> None:
        self._send(status, json.dumps({"error": {"message": f"fake failure {status}", "type": "test"}}).encode())

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                     "logprobs": None}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 8, "total_tokens": 48},
    }  # fmt: skip


@contextlib.contextmanager
def serving() -> Iterator[FaultServer]:
    """A running FaultServer; hanging handlers are released and the server shut down afterwards."""
    server = FaultServer()
    with running(server, on_stop=server.release.set):
        yield server


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound (so nobody else takes it) but not listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def write_corpus(root: Path) -> Path:
    """The small corpus of these tests, indexed once with the real embeddings (later runs load it)."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    load_index_for(
        Config().replace(**{"resources.corpus": str(docs), "resources.cache_dir": str(root / "cache")}), progress=False
    )
    return docs


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with serving() as running:
        yield running


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("llm_faults"))


def ask(corpus: Path, llm: str, preset: str, *extra: str) -> list[str]:
    """`anchorgate ask` argv on the test corpus with small timeouts and retries."""
    argv = ["ask", QUESTION, "--corpus", str(corpus), "--llm", llm, "--preset", preset,
            "--set", f"resources.cache_dir={corpus.parent / 'cache'}"]  # fmt: skip
    for setting in LIMITS:
        argv += ["--set", setting]
    return [*argv, *extra]


def _env(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-not-a-key")


# mode -> (reason, attempts of the failed generator call with llm_max_retries=1)
FAULTS = {
    "status-500": ("ABSTAIN_LLM_UNAVAILABLE", 2),
    "status-429": ("ABSTAIN_LLM_RATE_LIMITED", 2),
    "hang": ("ABSTAIN_LLM_TIMEOUT", 1),
    "close": ("ABSTAIN_LLM_UNAVAILABLE", 2),
    "malformed": ("ABSTAIN_LLM_MALFORMED", 1),
    "refused": ("ABSTAIN_LLM_UNAVAILABLE", 2),
}


@pytest.mark.parametrize("preset", ["baseline", "A", "B", "C"])
@pytest.mark.parametrize("mode", list(FAULTS))
def test_every_fault_ends_the_run_as_abstain_with_its_reason_and_exit_69(
    mode: str, preset: str, server: FaultServer, corpus: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    reason, attempts = FAULTS[mode]
    model = server.model(mode, preset)
    with closed_port() as port:
        _env(monkeypatch, f"http://127.0.0.1:{port}/v1" if mode == "refused" else server.base_url)
        started = time.monotonic()
        code = run(ask(corpus, f"openai:{model}", preset, "--json"))
        elapsed = time.monotonic() - started
    captured = capsys.readouterr()
    result = json.loads(captured.out)  # --json still prints the record
    errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert code == 69 and len(errors) == 1 and reason in errors[0]
    assert captured.err.rstrip().endswith(errors[0])
    assert (result["decision"], result["reason"]) == ("ABSTAIN", reason)
    assert result["answer"] and not result["citations"] and result["short_answer"] == ""
    fault = result["telemetry"]["llm_fault"]
    assert fault["reason"] == reason and fault["error"]
    assert result["telemetry"]["gate"][-1]["reason"] == reason
    assert elapsed < RUN_BOUND_S
    stages = [c["stage"] for c in result["telemetry"]["calls"]]
    assert set(stages) <= {"rerank", "generate"}  # no judge, reflection or HyDE asked of a failed service
    if preset == "C":  # the reranker asks first; its client made the retries (their number is not reported)
        assert fault["stage"] == "rerank" and fault["attempts"] is None
        assert mode == "refused" or server.requests[model] <= 2 * (1 + 1)
    else:
        assert fault["stage"] == "generate" and fault["attempts"] == attempts and stages == ["generate"]
        assert mode == "refused" or server.requests[model] == attempts


def test_the_readable_output_is_one_error_line_and_no_answer(
    server: FaultServer, corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _env(monkeypatch, server.base_url)
    assert run(ask(corpus, f"openai:{server.model('status-500', 'readable')}", "baseline")) == 69
    captured = capsys.readouterr()
    assert captured.out == ""  # no "I don't know" to mistake for the model's answer
    errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert errors == [captured.err.strip().splitlines()[-1]]
    assert errors[0].startswith("error: the LLM server is unavailable: HTTP 500")
    assert "ABSTAIN_LLM_UNAVAILABLE; generate call, 2 attempts" in errors[0] and "OPENAI_BASE_URL" in errors[0]


def test_a_retried_call_that_succeeds_answers_after_the_backoff(
    server: FaultServer, corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _env(monkeypatch, server.base_url)
    model = server.model("flaky", "retry")
    argv = ask(corpus, f"openai:{model}", "baseline", "--json", "--set", "llm_retry_backoff_s=0.3")
    assert run(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_SINGLE_PASS")
    assert result["answer"] == ANSWER and result["telemetry"]["llm_fault"] is None
    assert result["telemetry"]["calls"][0]["attempts"] == 2 and server.requests[model] == 2
    first, second = server.arrivals[model]
    assert second - first >= 0.3  # the configured backoff was waited


@pytest.mark.parametrize("retries", [0, 2])
def test_the_openai_clients_own_retries_are_not_added_to_ours(
    retries: int, server: FaultServer, corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _env(monkeypatch, server.base_url)
    model = server.model("status-503", f"retries{retries}")
    argv = ask(corpus, f"openai:{model}", "baseline", "--json", "--set", f"llm.max_retries={retries}")
    assert run(argv) == 69
    result = json.loads(capsys.readouterr().out)
    assert result["reason"] == "ABSTAIN_LLM_UNAVAILABLE"
    assert server.requests[model] == 1 + retries == result["telemetry"]["llm_fault"]["attempts"]


def test_fault_names_messages_and_backoff_are_one_documented_set() -> None:
    assert set(FAULT_REASONS.values()) == {
        "ABSTAIN_LLM_UNAVAILABLE", "ABSTAIN_LLM_RATE_LIMITED", "ABSTAIN_LLM_TIMEOUT", "ABSTAIN_LLM_MALFORMED",
        "ABSTAIN_LLM_ERROR",
    }  # fmt: skip
    import anchorgate.tools.llm.faults as module

    assert all(reason in (module.__doc__ or "") for reason in FAULT_REASONS.values())
    policy = RetryPolicy(retries=5, backoff_s=0.5, backoff_max_s=3.0)
    assert [policy.delay(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert RetryPolicy.of(Config().replace(**{"llm.max_retries": 4, "llm.retry_backoff_s[0]": 0.1})) == RetryPolicy(
        4, 0.1, 8.0
    )
    message, hint = fault_message({"stage": "rerank", "fault": "TIMEOUT", "reason": "ABSTAIN_LLM_TIMEOUT",
                                   "error": "Request timed out.", "attempts": None})  # fmt: skip
    assert message == "the LLM did not reply in time: Request timed out. (ABSTAIN_LLM_TIMEOUT; rerank call)"
    assert "llm.timeout_s" in hint


def test_a_fault_after_a_good_draft_ends_the_run_at_the_next_routing_point(
    server: FaultServer, corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _env(monkeypatch, server.base_url)
    server.fail_words = {"YES if the passages"}  # preset B's yes/no judge instructions: only the judge call fails
    server.answer = "Owls mostly order pizza on Tuesdays [1]."  # unsupported: on its own the gate would retrieve more
    try:
        assert run(ask(corpus, f"openai:{server.model('mixed', 'judge')}", "B", "--json")) == 69
    finally:
        server.fail_words, server.answer = set(), ANSWER
    result = json.loads(capsys.readouterr().out)
    calls = result["telemetry"]["calls"]
    # the draft was made, the judge failed, and nothing was asked after it (no reflection, no round 2)
    assert [c["stage"] for c in calls] == ["generate", "judge"] and "fault" not in calls[0]
    assert calls[1]["fault"] == "UNAVAILABLE" and calls[1]["attempts"] == 2
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_LLM_UNAVAILABLE")
    assert result["telemetry"]["llm_fault"]["stage"] == "judge" and not result["citations"]

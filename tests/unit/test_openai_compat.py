"""How `--llm openai:` talks to an OpenAI-compatible server: the request it sends and the logprobs it reads.

The server is a real HTTP server on 127.0.0.1 (a thread) that records each request body and answers
with a fixed completion carrying OpenAI-format logprobs; the client is the real langchain-openai one
built by `load_chat_model`, called through `counted_call` as the agents call it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from anchorgate.tools.llm.calls import counted_call, token_logprobs
from anchorgate.tools.llm.chat_models import load_chat_model
from anchorgate.tools.llm.faults import RetryPolicy
from tests.fakes import running

GRAMMAR = 'root ::= "QUOTE"'
LOGPROBS = {
    "content": [
        {"token": "Mice", "logprob": -0.1, "top_logprobs": [{"token": "Mice", "logprob": -0.1},
                                                            {"token": "Owls", "logprob": -2.5}]},
        {"token": ".", "logprob": -0.01, "top_logprobs": [{"token": "!", "logprob": -4.0},
                                                          {"token": ".", "logprob": -0.01}]},
    ]
}  # fmt: skip


class RecordingServer(ThreadingHTTPServer):
    """Chat completions that record every request body."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies: list[dict[str, Any]] = []


class _Handler(BaseHTTPRequestHandler):
    server: RecordingServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 — the base class's signature
        """Quiet."""

    def do_POST(self) -> None:
        """Record the body; answer with a two-token completion and its logprobs."""
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        self.server.bodies.append(body)
        reply = {
            "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Mice."}, "finish_reason": "stop",
                         "logprobs": LOGPROBS}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14},
        }  # fmt: skip
        data = json.dumps(reply).encode("utf-8")
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextlib.contextmanager
def serving(monkeypatch: pytest.MonkeyPatch, *, llama_cpp: bool) -> Iterator[RecordingServer]:
    """A running RecordingServer, with OPENAI_BASE_URL (and the llama.cpp switch) pointing the client at it."""
    with running(RecordingServer()) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "unused")
        if llama_cpp:
            monkeypatch.setenv("ANCHORGATE_OPENAI_LLAMA_CPP", "1")
        else:
            monkeypatch.delenv("ANCHORGATE_OPENAI_LLAMA_CPP", raising=False)
        yield server


async def _call(model: Any) -> Any:
    return await counted_call(
        model, [HumanMessage("What do owls hunt?")], stage="draft", tokens_left=1000, max_tokens=7,
        grammar=GRAMMAR, retry=RetryPolicy(retries=0),
    )  # fmt: skip


async def test_the_completion_cap_is_sent_as_max_tokens_to_a_compatible_server(monkeypatch: pytest.MonkeyPatch) -> None:
    # llama-cpp-python's server reads only `max_tokens`; langchain-openai sends `max_completion_tokens`.
    with serving(monkeypatch, llama_cpp=False) as server:
        outcome = await _call(load_chat_model("openai:cap-test", max_tokens=64))
    body = server.bodies[-1]
    assert body["max_tokens"] == 7 and body["max_completion_tokens"] == 7
    # Not a llama.cpp server: no grammar and no llama.cpp sampling fields.
    assert "grammar" not in body and "repeat_penalty" not in body
    assert outcome.text == "Mice." and outcome.record["prompt"] == 12 and outcome.record["completion"] == 2


async def test_a_llama_cpp_server_gets_the_grammar_and_no_repeat_penalty(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving(monkeypatch, llama_cpp=True) as server:
        model = load_chat_model("openai:grammar-test")
        assert getattr(model, "supports_grammar", False)
        await _call(model)
    body = server.bodies[-1]
    assert body["grammar"] == GRAMMAR and body["repeat_penalty"] == 1.0 and body["max_tokens"] == 7


async def test_openai_format_logprobs_become_the_per_token_rows_the_gate_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving(monkeypatch, llama_cpp=False):
        outcome = await _call(load_chat_model("openai:logprob-test", top_logprobs=2))
    assert outcome.logprobs == [[-0.1, -2.5], [-0.01, -4.0]]  # highest first, as the local model reports them
    assert outcome.first_tokens == [("Mice", -0.1), ("Owls", -2.5)]


def test_token_logprobs_reads_both_formats_and_tolerates_gaps() -> None:
    local = AIMessage(content="x", response_metadata={"logprobs": [[-0.2, -1.0]]})
    assert token_logprobs(local) == [[-0.2, -1.0]]
    bare = AIMessage(content="x", response_metadata={"logprobs": {"content": [{"token": "x", "logprob": -0.3}]}})
    assert token_logprobs(bare) == [[-0.3]]
    for meta in ({}, {"logprobs": None}, {"logprobs": {"content": None}}, {"logprobs": {"content": []}}):
        assert token_logprobs(AIMessage(content="x", response_metadata=meta)) is None

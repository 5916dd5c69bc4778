"""A real `langgraph dev` server on a free port: run a question over HTTP, stream, read history."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = _free_port()
    binary = Path(sys.executable).parent / "anchorgate"
    process = subprocess.Popen(
        [str(binary), "studio", "--port", str(port)],  # checks the port, then execs `langgraph dev`
        cwd="/",  # the launcher finds the project's studio/langgraph.json itself
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "LANGSMITH_TRACING": "false"},
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(1)
        else:
            pytest.fail("langgraph dev did not start within 180 s")
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


async def test_question_runs_streams_and_keeps_history(server: str) -> None:
    from langgraph_sdk import get_client

    client = get_client(url=server)
    thread = await client.threads.create()
    events = []
    async for part in client.runs.stream(
        thread["thread_id"],
        "anchorgate",
        input={"question": "What does the pass statement do?"},
        context={"preset": "A", "token_budget": 3000, "llm": "local-0.5b"},  # E2E_LLM, for speed
        stream_mode="updates",
    ):
        events.append(part)
    nodes = {name for part in events if isinstance(part.data, dict) for name in part.data}
    assert {"retriever_worker", "generator", "finalizer"} <= nodes, [(p.event, str(p.data)[:300]) for p in events]
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["decision"] in {"STOP", "ABSTAIN"} and state["values"]["tokens"]["total"] > 0
    settings = state["values"]["settings"]  # the preset picked in the context really is preset A
    assert settings["preset"] == "A" and settings["gate"] == "baug" and settings["use_anchors"] is True
    assert settings["token_budget"] == 3000 and settings["llm"] == "local-0.5b"
    history = await client.threads.get_history(thread["thread_id"])
    assert len(history) >= 5


@pytest.mark.parametrize(
    ("context", "question", "message"),
    [
        ({"token_budget": -5}, "What is pass?", "token_budget must not be negative"),
        ({"preset": "Z"}, "What is pass?", "unknown preset 'Z'"),
        ({"tokn_budget": 5}, "What is pass?", "unknown setting 'tokn_budget'"),
        ({"preset": "A"}, "   ", "question"),
    ],
)
async def test_bad_run_requests_get_422_with_a_message_and_store_nothing(
    server: str, context: dict[str, object], question: str, message: str
) -> None:
    from langgraph_sdk import get_client

    client = get_client(url=server)
    thread = await client.threads.create()
    response = httpx.post(
        f"{server}/threads/{thread['thread_id']}/runs/wait",
        json={"assistant_id": "anchorgate", "input": {"question": question}, "context": context},
        timeout=60,
    )
    assert response.status_code == 422 and message in response.json()["detail"], response.text
    assert await client.threads.get_history(thread["thread_id"]) == []
    assert await client.runs.list(thread["thread_id"]) == []


def test_a_port_in_use_is_a_one_line_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(Path(sys.executable).parent / "anchorgate"), "studio", "--port", str(port)],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 64
    assert done.stderr.strip() == f"error: port {port} on 127.0.0.1 is in use (choose another with --port)"

"""The Studio middleware's plumbing over ASGI: 422 answers, rewritten bodies, stored-state lookups."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from anchorgate.graph.presets import load_preset
from anchorgate.studio.app import RunContextMiddleware
from tests.conftest import REPO_ROOT

ASSISTANT = "3f9c1b0e-2a4d-4e6f-8a1b-0c2d3e4f5a6b"
THREAD = "0b5e3b52-5d2c-4d8e-9a51-7a3f0c1d2e3f"
CRON = "7d1e2f3a-4b5c-4d6e-8f9a-0b1c2d3e4f5a"
QUESTION = {"question": "What does the pass statement do?"}
DOCS = str(REPO_ROOT / "docs")  # a corpus folder that exists: a run's corpus is checked for reachability


class FakeLookup:
    """What a server would have stored: one preset-B assistant, one cron on it, one empty thread."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def assistant_context(self, assistant_id: str) -> dict[str, Any] | None:
        self.calls.append(f"assistant {assistant_id}")
        return load_preset("B", {"resources.corpus": DOCS}).to_dict() if assistant_id == ASSISTANT else None

    async def cron_assistant_id(self, cron_id: str) -> str | None:
        self.calls.append(f"cron {cron_id}")
        return ASSISTANT if cron_id == CRON else None

    async def thread_values(self, thread_id: str) -> tuple[bool, Any]:
        self.calls.append(f"thread {thread_id}")
        return (True, {}) if thread_id == THREAD else (False, None)


class Server:
    """The inner app: records the body each request reached it with and answers 200."""

    def __init__(self) -> None:
        self.received: list[Any] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            self.received.append(json.loads(body))
        except json.JSONDecodeError:
            self.received.append(body)  # what the real server would answer 400/422 for
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b"{}"})


@pytest.fixture
def setup() -> tuple[httpx.AsyncClient, Server, FakeLookup]:
    server, lookup = Server(), FakeLookup()
    app = RunContextMiddleware(server, lookup=lookup)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://studio"), server, lookup


async def test_a_bad_body_is_answered_with_422_and_never_reaches_the_server(setup: Any) -> None:
    client, server, _ = setup
    body = {
        "assistant_id": "anchorgate",
        "schedule": "* * * * *",
        "input": {"question": ""},
        "context": {"preset": "Z"},
    }
    response = await client.post("/runs/crons", json=body)
    assert response.status_code == 422
    assert response.json() == {"detail": "unknown preset 'Z' (choose one of baseline, A, B, C)"}
    response = await client.post("/runs/wait", json={"assistant_id": "anchorgate", "input": {}})
    assert response.status_code == 422 and "input has no question" in response.json()["detail"]
    assert server.received == []


async def test_a_good_body_reaches_the_server_with_its_settings_expanded(setup: Any) -> None:
    client, server, lookup = setup
    body = {"assistant_id": ASSISTANT, "input": QUESTION, "context": {"budget.token_budget": 2500}}
    response = await client.post(f"/threads/{THREAD}/runs/stream", json=body)
    assert response.status_code == 200
    expected = load_preset("B", {"resources.corpus": DOCS, "budget.token_budget": 2500}).to_dict()
    assert server.received == [{**body, "context": expected}]
    assert lookup.calls == [f"assistant {ASSISTANT}"]


async def test_batches_cron_updates_and_thread_continuations_use_what_is_stored(setup: Any) -> None:
    client, server, lookup = setup
    batch = [{"assistant_id": "anchorgate", "input": QUESTION}, {"assistant_id": ASSISTANT, "input": {"question": "?"}}]
    response = await client.post("/runs/batch", json=batch)
    assert response.status_code == 422 and "only punctuation" in response.json()["detail"]
    response = await client.patch(f"/runs/crons/{CRON}", json={"context": {"budget.max_rounds": 3}})
    assert (
        response.status_code == 200 and server.received[-1]["context"]["gate"]["round_strategy"] == "auto"
    )  # B, from the cron
    response = await client.post(f"/threads/{THREAD}/runs/wait", json={"assistant_id": "anchorgate"})
    assert response.status_code == 422 and "the thread holds no question yet" in response.json()["detail"]
    missing = "00000000-0000-0000-0000-000000000000"
    response = await client.post(f"/threads/{missing}/runs/wait", json={"assistant_id": "anchorgate"})
    assert response.status_code == 200  # a missing thread: the server's own 404 answers that
    assert lookup.calls == [f"assistant {ASSISTANT}", f"cron {CRON}", f"assistant {ASSISTANT}",
                            f"thread {THREAD}", f"thread {missing}"]  # fmt: skip


async def test_other_requests_and_unreadable_json_pass_untouched(setup: Any) -> None:
    client, server, lookup = setup
    assert (await client.post("/runs/crons/search", json={"limit": 1})).status_code == 200
    assert (await client.post("/threads", json={"metadata": {"input": {}}})).status_code == 200
    response = await client.post("/runs/wait", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 200  # the server answers bad JSON with its own message
    assert server.received == [{"limit": 1}, {"metadata": {"input": {}}}, b"{not json"] and lookup.calls == []


async def test_the_in_process_client_root_path_is_ignored_when_matching() -> None:
    server = Server()
    app = RunContextMiddleware(server, lookup=FakeLookup())
    noauth = httpx.AsyncClient(transport=httpx.ASGITransport(app=app, root_path="/noauth"), base_url="http://studio")
    response = await noauth.post("/noauth/runs", json={"assistant_id": "anchorgate", "input": {}})
    assert response.status_code == 422 and server.received == []

"""A real `langgraph dev` server on a free port: run a question over HTTP, stream, read history.

One server for the whole module (starting one takes a while): it also answers every route that
takes a run input or settings with a bad body (422, nothing stored); `studio/checks.py` is
unit-tested in tests/unit/test_studio_checks.py and the middleware in tests/unit/test_studio_app.py.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from anchorgate.graph.config import field_names
from anchorgate.graph.presets import load_preset

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
        # the context as Studio's form sends it: by group (E2E_LLM, for speed)
        context={"preset": "A", "budget": {"token_budget": 3000}, "llm": {"model": "local-0.5b"}},
        stream_mode="updates",
    ):
        events.append(part)
    nodes = {name for part in events if isinstance(part.data, dict) for name in part.data}
    assert {"retriever_worker", "generator", "finalizer"} <= nodes, [(p.event, str(p.data)[:300]) for p in events]
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["decision"] in {"STOP", "ABSTAIN"} and state["values"]["tokens"]["total"] > 0
    settings = state["values"]["settings"]  # the preset picked in the context really is preset A
    assert settings["preset"] == "A" and settings["gate"]["mode"] == "baug" and settings["retrieval"]["use_anchors"]
    assert settings["budget"]["token_budget"] == 3000 and settings["llm"]["model"] == "local-0.5b"
    history = await client.threads.get_history(thread["thread_id"])
    assert len(history) >= 5
    # no input: the run goes on from the thread's checkpoint, which holds a question (nothing left to do)
    body = {"assistant_id": "anchorgate", "context": {"preset": "A", "llm.model": "local-0.5b"}}
    response = httpx.post(f"{server}/threads/{thread['thread_id']}/runs/wait", json=body, timeout=120)
    assert response.status_code == 200 and response.json()["decision"] == state["values"]["decision"], response.text


@pytest.mark.parametrize(
    ("context", "question", "message"),
    [
        ({"budget.token_budget": -5}, "What is pass?", "token_budget must not be negative"),
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


GRAPH = "anchorgate"
ASK = {"question": "What does the pass statement do?"}
NEVER = "0 0 1 1 *"  # crons made here are disabled too: they must never start a run


@pytest.fixture(scope="module")
def stored(server: str) -> Iterator[dict[str, str]]:
    """A thread, a preset-B assistant (budget 2500) and a cron on it, for the routes that update them."""
    thread = httpx.post(f"{server}/threads", json={}).json()["thread_id"]
    settings = {"preset": "B", "budget.token_budget": 2500}
    made = httpx.post(f"{server}/assistants", json={"graph_id": GRAPH, "context": settings})
    assert made.status_code == 200, made.text
    assistant = made.json()["assistant_id"]
    cron = httpx.post(
        f"{server}/runs/crons", json={"assistant_id": assistant, "schedule": NEVER, "enabled": False, "input": ASK}
    ).json()["cron_id"]
    yield {"thread": thread, "assistant": assistant, "cron": cron}
    httpx.delete(f"{server}/runs/crons/{cron}")
    httpx.delete(f"{server}/assistants/{assistant}")
    httpx.delete(f"{server}/threads/{thread}")


def _stored_counts(server: str, thread: str) -> dict[str, int]:
    """How many threads, assistants, crons there are, and the runs and checkpoints of `thread`."""
    counts = {name: httpx.post(f"{server}{path}/count", json={}).json() for name, path in
              (("threads", "/threads"), ("assistants", "/assistants"), ("crons", "/runs/crons"))}  # fmt: skip
    counts["runs"] = len(httpx.get(f"{server}/threads/{thread}/runs").json())
    counts["checkpoints"] = len(httpx.post(f"{server}/threads/{thread}/history", json={}).json())
    return counts


# Every route of the langgraph-api 0.16 HTTP API that takes a run input or run settings, each with a
# body that used to get through (found on main: `POST /runs/crons` stored an empty question with
# an unknown preset, `POST /runs/wait` with `input: {}` answered 200 with an `__error__` body).
def _run(**fields: Any) -> dict[str, Any]:
    """A run body on the graph's own assistant."""
    return {"assistant_id": GRAPH, **fields}


BAD_REQUESTS: list[tuple[str, str, Any, str]] = [
    ("POST", "/runs", _run(input={"question": "what is the of"}), "has only stopwords"),
    ("POST", "/runs/stream", _run(input=ASK, context={"preset": "Z"}), "unknown preset 'Z'"),
    ("POST", "/runs/wait", _run(input={}), "input has no question"),
    ("POST", "/runs/batch", [_run(input=ASK), _run(input={"question": "?"})], "has only punctuation"),
    ("POST", "/runs/crons", _run(schedule=NEVER, input={"question": ""}, context={"preset": "Z"}), "unknown preset"),
    ("POST", "/threads/{thread}/runs", _run(input=ASK, context={"tokn_budget": 5}), "unknown setting 'tokn_budget'"),
    ("POST", "/threads/{thread}/runs/stream", _run(input={"question": "why " * 600}), "the limit is 2000"),
    ("POST", "/threads/{thread}/runs/wait", _run(), "the thread holds no question yet"),
    (
        "POST",
        "/threads/{thread}/runs/crons",
        _run(schedule=NEVER, input=ASK, context={"budget.token_budget": "3000"}),
        "token_budget must be of type int",
    ),
    ("PATCH", "/runs/crons/{cron}", {"input": {**ASK, "preset": "A"}}, "input has unknown key(s) 'preset'"),
    (
        "POST",
        "/assistants",
        {"graph_id": GRAPH, "context": {"preset": "B", "gate": {"mode": "maybe"}}},
        "gate.mode='maybe'",
    ),
    (
        "PATCH",
        "/assistants/{assistant}",
        {"config": {"configurable": {"budget.max_rounds": -1}}},
        "must not be negative",
    ),
]
ROUTE_IDS = [f"{method} {path}" for method, path, *_ in BAD_REQUESTS]


@pytest.mark.parametrize(("method", "path", "body", "message"), BAD_REQUESTS, ids=ROUTE_IDS)
def test_every_route_taking_a_run_input_or_settings_answers_422_and_stores_nothing(
    server: str, stored: dict[str, str], method: str, path: str, body: Any, message: str
) -> None:
    before = _stored_counts(server, stored["thread"])
    response = httpx.request(method, server + path.format(**stored), json=body, timeout=60)
    assert response.status_code == 422 and message in response.json()["detail"], response.text
    assert _stored_counts(server, stored["thread"]) == before


def test_good_settings_are_stored_as_the_full_preset_and_layer_on_the_assistant(
    server: str, stored: dict[str, str]
) -> None:
    assistant = httpx.get(f"{server}/assistants/{stored['assistant']}").json()
    assert (
        assistant["context"] == load_preset("B", {"budget.token_budget": 2500}).to_dict()
    )  # B's parts on, not baseline
    made = httpx.post(f"{server}/threads/{stored['thread']}/runs/crons", json={
        "assistant_id": stored["assistant"], "schedule": NEVER, "enabled": False, "input": ASK,
        "context": {"budget.max_rounds": 3}})  # fmt: skip
    assert made.status_code == 200, made.text
    httpx.delete(f"{server}/runs/crons/{made.json()['cron_id']}")
    assert (
        made.json()["payload"]["context"]
        == load_preset("B", {"budget.token_budget": 2500, "budget.max_rounds": 3}).to_dict()
    )


def test_studio_form_shows_every_group_and_field_with_its_description(server: str) -> None:
    found = httpx.post(f"{server}/assistants/search", json={"graph_id": "anchorgate", "limit": 1}, timeout=30).json()
    schemas = httpx.get(f"{server}/assistants/{found[0]['assistant_id']}/schemas", timeout=30)
    assert schemas.status_code == 200, schemas.text
    context = schemas.json()["context_schema"]
    definitions = context.get("$defs") or context.get("definitions") or {}
    groups = {name: part for name, part in context["properties"].items() if name != "preset"}
    assert set(groups) == {"resources", "retrieval", "budget", "gate", "judge", "answer", "llm"}
    for name, part in groups.items():
        target = part["$ref"].rsplit("/", 1)[-1] if "$ref" in part else None
        if target is None and part.get("allOf"):
            target = part["allOf"][0]["$ref"].rsplit("/", 1)[-1]
        fields = definitions[target]["properties"] if target else part["properties"]
        expected = {f.rsplit(".", 1)[-1] for f in field_names() if f.startswith(f"{name}.")}
        assert set(fields) == expected, name
        assert all(field.get("description") for field in fields.values()), name


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

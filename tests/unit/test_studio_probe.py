"""The black-box probe's Studio cases, one table per kind, through the middleware over ASGI.

Each bad request must be answered 422 with a `detail` naming the problem and never reach the
server (no run, cron, assistant or state stored); the good neighbour of each must reach it.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from anchorgate.studio.app import RunContextMiddleware
from tests.unit.test_studio_app import CRON, DOCS, QUESTION, THREAD, FakeLookup, Server

# Every route that stores a run, a cron or an assistant, with a body that is good as it stands.
RUN = {"assistant_id": "anchorgate", "input": QUESTION}
STORING_ROUTES: list[tuple[str, str, Any]] = [
    ("POST", "/runs", RUN),
    ("POST", "/runs/stream", RUN),
    ("POST", "/runs/wait", RUN),
    ("POST", "/runs/batch", [RUN]),
    ("POST", "/runs/crons", {**RUN, "schedule": "* * * * *"}),
    ("PATCH", f"/runs/crons/{CRON}", {"schedule": "* * * * *"}),
    ("POST", f"/threads/{THREAD}/runs", RUN),
    ("POST", f"/threads/{THREAD}/runs/stream", RUN),
    ("POST", f"/threads/{THREAD}/runs/wait", RUN),
    ("POST", f"/threads/{THREAD}/runs/crons", {**RUN, "schedule": "* * * * *"}),
    ("POST", "/assistants", {"graph_id": "anchorgate"}),
    ("PATCH", f"/assistants/{CRON}", {"name": "renamed"}),
]
UNREACHABLE = [
    ({"llm.model": "bogus:zzz"}, "llm.model='bogus:zzz' cannot be used: unknown model spec 'bogus:zzz'"),
    ({"llm.model": "gguf:/nonexistent/model.gguf"}, "model file /nonexistent/model.gguf does not exist"),
    ({"llm.model": "openai:"}, "unknown model spec 'openai:'"),
    (
        {"resources.corpus": "/nonexistent/dir"},
        "resources.corpus='/nonexistent/dir' cannot be used: corpus path /nonexistent/dir does not",
    ),
    ({"resources.cache_dir": f"{DOCS}/datasets.md/cache"}, "datasets.md is a file"),
]


@pytest.fixture
def studio() -> tuple[httpx.AsyncClient, Server]:
    server = Server()
    app = RunContextMiddleware(server, lookup=FakeLookup())
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://studio"), server


def _with_context(body: Any, context: dict[str, Any]) -> Any:
    """`body` (or each batch item) with `context` set."""
    return [{**item, "context": context} for item in body] if isinstance(body, list) else {**body, "context": context}


async def _send(client: httpx.AsyncClient, method: str, path: str, body: Any) -> httpx.Response:
    return await client.request(method, path, json=body)


@pytest.mark.parametrize(("context", "named"), UNREACHABLE)
@pytest.mark.parametrize(("method", "path", "body"), STORING_ROUTES)
async def test_a_model_corpus_or_cache_that_cannot_be_reached_is_refused_on_every_route(
    studio: Any, method: str, path: str, body: Any, context: dict[str, Any], named: str
) -> None:
    client, server = studio
    response = await _send(client, method, path, _with_context(body, context))
    assert response.status_code == 422, response.text
    assert named in response.json()["detail"]
    assert server.received == []
    good = await _send(client, method, path, _with_context(body, {"resources.corpus": DOCS, "llm.model": "local-0.5b"}))
    assert good.status_code == 200 and len(server.received) == 1


@pytest.mark.parametrize(
    ("path", "body", "named"),
    [
        # the run routes' rule, for crons too: a cron with both would fail at every firing
        (
            "/runs/crons",
            {"context": {"budget.token_budget": 3000}, "config": {"configurable": {"budget.token_budget": "abc"}}},
            "the body has both context and config.configurable",
        ),
        (
            "/runs/crons",
            {"config": {"configurable": {"budget.token_budget": "abc"}}},
            "token_budget must be of type int",
        ),
        (
            f"/threads/{THREAD}/runs/crons",
            {"context": {"preset": "A"}, "config": {"configurable": {"thread_id": "x"}}},
            "both context and config.configurable",
        ),
    ],
)
async def test_context_and_configurable_are_checked_on_crons_as_on_runs(
    studio: Any, path: str, body: dict[str, Any], named: str
) -> None:
    client, server = studio
    response = await client.post(path, json={**RUN, "schedule": "* * * * *", **body})
    assert response.status_code == 422 and named in response.json()["detail"]
    assert server.received == []


@pytest.mark.parametrize(
    ("path", "command", "named"),
    [
        ("/runs/wait", {"update": {"question": ""}}, "the question is empty"),
        ("/runs/wait", {"update": [["question", "   "]]}, "the question is empty"),
        ("/runs/wait", {"update": {"question": 5}}, "the question must be text, got int"),
        ("/runs/wait", {"update": "question"}, "command.update must be a JSON object"),
        ("/runs/wait", {"update": {"round": 2}}, "the run has no input and its command sets no question"),
        ("/runs/wait", {"resume": "yes"}, "command.resume: this graph never pauses for input"),
        ("/runs/stream", {"resume": {"answer": 1}}, "nothing to resume"),
        (f"/threads/{THREAD}/runs/wait", {"resume": "yes"}, "nothing to resume"),
        (f"/threads/{THREAD}/runs/wait", {"update": {"question": "what is the of"}}, "only stopwords"),
        (f"/threads/{THREAD}/runs/wait", {"goto": "finalizer"}, "the thread holds no question yet"),
        ("/runs/wait", ["update"], "command must be a JSON object"),
    ],
)
async def test_a_command_resumes_nothing_and_sets_only_a_real_question(
    studio: Any, path: str, command: Any, named: str
) -> None:
    client, server = studio
    response = await client.post(path, json={"assistant_id": "anchorgate", "command": command})
    assert response.status_code == 422 and named in response.json()["detail"]
    assert server.received == []


async def test_a_command_that_sets_a_real_question_goes_through(studio: Any) -> None:
    client, server = studio
    for command in ({"update": {"question": "What is pass?"}}, {"update": [["question", "What is pass?"]]}):
        response = await client.post("/runs/wait", json={"assistant_id": "anchorgate", "command": command})
        assert response.status_code == 200
    assert [body["command"] for body in server.received] == [
        {"update": {"question": "What is pass?"}},
        {"update": [["question", "What is pass?"]]},
    ]


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"question": "   "}, "the question is empty"),
        ({"question": ""}, "the question is empty"),
        ({"question": None}, "the question must be text, got NoneType"),
        ({"question": "?!"}, "only punctuation"),
        ([{"round": 1}, {"question": "\t"}], "the question is empty"),
    ],
)
async def test_a_state_update_cannot_store_a_blank_question(studio: Any, values: Any, named: str) -> None:
    client, server = studio
    response = await client.post(f"/threads/{THREAD}/state", json={"values": values})
    assert response.status_code == 422 and named in response.json()["detail"]
    assert server.received == []


async def test_a_state_update_with_a_real_question_or_none_goes_through(studio: Any) -> None:
    client, server = studio
    for values in ({"question": "What is pass?"}, {"round": 1}, None):
        response = await client.post(f"/threads/{THREAD}/state", json={"values": values, "as_node": "intake"})
        assert response.status_code == 200
    assert [body["values"] for body in server.received] == [{"question": "What is pass?"}, {"round": 1}, None]
    assert (await client.get(f"/threads/{THREAD}/state")).status_code == 200  # reading state is not checked


async def test_a_thread_run_without_input_is_refused_when_the_stored_question_is_blank() -> None:
    class BlankThread(FakeLookup):
        async def thread_values(self, thread_id: str) -> tuple[bool, Any]:
            return True, {"question": "   "}  # stored before state updates were checked

    server = Server()
    app = RunContextMiddleware(server, lookup=BlankThread())
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://studio")
    response = await client.post(f"/threads/{THREAD}/runs/wait", json={"assistant_id": "anchorgate"})
    assert response.status_code == 422 and "the question is empty" in response.json()["detail"]
    assert server.received == []

"""Two `anchorgate serve` processes on one PostgreSQL (checkpoints and pgvector retrieval): one state.

Both run the packaged 0.5B model over a small corpus whose collection lives in the shared server.
A thread answered on one instance is listed, replayed and resumed on the other; a run cut off by its
client leaves a checkpoint the other instance resumes; and while one instance writes a thread, the
same thread asked on the other is refused with 409 (the thread lock is PostgreSQL's, not a file's).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest

from tests.conftest import E2E_LLM
from tests.e2e.serve_helpers import call, serving
from tests.unit.pg_helpers import corpus_folder, fresh_database

pytestmark = pytest.mark.e2e
QUESTION = "What does the barn owl hunt?"
DOCS = {
    "owls.txt": "The barn owl hunts voles and mice at night. It swallows its prey whole.",
    "tea.txt": "Green tea is brewed from the leaves of Camellia sinensis at about 80 degrees.",
}


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    root = tmp_path_factory.mktemp("serve_two")
    url = fresh_database("servetwo")
    corpus = corpus_folder(root, DOCS)
    args = ["--llm", E2E_LLM, "--corpus", str(corpus), "--set", f"resources.checkpoint_db={url}",
            "--set", f"resources.vector_store={url}", "--set", f"resources.cache_dir={root / 'cache'}"]  # fmt: skip
    with ExitStack() as stack:
        first = stack.enter_context(serving(args, root / "first.log"))
        second = stack.enter_context(serving(args, root / "second.log"))
        yield first, second


def events_until(lines: Iterator[str], stop_after: str) -> list[dict[str, object]]:
    """Read server-sent events from one line iterator of a response until one named `stop_after` (or the end).

    One iterator for the whole response: a second `iter_lines()` is refused, and the first, once
    dropped, closes the connection (the server then cancels the run).
    """
    seen: list[dict[str, object]] = []
    for line in lines:
        if line.startswith("data:"):
            seen.append(json.loads(line[5:]))
            if seen[-1].get("event") == stop_after or seen[-1].get("node") == stop_after:
                break
    return seen


def test_a_thread_moves_between_instances(two: tuple[str, str]) -> None:
    first, second = two
    status, asked = call(first, "POST", "/v1/ask", {"question": QUESTION, "thread_id": "moving"})
    assert status == 200 and asked["decision"] == "STOP" and "voles" in asked["answer"]
    status, history = call(second, "GET", "/v1/threads/moving/history")
    assert status == 200 and history["question"] == QUESTION and history["outcome"]["answer"] == asked["answer"]
    before_generation = next(r for r in history["checkpoints"] if r["next"] == ["generator"])
    body = {"checkpoint_id": before_generation["checkpoint_id"], "overrides": {"budget.token_budget": 30}}
    status, forked = call(second, "POST", "/v1/threads/moving/replay", body)
    assert status == 200 and (forked["decision"], forked["reason"]) == ("ABSTAIN", "ABSTAIN_BUDGET")
    assert forked["before"]["answer"] == asked["answer"]
    status, again = call(first, "GET", "/v1/threads/moving/history")
    assert again["outcome"]["decision"] == "ABSTAIN"  # the fork made on the second is the first's latest too
    status, resumed = call(first, "POST", "/v1/threads/moving/resume")
    assert status == 200 and resumed["resumed"] is False and resumed["decision"] == "ABSTAIN"


def test_a_run_cut_off_on_one_is_resumed_on_the_other(two: tuple[str, str]) -> None:
    first, second = two
    with (
        httpx.Client(timeout=900) as client,
        client.stream("POST", first + "/v1/ask/stream", json={"question": QUESTION, "thread_id": "cut"}) as response,
    ):
        assert response.status_code == 200
        events_until(response.iter_lines(), "fuse_and_select")  # then the client goes away, mid-run
    status, resumed = 409, None
    for _ in range(600):  # the first instance lets go of the thread once it sees the client gone
        status, resumed = call(second, "POST", "/v1/threads/cut/resume")
        if status != 409:
            break
    assert status == 200, resumed
    assert resumed["resumed"] is True and "generator" in resumed["nodes_run"]
    assert resumed["decision"] == "STOP" and "voles" in resumed["answer"]


def test_the_same_thread_on_both_at_once_is_refused_on_one(two: tuple[str, str]) -> None:
    first, second = two
    with (
        httpx.Client(timeout=900) as client,
        client.stream("POST", first + "/v1/ask/stream", json={"question": QUESTION, "thread_id": "race"}) as response,
    ):
        assert response.status_code == 200
        lines = response.iter_lines()
        assert events_until(lines, "accepted")[0]["thread_id"] == "race"  # the first holds the thread now
        status, refused = call(second, "POST", "/v1/ask", {"question": QUESTION, "thread_id": "race"})
        assert status == 409 and "busy" in refused["detail"]
        final = events_until(lines, "result")[-1]
    assert final["event"] == "result" and final["result"]["decision"] == "STOP"  # type: ignore[index]
    status, after = call(second, "POST", "/v1/ask", {"question": QUESTION, "thread_id": "race"})
    assert status == 200 and after["answer"] == final["result"]["answer"]  # type: ignore[index]

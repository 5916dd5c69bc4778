"""The HTTP service's routes with a scripted model and a toy index: answers, events, threads, and every refusal."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from anchorgate.graph.config import Config
from anchorgate.serve.app import create_app
from anchorgate.serve.requests import ServeSettings
from anchorgate.tools.checkpoints.lock import thread_lock
from tests.unit.test_threads import _model, _overrides

QUESTION = "What do owls hunt?"


@pytest.fixture()
def defaults(tmp_path: Path) -> dict[str, Any]:
    return _overrides(tmp_path, _model())


@pytest.fixture()
def client(defaults: dict[str, Any]) -> Iterator[TestClient]:
    with TestClient(create_app(ServeSettings(defaults=defaults))) as test_client:
        yield test_client


def stream_events(client: TestClient, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of one `/v1/ask/stream` response."""
    events, name = [], ""
    with client.stream("POST", "/v1/ask/stream", json=body) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                events.append((name, json.loads(line.split(":", 1)[1])))
    return events


def test_ask_returns_the_cli_record_with_a_thread(client: TestClient) -> None:
    response = client.post("/v1/ask", json={"question": QUESTION, "thread_id": "owls-1"})
    assert response.status_code == 200
    record = response.json()
    assert record["decision"] == "STOP" and "[1]" in record["answer"] and record["thread_id"] == "owls-1"
    assert record["citations"][0]["quote"] == "Owls hunt mice at night."
    assert {"answer", "short_answer", "citations", "reason", "rounds", "tokens", "telemetry", "checkpointed",
            "latency_s"} <= set(record)  # fmt: skip


def test_the_stream_reports_progress_decisions_tokens_and_the_record(client: TestClient) -> None:
    events = stream_events(
        client, {"question": QUESTION, "thread_id": "owls-2", "settings": {"budget.token_budget": 900}}
    )
    names = [name for name, _ in events]
    assert names[0] == "accepted" and names[-1] == "result"
    assert events[0][1]["budget"] == 900 and events[0][1]["thresholds"]["overlap"]["setting"] == "gate.overlap_tau"
    assert names.index("node_finished") < names.index("gate_decision") < names.index("result")
    gate = next(data for name, data in events if name == "gate_decision")
    assert gate["action"] == "STOP" and gate["reason"] == "STOP_OVERLAP_OK" and gate["signals"]["overlap"] == 1.0
    spends = [data for name, data in events if name == "tokens"]
    assert spends[-1]["spent"] > 0 and all(s["budget"] == 900 for s in spends)
    assert any(name == "reader" and "Owls hunt mice" in data["text"] for name, data in events)
    result = events[-1][1]
    cited = result["result"]["citations"][0]
    assert result["passages"][cited["id"]]["text"].count(cited["quote"]) == 1
    assert set(result["result"]) == set(client.post("/v1/ask", json={"question": QUESTION}).json())


def test_history_replay_resume_and_delete(client: TestClient) -> None:
    assert client.post("/v1/ask", json={"question": QUESTION, "thread_id": "t-1"}).status_code == 200
    history = client.get("/v1/threads/t-1/history").json()
    assert history["question"] == QUESTION and history["outcome"]["decision"] == "STOP"
    before_generation = next(r for r in history["checkpoints"] if r["next"] == ["generator"])
    body = {"checkpoint_id": before_generation["checkpoint_id"], "overrides": {"budget.token_budget": 30}}
    forked = client.post("/v1/threads/t-1/replay", json=body).json()
    assert (forked["decision"], forked["reason"]) == ("ABSTAIN", "ABSTAIN_BUDGET")
    assert forked["before"]["decision"] == "STOP" and "passages" in forked
    resumed = client.post("/v1/threads/t-1/resume").json()
    assert resumed["resumed"] is False and resumed["decision"] == "ABSTAIN"
    assert client.delete("/v1/threads/t-1").status_code == 204
    assert client.get("/v1/threads/t-1/history").status_code == 404
    assert client.delete("/v1/threads/t-1").status_code == 404


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"question": ""}, "question is empty"),
        ({"question": "   "}, "question"),
        ({"question": 5}, "question"),
        ({}, "question is missing"),
        ({"question": QUESTION, "preset": "Z"}, "preset"),
        ({"question": QUESTION, "settings": {"token_budgt": 5}}, "unknown setting 'token_budgt'"),
        ({"question": QUESTION, "settings": {"budget.token_budget": "5"}}, "token_budget must be of type int"),
        ({"question": QUESTION, "settings": {"budget.token_budget": -1}}, "token_budget"),
        ({"question": QUESTION, "settings": {"resources.corpus": "/etc"}}, "may not set resources.corpus"),
        (
            {"question": QUESTION, "settings": {"resources.checkpoint_db": "/tmp/x.sqlite"}},
            "may not set resources.checkpoint_db",
        ),
        ({"question": QUESTION, "colour": "red"}, "unknown field 'colour'"),
        ({"question": QUESTION, "thread_id": "../../etc/passwd"}, "not allowed"),
        ({"question": QUESTION, "thread_id": "a..b"}, "not allowed"),
        ({"question": QUESTION, "thread_id": ""}, "blank"),
    ],
)
@pytest.mark.parametrize("route", ["/v1/ask", "/v1/ask/stream"])
def test_bad_input_is_422_with_a_one_line_detail_and_nothing_stored(
    client: TestClient, defaults: dict[str, Any], route: str, body: dict[str, Any], words: str
) -> None:
    response = client.post(route, json=body)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and words in detail and "\n" not in detail
    assert not Path(defaults["resources.checkpoint_db"]).exists()  # no thread was written, not even the store


def test_malformed_json_and_huge_bodies(client: TestClient) -> None:
    bad = client.post("/v1/ask", content=b'{"question": ', headers={"content-type": "application/json"})
    assert bad.status_code == 422 and "not valid JSON" in bad.json()["detail"]
    huge = client.post("/v1/ask", json={"question": "owls " * 40_000})
    assert huge.status_code == 413 and "larger than" in huge.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no content-length: counted as it arrives
        yield b'{"question": "'
        for _ in range(200):
            yield b"x" * 1024
        yield b'"}'

    chunked = client.post("/v1/ask", content=chunks(), headers={"content-type": "application/json"})
    assert chunked.status_code == 413


def test_a_busy_thread_is_409_on_every_writing_route(client: TestClient, defaults: dict[str, Any]) -> None:
    assert client.post("/v1/ask", json={"question": QUESTION, "thread_id": "busy"}).status_code == 200
    with thread_lock(Config().replace(**defaults), "busy"):
        for method, path, body in [
            ("POST", "/v1/ask", {"question": QUESTION, "thread_id": "busy"}),
            ("POST", "/v1/ask/stream", {"question": QUESTION, "thread_id": "busy"}),
            ("POST", "/v1/threads/busy/resume", None),
            ("DELETE", "/v1/threads/busy", None),
        ]:
            response = client.request(method, path, json=body)
            assert response.status_code == 409 and "busy" in response.json()["detail"], (path, response.text)
    assert client.post("/v1/threads/busy/resume").status_code == 200  # free again once the run has gone


def test_thread_ids_in_paths_are_checked(client: TestClient) -> None:
    for path in ["/v1/threads/a..b/history", "/v1/threads/%2E%2E/history", "/v1/threads/x%00y/history"]:
        response = client.get(path)
        assert response.status_code in (404, 422) and "Traceback" not in response.text
    assert client.get("/v1/threads/..%2F..%2Fetc%2Fpasswd/history").status_code in (404, 422)
    assert client.get("/v1/threads/never-asked/history").status_code == 404


def test_an_api_key_is_required_when_set_and_reveals_nothing(defaults: dict[str, Any]) -> None:
    app = create_app(ServeSettings(defaults=defaults, api_key="s3cret"))
    with TestClient(app) as client:
        good = {"Authorization": "Bearer s3cret"}
        assert client.post("/v1/ask", json={"question": QUESTION, "thread_id": "k1"}, headers=good).status_code == 200
        known = client.get("/v1/threads/k1/history", headers={"Authorization": "Bearer wrong"})
        unknown = client.get("/v1/threads/k2/history", headers={"Authorization": "Bearer wrong"})
        assert known.status_code == unknown.status_code == 401 and known.json() == unknown.json()
        assert client.get("/v1/threads/k1/history").status_code == 401
        assert client.get("/metrics").status_code == 401
        assert client.get("/healthz").status_code == 200 and client.get("/").status_code == 200
        assert client.get("/v1/threads/k1/history", headers=good).status_code == 200


def test_cors_only_when_configured(defaults: dict[str, Any], client: TestClient) -> None:
    origin = {"Origin": "http://elsewhere.example", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in client.options("/v1/ask", headers=origin).headers
    app = create_app(ServeSettings(defaults=defaults, cors_origins=("http://elsewhere.example",)))
    with TestClient(app) as allowed:
        headers = allowed.options("/v1/ask", headers=origin).headers
        assert headers["access-control-allow-origin"] == "http://elsewhere.example"


def totals_by(families: dict[str, Any], name: str, *labels: str) -> dict[tuple[str, ...], float]:
    """The `_total` samples of counter `name`, by the values of `labels`."""
    samples = families[name].samples
    return {tuple(s.labels[k] for k in labels): s.value for s in samples if s.name.endswith("_total")}


def test_metrics_parse_and_count_decisions_tokens_and_requests(client: TestClient) -> None:
    client.post("/v1/ask", json={"question": QUESTION})
    client.post("/v1/ask", json={"question": ""})
    families = {f.name: f for f in text_string_to_metric_families(client.get("/metrics").text)}
    assert totals_by(families, "anchorgate_gate_decisions", "action", "reason")[("STOP", "STOP_OVERLAP_OK")] == 1
    tokens = totals_by(families, "anchorgate_tokens", "kind")
    assert tokens[("prompt",)] > 0 and tokens[("completion",)] > 0
    requests = totals_by(families, "anchorgate_requests", "route", "status")
    assert requests[("/v1/ask", "200")] == 1 and requests[("/v1/ask", "422")] == 1
    runs = families["anchorgate_run_seconds"].samples
    assert any(s.name == "anchorgate_run_seconds_count" and s.value == 1 for s in runs)


def test_schema_page_and_probes_need_no_cdn(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/v1/ask", "/v1/ask/stream", "/v1/threads/{thread_id}/replay"} <= set(schema["paths"])
    assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
    page = client.get("/")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    for path in ["/", "/static/app.js", "/static/style.css"]:
        text = client.get(path).text
        assert "http://" not in text and "https://" not in text  # nothing loaded from elsewhere
        assert not any(sink in text for sink in (".innerHTML =", ".outerHTML", "insertAdjacentHTML", "document.write"))
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["chunks"] == 2


def test_readyz_names_what_failed_to_load(tmp_path: Path) -> None:
    settings = ServeSettings(
        defaults={"resources.corpus": str(tmp_path / "missing"), "resources.cache_dir": str(tmp_path)}
    )
    with TestClient(create_app(settings)) as client:
        for _ in range(200):
            ready = client.get("/readyz")
            if ready.json()["status"] != "loading":
                break
        assert ready.status_code == 503 and "missing" in ready.json()["detail"]

"""A run whose model server cannot be reached is HTTP 503 naming the fault, through the real OpenAI client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from anchorgate.serve.app import create_app
from anchorgate.serve.requests import ServeSettings
from tests.unit.test_llm_faults import QUESTION, closed_port, write_corpus


def test_an_unreachable_model_server_is_503_with_the_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = write_corpus(tmp_path)
    defaults = {
        "llm.model": "openai:absent-model",
        "resources.corpus": str(corpus),
        "resources.cache_dir": str(tmp_path / "cache"),
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "llm.max_retries": 0,
    }
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-not-a-key")
    with closed_port() as port:
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
        with TestClient(create_app(ServeSettings(defaults=defaults))) as client:
            response = client.post("/v1/ask", json={"question": QUESTION, "thread_id": "down"})
            assert response.status_code == 503
            body = response.json()
            assert body["reason"] == "ABSTAIN_LLM_UNAVAILABLE" and "ABSTAIN_LLM_UNAVAILABLE" in body["detail"]
            assert body["thread_id"] == "down"
            with client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as stream:
                names = [line.split(":", 1)[1].strip() for line in stream.iter_lines() if line.startswith("event:")]
                assert names[0] == "accepted" and names[-2:] == ["error", "result"]
            history = client.get("/v1/threads/down/history").json()  # the faulted run is kept, for resume
            assert history["outcome"]["reason"] == "ABSTAIN_LLM_UNAVAILABLE"
            resumed = client.post("/v1/threads/down/resume")
            assert resumed.status_code == 503 and json.loads(resumed.text)["reason"] == "ABSTAIN_LLM_UNAVAILABLE"

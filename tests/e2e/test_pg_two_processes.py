"""Two app processes sharing one PostgreSQL (retrieval store and checkpoints): no errors, the answers of one.

Each process is a real `python` running `anchorgate.aask` on 24 questions (preset A) with
`vector_store` and `checkpoint_db` both set to one PostgreSQL 18 + pgvector server
(tests/unit/pg_helpers.py), the real embeddings, a corpus folder, and the OpenAI-compatible
loopback server of tests/unit/test_eval_concurrency.py as the model. Both start at once, so they
race to build the collection (one waits on the other's lock) and write checkpoints side by side.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.pg_helpers import fresh_database, pg_server
from tests.unit.test_eval_concurrency import FACTS, serving

pytestmark = pytest.mark.e2e
QUESTIONS = [q for q, _, _ in FACTS.values()] * 4  # 24 asks, 6 distinct questions
SCRIPT = """
import asyncio, json, sys
from anchorgate.api import aask

async def main():
    corpus, url, tag = sys.argv[1], sys.argv[2], sys.argv[3]
    questions = json.loads(sys.argv[4])
    overrides = {"resources.corpus": corpus, "llm.model": "openai:fake-chat", "resources.vector_store": url,
                 "resources.checkpoint_db": url, "resources.cache_dir": sys.argv[5], "llm.max_retries": 0}
    for n, question in enumerate(questions):
        result = await aask(question, preset="A", overrides=overrides, thread_id=f"{tag}-{n}")
        print(json.dumps({"question": question, "answer": result["answer"], "decision": result["decision"],
                          "context": [c["id"] for c in result["telemetry"]["context"]]}), flush=True)

asyncio.run(main())
"""


def _start(corpus: Path, url: str, tag: str, cache: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    argv = [sys.executable, "-c", SCRIPT, str(corpus), url, tag, json.dumps(QUESTIONS), str(cache)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _answers(process: subprocess.Popen[str]) -> list[dict[str, object]]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-3000:]
    assert "Traceback" not in err and "error:" not in err
    return [json.loads(line) for line in out.splitlines()]


def test_two_processes_share_one_store_and_checkpoints(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    for key, (_, text, _) in FACTS.items():
        (corpus / f"{key}.txt").write_text(text + "\n", encoding="utf-8")
    url = fresh_database("twoapps")
    with serving() as server:
        env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_port}/v1",
               "OPENAI_API_KEY": "sk-test-dummy", "HF_HUB_OFFLINE": "1"}  # fmt: skip
        first, second = (_start(corpus, url, tag, tmp_path / "cache", env) for tag in ("a", "b"))
        together = [_answers(first), _answers(second)]
        alone = _answers(_start(corpus, url, "c", tmp_path / "cache", env))
    assert len(alone) == len(QUESTIONS) and together[0] == alone and together[1] == alone
    assert all(r["decision"] == "STOP" and r["context"] for r in alone)
    database = url.rsplit("/", 1)[1]
    assert pg_server().psql("SELECT count(*) FROM anchorgate_collections", database=database).strip() == "1"
    threads = pg_server().psql("SELECT count(DISTINCT thread_id) FROM checkpoints", database=database).strip()
    assert threads == str(3 * len(QUESTIONS))  # every run checkpointed its own thread in the shared server

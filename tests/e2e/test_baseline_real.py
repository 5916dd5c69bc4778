"""End to end through the real parts: llama.cpp Qwen2.5-0.5B (`local-0.5b`), all-MiniLM-L6-v2, FAISS, SQLite.

The `ask` calls pin the `baseline` preset (the API's default is A) and the 0.5B model (E2E_LLM).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import ask
from tests.conftest import E2E_LLM

pytestmark = pytest.mark.e2e
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def _baseline(question: str, checkpoint_db: str) -> dict[str, Any]:
    return ask(question, preset="baseline", overrides={"resources.checkpoint_db": checkpoint_db, "llm.model": E2E_LLM})


@pytest.fixture(scope="module")
def checkpoint_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("ckpt") / "checkpoints.sqlite")


@pytest.fixture(scope="module")
def pass_answer(checkpoint_db: str) -> dict[str, Any]:
    return _baseline("What does the pass statement do?", checkpoint_db)


def test_pass_question_is_answered_from_the_pass_topic(pass_answer: dict[str, Any]) -> None:
    assert pass_answer["decision"] == "STOP"
    assert "pydoc:pass" in [c["id"].split("#")[0] for c in pass_answer["citations"]]
    assert any(w in pass_answer["answer"].lower() for w in ("nothing", "null operation", "placeholder"))
    tokens = pass_answer["tokens"]
    assert tokens["by_stage"]["generate"]["calls"] == 1 and 0 < tokens["total"] <= 2400
    assert pass_answer["telemetry"]["calls"][0]["source"] == "model"


def test_same_question_gives_the_same_retrieval_and_text(pass_answer: dict[str, Any], checkpoint_db: str) -> None:
    again = _baseline("What does the pass statement do?", checkpoint_db)
    assert again["answer"] == pass_answer["answer"]
    assert again["telemetry"]["context"] == pass_answer["telemetry"]["context"]
    assert again["tokens"] == pass_answer["tokens"]


def test_question_the_corpus_cannot_answer_abstains(checkpoint_db: str) -> None:
    result = _baseline("Which team won the 2022 FIFA World Cup football final?", checkpoint_db)
    assert result["decision"] == "ABSTAIN" and result["answer"] == "I don't know"
    assert result["citations"] == []


def test_cli_json_output_has_the_contract(tmp_path: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "anchorgate",
            "ask",
            "What does the while statement do?",
            "--json",
            "--set",
            f"resources.checkpoint_db={tmp_path / 'c.sqlite'}",
            "--thread",
            "cli-1",
            "--llm",
            E2E_LLM,
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    for key in ("answer", "short_answer", "citations", "decision", "reason", "rounds", "tokens", "latency_s"):
        assert key in result
    assert result["thread_id"] == "cli-1" and result["decision"] in {"STOP", "ABSTAIN"}
    assert set(result["tokens"]) >= {"prompt", "completion", "total", "by_stage"}
    for citation in result["citations"]:
        assert set(citation) >= {"id", "title", "source", "quote"}
    assert "Traceback" not in completed.stderr


def test_cli_indexes_a_folder_and_lists_skipped_files(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "turtles.md").write_text("# Turtles\n\nSea turtles lay eggs on sandy beaches.", encoding="utf-8")
    (corpus / "image.txt").write_bytes(b"\x89PNG\x00\x00binary")
    env = {**ENV, "ANCHORGATE_CACHE": str(tmp_path / "cache")}
    completed = subprocess.run(
        [sys.executable, "-m", "anchorgate", "index", str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "indexed 1 documents" in completed.stdout
    assert "image.txt: binary file" in completed.stderr


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["ask", "  "], 64, "the question is empty"),
        (["ask", "q", "--corpus", "/no/such/dir", "--llm", E2E_LLM], 66, "does not exist"),
        (["ask", "q", "--llm", "gguf:/no/such.gguf"], 69, "does not exist"),
        (["ask", "q", "--set", "budget.token_budget=-5"], 78, "must not be negative"),
    ],
)
def test_cli_bad_input_is_one_line_and_an_exit_code(args: list[str], code: int, message: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "anchorgate", *args], capture_output=True, text=True, env=ENV, timeout=600, check=False
    )
    assert completed.returncode == code
    assert message in completed.stderr and "Traceback" not in completed.stderr
    assert completed.stderr.strip().startswith("error:")


def test_a_reply_does_not_depend_on_the_prompt_asked_before_it() -> None:
    # Two prompts sharing a long prefix: llama.cpp would reuse the first one's KV cache for the
    # second, whose logits then differ slightly from a whole evaluation (and greedy ties can flip).
    from langchain_core.messages import HumanMessage, SystemMessage

    from anchorgate.tools.llm.chat_models import load_chat_model

    passage = " ".join(f"Sentence {i}: the pass statement is a null operation, a placeholder." for i in range(30))
    first = [SystemMessage(f"Answer from this passage.\n{passage}"), HumanMessage("What is pass used for?")]
    second = [SystemMessage(f"Answer from this passage.\n{passage}"), HumanMessage("Does pass do anything?")]
    model = load_chat_model(E2E_LLM, max_tokens=12)
    alone = model.invoke(second)
    model.invoke(first)
    after_first = model.invoke(second)
    assert after_first.content == alone.content
    assert after_first.response_metadata["logprobs"] == alone.response_metadata["logprobs"]

"""`anchorgate eval` through the CLI (`run([...])`): exit codes of bad options, and LLM faults kept apart.

A run that hit an LLM fault is not the model's answer: it is counted and listed apart, scored
nowhere, and the next run of the same command asks it again. The server is the only fake (a real
HTTP server on 127.0.0.1, see `test_llm_faults`); the client, embeddings and indexes are real.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anchorgate.cli import run
from anchorgate.eval.store import read_records
from tests.unit.test_llm_faults import FaultServer, serving

OWLS = {"id": "owls", "title": "Owls", "text": "Owls are nocturnal birds of prey. Owls hunt mice at night."}
TEA = {"id": "tea", "title": "Tea", "text": "Green tea is brewed from the leaves of Camellia sinensis."}
ITEMS: list[dict[str, Any]] = [
    {"id": "q1", "question": "What do owls hunt at night?", "answers": ["mice"], "passages": [OWLS]},
    {"id": "q2", "question": "What is green tea brewed from?", "answers": ["leaves of Camellia sinensis"],
     "passages": [TEA]},
]  # fmt: skip


def _dataset(tmp_path: Path, items: list[dict[str, Any]] = ITEMS) -> Path:
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def _errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


def test_out_naming_a_file_is_one_error_line_and_exit_73(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "results.txt"
    target.write_text("not a folder\n", encoding="utf-8")
    argv = ["eval", "--dataset", str(_dataset(tmp_path)), "--presets", "baseline", "--no-progress"]
    assert run([*argv, "--out", str(target)]) == 73
    errors = _errors(capsys.readouterr().err)
    assert errors == [f"error: --out {target} is a file, not a folder (name a folder; it is created if missing)"]
    assert target.read_text(encoding="utf-8") == "not a folder\n"  # untouched
    assert run([*argv, "--out", str(target / "sub")]) == 73  # a folder under a file cannot be made either
    errors = _errors(capsys.readouterr().err)
    assert len(errors) == 1 and errors[0].startswith(f"error: cannot create the output folder {target / 'sub'}: ")


@pytest.mark.parametrize("limit", ["0", "-3", "five"])
def test_a_limit_below_one_is_a_usage_error_before_anything_else(
    limit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(_dataset(tmp_path)), "--presets", "baseline", "--out", str(out), "--no-progress"]
    assert run([*argv, f"--limit={limit}"]) == 64
    errors = _errors(capsys.readouterr().err)
    assert len(errors) == 1 and errors[0].startswith("error: --limit ")
    assert ("at least 1" in errors[0]) if limit != "five" else ("whole number" in errors[0])
    assert not out.exists()  # nothing was created or asked


def test_the_dataset_is_validated_before_the_output_folder_or_the_presets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "answers": ["x"]}\n', encoding="utf-8")  # no question
    target = tmp_path / "results.txt"
    target.write_text("", encoding="utf-8")
    argv = ["eval", "--dataset", str(bad), "--format", "jsonl", "--presets", "baseline,Z", "--out", str(target)]
    assert run([*argv, "--limit", "1"]) == 65
    errors = _errors(capsys.readouterr().err)
    assert len(errors) == 1 and "bad.jsonl" in errors[0] and "question" in errors[0]


@pytest.fixture(scope="module")
def server() -> Iterator[FaultServer]:
    with serving() as running:
        yield running


def test_llm_faults_are_counted_apart_never_scored_and_retried_on_resume(
    server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-not-a-key")
    model = server.model("mixed", "eval")
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(_dataset(tmp_path)), "--presets", "baseline,peer", "--llm", f"openai:{model}",
            "--out", str(out), "--no-progress", "--no-llm-cache", "--set", f"resources.cache_dir={tmp_path / 'cache'}",
            "--set", "llm.timeout_s=5", "--set", "llm.max_retries=1", "--set", "llm_retry_backoff_s=0.05"]  # fmt: skip
    server.fail_words = {"green tea"}  # the server fails every call about q2
    try:
        assert run(argv) == 0
    finally:
        server.fail_words = set()
    printed = capsys.readouterr().out
    assert "LLM faults 1" in printed and "2 run(s) hit an LLM fault" in printed
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    for preset in ("baseline", "peer"):
        summary = metrics["presets"][preset]
        assert (summary["questions"], summary["llm_faults"]) == (2, 1)
        assert summary["llm_fault_reasons"] == {"ABSTAIN_LLM_UNAVAILABLE": 1}
        # q2 is in no denominator: one scored question, answered, right
        assert summary["scored_questions"] == 1 and summary["idk_count"] == 0 and summary["f1_mean"] > 0
        assert summary["crag_counts"] == {"correct": 1, "missing": 0, "incorrect": 0}
        assert summary["answer_rate_answerable"] == 1.0 and "ABSTAIN_LLM_UNAVAILABLE" not in summary["stop_reasons"]
        assert [e["id"] for e in metrics["llm_faults"][preset]] == ["q2"]
        assert [w["id"] for w in metrics["worst"][preset]] == ["q1"]
        record = read_records(out / f"{preset}.jsonl")["q2"]
        assert record["reason"] == "ABSTAIN_LLM_UNAVAILABLE" and record["llm_fault"]["error"].startswith("HTTP 500")
        assert record["f1"] is None and record["crag_score"] is None and record["abstained"] is None
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## LLM faults" in report and "| baseline | q2 | What is green tea brewed from? |" in report
    assert "are not model output" in report and "LLM faults (not scored" in report

    asked = sum(server.requests.values())
    assert run(argv) == 0  # the same command again: only the faulted runs are asked, and now answered
    assert sum(server.requests.values()) - asked == 2  # q2 for baseline and for peer, nothing else
    assert "hit an LLM fault" not in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    for preset in ("baseline", "peer"):
        assert metrics["presets"][preset]["llm_faults"] == 0 and metrics["llm_faults"][preset] == []
        assert metrics["presets"][preset]["questions"] == metrics["presets"][preset]["scored_questions"] == 2
        assert read_records(out / f"{preset}.jsonl")["q2"]["decision"] == "STOP"


def test_a_failed_call_stops_the_judge_check_with_exit_69_not_a_verdict(
    server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-not-a-key")
    halueval = tmp_path / "qa_toy_data.json"
    halueval.write_text(json.dumps({"knowledge": "Owls hunt mice at night.", "question": "What do owls hunt?",
                                    "right_answer": "Mice", "hallucinated_answer": "Bamboo"}) + "\n")  # fmt: skip
    model = server.model("status-429", "judge-check")
    argv = ["eval", "--dataset", str(halueval), "--judge-check", "--llm", f"openai:{model}", "--no-llm-cache",
            "--out", str(tmp_path / "judge"), "--set", "llm.max_retries=1", "--set", "llm.timeout_s=5"]  # fmt: skip
    assert run(argv) == 69
    errors = _errors(capsys.readouterr().err)
    assert len(errors) == 1 and "rate limiting" in errors[0] and "ABSTAIN_LLM_RATE_LIMITED; judge call" in errors[0]
    assert server.requests[model] == 2  # the client's own retries are llm_max_retries
    assert not (tmp_path / "judge" / "judge_check.json").exists()

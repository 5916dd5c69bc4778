"""`anchorgate eval` through the real parts on ClapNQ: llama.cpp (the 0.5B), MiniLM, FAISS, SQLite, the
ClapNQ answer keys found beside the dataset, and the report with its paired intervals and risk–coverage.

The model's answers are not asserted (a 0.5B answer may be right or wrong); what is asserted is that
every answerable record was scored by its key, that the record's verdict is the scorer's verdict on
the record's own text, and that the report says what the scorer found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anchorgate.eval.scoring.keys import load_answer_keys
from anchorgate.eval.scoring.records import rescore
from anchorgate.eval.store import read_records
from tests.conftest import E2E_LLM

pytestmark = pytest.mark.e2e


def test_clapnq_is_scored_by_its_keys_end_to_end(datasets_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "anchorgate", "eval", "--dataset", str(datasets_dir / "clapnq"),
               "--limit", "4", "--presets", "baseline", "--llm", E2E_LLM, "--out", str(out), "--no-progress",
               "--no-llm-cache"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
                          timeout=1800, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "baseline: right" in done.stdout
    keys = load_answer_keys(datasets_dir / "clapnq_answer_keys" / "answer_keys.jsonl")
    records = read_records(out / "baseline.jsonl")
    assert len(records) == 4
    for qid, record in records.items():
        assert record["scored_by"] == ("answer_key" if record["answerable"] else "none")
        assert rescore(record, keys.get(qid) if record["answerable"] else None) == record  # scored as stored
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["scoring"]["answer_keys"].endswith("clapnq_answer_keys/answer_keys.jsonl")
    summary = metrics["presets"]["baseline"]
    assert summary["right"] + summary["wrong"] + summary["abstained"] == 4
    assert metrics["risk_coverage"]["baseline"]["n"] == 4
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Risk–coverage" in report and "| right |" in report

"""`--ids FILE` (`run_eval(ids=…)`): ask only the listed questions of the selection.

Used to ask a few questions again, or to re-run only the questions a change can touch
(`bench/ablate.py`). Ids outside the selection, a missing file or an empty one are usage errors
(exit 64) before anything is written; run.json records the ids.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorgate.cli import run
from anchorgate.eval.errors import EvalUsageError
from anchorgate.eval.store import RUN_FILE, read_records
from tests.unit.test_eval_skip import _dataset, _errors, _run, no_model  # noqa: F401 (fixture)


def test_only_the_listed_questions_are_asked_in_dataset_order(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = _run(tmp_path, out, ids=["q4", "q2"])
    assert summary["questions"] == 2 and summary["new_records"] == {"baseline": 2}
    assert list(read_records(out / "baseline.jsonl")) == ["q2", "q4"]
    assert json.loads((out / RUN_FILE).read_text(encoding="utf-8"))["ids"] == ["q2", "q4"]


def test_ids_count_within_skip_and_limit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(EvalUsageError, match=r"1 question\(s\) not in the selection: q1") as info:
        _run(tmp_path, out, skip=1, limit=3, ids=["q1", "q2"])  # q1 is skipped
    assert info.value.exit_code == 64 and not out.exists()


@pytest.mark.parametrize(("content", "expected"), [(None, "cannot be read"), ("\n \n", "lists no question id")])
def test_a_missing_or_empty_ids_file_is_one_usage_error_line(
    content: str | None,
    expected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_model: None,  # noqa: F811
) -> None:
    ids = tmp_path / "ids.txt"
    if content is not None:
        ids.write_text(content, encoding="utf-8")
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(_dataset(tmp_path)), "--presets", "baseline", "--out", str(out), "--no-progress"]
    assert run([*argv, "--ids", str(ids)]) == 64
    errors = _errors(capsys.readouterr().err)
    assert len(errors) == 1 and expected in errors[0], errors
    assert not out.exists()

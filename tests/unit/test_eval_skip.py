"""`--skip K` (`load_dataset(skip=K)`, `run_eval(skip=K)`): leave out the first K selected questions.

`--skip 150 --limit 250` evaluates questions 151–250, a held-out split. The skip counts questions
after the language filter, the interleaving of subset files and the removal of duplicate ids, like
the limit; bad values are usage errors (exit 64, one `error:` line); run.json records the skip but
it is not part of a folder's identity, so a folder written before `--skip` existed still resumes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anchorgate.cli import run
from anchorgate.eval.datasets import QAItem, load_dataset
from anchorgate.eval.datasets.io import LoadLog
from anchorgate.eval.datasets.loader import _collect
from anchorgate.eval.errors import EvalUsageError
from anchorgate.eval.runner import run_eval
from anchorgate.eval.store import IDENTITY_KEYS, RUN_FILE, read_records
from tests.unit.test_eval_runner import ITEMS, CountingModel, _factory

# --- the loader -----------------------------------------------------------------------------------


def test_skip_leaves_out_the_first_items_of_the_limit(datasets_dir: Path) -> None:
    folder = datasets_dir / "indonlu_facqa"
    first_five = [item.id for item in load_dataset(folder, limit=5).items]
    skipped = [item.id for item in load_dataset(folder, limit=5, skip=2).items]
    assert len(first_five) == 5 and len(set(first_five)) == 5
    assert skipped == first_five[2:5]  # positions 3..5 of limit=5
    everything = load_dataset(folder).items
    rest = load_dataset(folder, skip=2).items  # no limit: all but the first two
    assert [item.id for item in rest] == [item.id for item in everything[2:]]
    assert load_dataset(folder, limit=5, skip=5).items == ()  # K >= N: nothing


def test_skip_counts_after_the_language_filter_and_the_interleaving(datasets_dir: Path) -> None:
    folder = datasets_dir / "nomiracl"  # relevant / non-relevant files interleaved, two languages
    first = load_dataset(folder, language="id", limit=6).items
    later = load_dataset(folder, language="id", limit=6, skip=3).items
    assert all(item.language == "id" for item in (*first, *later))
    assert [item.id for item in later] == [item.id for item in first[3:]]
    assert {item.answerable for item in first[:2]} == {True, False}  # interleaved, not one file first


def test_skip_counts_questions_after_languages_and_duplicate_ids_are_dropped() -> None:
    def stream(*ids: str) -> Iterator[QAItem]:
        return iter([QAItem(id=i.removesuffix("-id"), question=f"{i}?", language="id" if i.endswith("-id") else "en")
                     for i in ids])  # fmt: skip

    def collect(skip: int, limit: int | None) -> list[str]:
        streams = [stream("a", "b", "x-id", "c"), stream("a", "d", "e")]  # interleaved: a a b d x e c
        items = _collect("nomiracl", streams, True, limit, "en", LoadLog(), skip=skip)
        return [item.id for item in items]

    assert collect(0, None) == ["a", "b", "d", "e", "c"]  # the repeated "a" and the "id" question are gone
    assert collect(2, 4) == ["d", "e"]  # so the skip counts a, b, not a, a or a, b-with-x
    assert collect(4, None) == ["c"]


def test_a_negative_skip_is_refused_by_the_loader(datasets_dir: Path) -> None:
    with pytest.raises(ValueError, match="skip"):
        load_dataset(datasets_dir / "indonlu_facqa", limit=5, skip=-1)


# --- the command line -----------------------------------------------------------------------------


def _dataset(tmp_path: Path, items: list[dict[str, Any]] = ITEMS) -> Path:
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def _errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A usage error stops before any index or model is built: building one fails the test, never loads a model."""
    import anchorgate.eval.runner as runner

    def refuse(*args: Any) -> Any:
        raise AssertionError("a run that should have been refused built its services")

    monkeypatch.setattr(runner, "default_services_factory", refuse)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--skip", "-1"], "error: --skip must be at least 0 (got -1)"),
        (["--skip", "x"], "error: --skip expects a whole number of questions, got 'x'"),
        (["--skip", "5", "--limit", "5"], "error: --skip 5 with --limit 5 leaves no questions"),
        (["--limit", "3", "--skip", "7"], "error: --skip 7 with --limit 3 leaves no questions"),
        (["--skip", "5"], "error: --skip 5 leaves no questions: the dataset has 5"),  # no limit, 5 questions
        (["--skip", "9"], "error: --skip 9 leaves no questions: the dataset has 5"),
    ],
)
def test_bad_skips_are_one_usage_error_line_and_exit_64(
    options: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], no_model: None
) -> None:
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(_dataset(tmp_path)), "--presets", "baseline", "--out", str(out), "--no-progress"]
    assert run([*argv, *options]) == 64
    err = capsys.readouterr().err
    errors = _errors(err)
    assert len(errors) == 1 and errors[0].startswith(expected), errors
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()  # nothing was created or asked


def test_skip_does_not_apply_to_the_judge_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_model: None
) -> None:
    argv = ["eval", "--dataset", str(_dataset(tmp_path)), "--judge-check", "--out", str(tmp_path / "j")]
    assert run([*argv, "--skip", "1"]) == 64
    assert _errors(capsys.readouterr().err)[0].startswith("error: --skip does not apply to --judge-check")


def test_the_help_lists_skip(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--skip K leave out the first K of the selected questions (with --limit N: questions K+1…N)" in text


# --- the run: which questions, run.json, report, and sharing a folder -----------------------------


def _run(tmp_path: Path, out: Path, **kwargs: Any) -> dict[str, Any]:
    options: dict[str, Any] = {"presets": ["baseline"], "progress": False, "llm_cache": str(tmp_path / "llm.sqlite"),
                               "out_dir": out}  # fmt: skip
    options.update(kwargs)
    return run_eval(_dataset(tmp_path), services_factory=_factory(CountingModel(), tmp_path / "idx"), **options)


def _run_json(out: Path) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((out / RUN_FILE).read_text(encoding="utf-8"))
    return payload


def test_a_skip_run_asks_only_its_questions_and_records_the_skip(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = _run(tmp_path, out, limit=4, skip=2)
    assert summary["questions"] == 2 and summary["new_records"] == {"baseline": 2}
    assert sorted(read_records(out / "baseline.jsonl")) == ["q3", "q4"]  # questions 3..4
    settings = _run_json(out)
    assert settings["skip"] == 2 and settings["limit"] == 4
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["dataset"]["skip"] == 2 and metrics["presets"]["baseline"]["questions"] == 2
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "- limit: 4 · skip: 2 (from question 3) · language: all" in report


def test_no_skip_is_recorded_as_zero_and_not_shown_in_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(tmp_path, out, limit=2)
    assert _run_json(out)["skip"] == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "- limit: 2 · language: all" in report and "skip:" not in report


def test_skip_is_not_identity_a_folder_is_shared_and_an_old_run_json_resumes(tmp_path: Path) -> None:
    assert "skip" not in IDENTITY_KEYS and "limit" not in IDENTITY_KEYS
    out = tmp_path / "out"
    _run(tmp_path, out, limit=2)  # questions 1..2
    old = _run_json(out)
    del old["skip"]  # a run.json written before --skip existed
    (out / RUN_FILE).write_text(json.dumps(old), encoding="utf-8")
    summary = _run(tmp_path, out, limit=4, skip=2)  # the held-out questions 3..4 join the same folder
    assert summary["new_records"] == {"baseline": 2}
    assert sorted(read_records(out / "baseline.jsonl")) == ["q1", "q2", "q3", "q4"]
    assert _run_json(out)["skip"] == 2
    again = _run(tmp_path, out, limit=4)  # questions 1..4 are all there: nothing is asked
    assert again["new_records"] == {"baseline": 0} and again["questions"] == 4


def test_run_eval_checks_the_skip_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for kwargs, message in [({"skip": -1}, "at least 0"), ({"skip": 3, "limit": 3}, "leaves no questions"),
                            ({"skip": 5}, "the dataset has 5")]:  # fmt: skip
        with pytest.raises(EvalUsageError, match=message) as info:
            _run(tmp_path, out, **kwargs)
        assert info.value.exit_code == 64
    assert not out.exists()

"""bench/ablate.py: each ablation asks again only the reference questions its rule touched, and its
difference from the reference counts every question of the set (untouched ones unchanged)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
import ablate  # noqa: E402


def _record(qid: str, outcome: str, *, off_topic: bool = False, answer: str = "x") -> dict[str, Any]:
    crag = {"right": 1, "wrong": -1, "abstained": 0}.get(outcome)
    return {"id": qid, "abstained": outcome == "abstained", "crag_score": crag, "short_answer": answer,
            "tokens": {"total": 100}, "llm_fault": None, "language": "en",
            "telemetry": {"gate": [{"reason": "STOP_OVERLAP_OK", "answer_off_topic": off_topic}]}}  # fmt: skip


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "A.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.fixture
def one_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ablate.HeldOutSet:
    held_out = ablate.HeldOutSet("Toy", "toy", 0, 12)
    monkeypatch.setattr(ablate, "REPO", tmp_path)
    monkeypatch.setattr(ablate, "SETS", (held_out,))
    reference = [_record(f"q{i}", "right" if i < 6 else "abstained") for i in range(9)]
    reference += [_record(f"q{i}", "wrong", off_topic=True) for i in range(9, 12)]  # the rule acted here
    _write(tmp_path / ablate.folder(held_out, None), reference)
    (tmp_path / ablate.folder(held_out, None) / "metrics.json").write_text("{}", encoding="utf-8")  # finished
    return held_out


OFF_TOPIC = next(a for a in ablate.ABLATIONS if a.name == "off_topic")


def test_only_touched_questions_are_asked_again(one_set: ablate.HeldOutSet, tmp_path: Path) -> None:
    lines = ablate.commands("python", "/tmp/cache.sqlite", references=False)
    ids_file = tmp_path / ablate.folder(one_set, OFF_TOPIC)
    assert ids_file.with_suffix(".ids").read_text(encoding="utf-8").split() == ["q9", "q10", "q11"]
    assert sum("abstain_off_topic_answers=false" in line for line in lines) == 1
    untouched = next(a for a in ablate.ABLATIONS if a.name == "unanchored")
    assert not any("abstain_unanchored_answers" in line for line in lines)  # touched nothing: not run
    entry = ablate.compare(one_set, untouched)  # compared without a run: the reference is its own answer
    assert entry is not None and entry["touched"] == 0 and entry["outcomes"] == {} and entry["n"] == 12


def test_an_answer_without_gold_is_unscored_not_wrong() -> None:
    assert ablate._outcome(_record("q", "unscored")) == "unscored"
    outcomes = ("right", "wrong", "abstained")
    assert [ablate._outcome(_record("q", o)) for o in outcomes] == list(outcomes)


def test_the_difference_counts_the_whole_set(one_set: ablate.HeldOutSet, tmp_path: Path) -> None:
    assert ablate.compare(one_set, OFF_TOPIC) is None  # its run is missing
    ablated = [_record("q9", "right", answer="y"), _record("q10", "wrong"), _record("q11", "right", answer="z")]
    _write(tmp_path / ablate.folder(one_set, OFF_TOPIC), ablated)
    entry = ablate.compare(one_set, OFF_TOPIC)
    assert entry is not None and entry["n"] == 12 and entry["touched"] == 3
    assert entry["outcomes"] == {"q9": ["wrong", "right"], "q11": ["wrong", "right"]}
    right = ablate._difference([entry], "right")
    wrong = ablate._difference([entry], "wrong")
    assert (right.n, right.diff, wrong.diff) == (12, 2.0, -2.0)

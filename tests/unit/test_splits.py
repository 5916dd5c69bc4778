"""bench/splits.json, the record of which dataset rows informed a setting or rule, and bench/splits.py.

The file must load and validate, say the right things about rows whose history is known (the demo
questions, ClapNQ rows 141-280 run on 2026-11-27), and cover every dataset and every row that any
stored `anchorgate eval` run evaluated, so a new run cannot go unrecorded.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from anchorgate.eval.datasets import load_dataset

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from splits import (  # noqa: E402
    DEFAULT_PATH,
    KINDS,
    SplitsError,
    dataset_key,
    fresh_ranges,
    is_held_out,
    load_splits,
    split_label,
    to_ranges,
    tuned_rows,
)

RUNS = sorted((REPO / "bench" / "results").glob("**/run.json"))


def _write_variant(tmp_path: Path, edit: Mapping[str, Mapping[str, object]]) -> Path:
    """A copy of the committed file with one dataset's fields replaced."""
    raw = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    for key, fields in edit.items():
        raw["datasets"][key].update(fields)
    path = tmp_path / "splits.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_the_committed_file_loads_and_validates() -> None:
    splits = load_splits()
    for key in ("clapnq", "nq_open_oracle", "hotpotqa_sample", "crag_sample", "halueval_qa", "indonlu_facqa",
                "nomiracl/en", "nomiracl/id", "squad2_id_translated", "covid_qa", "falseqa", "nomiracl_zh",
                "cmrc2018", "musique", "demo"):  # fmt: skip
        data = splits.dataset(key)
        assert data.order and data.total_rows > 0
        assert all(entry.evidence and entry.informed and entry.kind in KINDS for entry in data.tuned), key


def test_total_rows_are_what_the_loaders_iterate(datasets_dir: Path) -> None:
    splits = load_splits()
    for key, data in splits.datasets.items():
        if key == "demo":
            ids = [json.loads(line)["id"] for line in (REPO / data.path).read_text(encoding="utf-8").splitlines()]
            assert ids == [f"d{n:02d}" for n in range(1, data.total_rows + 1)]
            continue
        items = load_dataset(datasets_dir / data.path, language=data.language).items
        assert len(items) == data.total_rows, key


def test_clapnq_rows_interleave_answerable_and_unanswerable_as_the_order_says(datasets_dir: Path) -> None:
    items = load_dataset(datasets_dir / "clapnq", limit=6).items
    assert [item.answerable for item in items] == [True, False] * 3


def test_every_demo_question_is_tuned_the_held_out_half_too() -> None:
    assert set(range(21, 46)) <= tuned_rows("demo")
    assert set(range(1, 21)) <= tuned_rows("demo")
    assert not is_held_out("demo", ["d21"])
    assert split_label("demo", 21, 45) == "tuned"


def test_a_malformed_range_is_rejected_with_a_message_naming_it(tmp_path: Path) -> None:
    bad = {"clapnq": {"tuned": [{"rows": ["80-1"], "kind": "outputs", "informed": ["x"], "evidence": ["y"]}]}}
    with pytest.raises(SplitsError, match=r"'clapnq'.*tuned\[0\].*'80-1'"):
        load_splits(_write_variant(tmp_path, bad))
    beyond = {"musique": {"seen_held_out": [{"rows": ["1-61"], "evidence": ["y"]}]}}
    with pytest.raises(ValueError, match=r"'1-61' is outside the dataset's rows 1-60"):
        load_splits(_write_variant(tmp_path, beyond))
    garbled = {"cmrc2018": {"answered": [{"rows": ["1..5"], "what": "x", "evidence": ["y"]}]}}
    with pytest.raises(SplitsError, match=r"'1\.\.5' is not 'a', 'a-b' or 'a-b/s'"):
        load_splits(_write_variant(tmp_path, garbled))


def test_a_seen_row_that_is_also_tuned_is_rejected(tmp_path: Path) -> None:
    overlap = {"clapnq": {"seen_held_out": [{"rows": ["275-285"], "evidence": ["y"]}]}}
    with pytest.raises(SplitsError, match=r"'clapnq'.*seen_held_out\[0\] rows 275-285 are also tuned"):
        load_splits(_write_variant(tmp_path, overlap))


def test_an_incomplete_tuned_entry_is_rejected(tmp_path: Path) -> None:
    no_kind = {"musique": {"tuned": [{"rows": ["1-10"], "informed": ["x"], "evidence": ["y"]}]}}
    with pytest.raises(SplitsError, match=r"'musique'.*'kind' must be one of outputs, gold, text"):
        load_splits(_write_variant(tmp_path, no_kind))
    no_evidence = {"musique": {"tuned": [{"rows": ["1-10"], "kind": "text", "informed": ["x"], "evidence": []}]}}
    with pytest.raises(SplitsError, match=r"'evidence' must be a non-empty list"):
        load_splits(_write_variant(tmp_path, no_evidence))


def test_held_out_only_when_no_row_is_tuned() -> None:
    assert not is_held_out("clapnq", range(275, 285))  # 221-280 chose the free-style fallback's default
    assert not is_held_out("musique", range(1, 31))  # questions 41-70 shaped the multi-hop parser
    assert not is_held_out("musique", range(31, 61))  # 71-100 chose which of A's retrieval values stay
    assert is_held_out("nomiracl_zh", range(125, 251))  # upstream 188-250 only report the Chinese quote check
    assert is_held_out("clapnq", range(331, 361), kinds=("outputs",))  # no answer of these rows informed anything
    assert not is_held_out("clapnq", range(361, 401), kinds=("outputs",))  # 361-400 kept B's own settings
    assert not is_held_out("clapnq", [341], kinds=("outputs", "gold"))  # an answerable row: anchor rules, held-out half
    assert is_held_out("clapnq", [342], kinds=("outputs", "gold"))
    with pytest.raises(ValueError, match="row 401 is not a row of 1-400"):
        is_held_out("clapnq", [401])


def test_split_labels() -> None:
    assert split_label("clapnq", 1, 80) == "tuned"
    assert split_label("cmrc2018", 1, 100) == "held out"
    assert split_label("nomiracl/id", 180, 200) == "mixed"  # 180-190 chose which rules stay
    assert split_label("nq_open_oracle", 101, 160, kinds=("outputs",)) == "tuned"  # the 'mac os' detail
    assert split_label("nq_open_oracle", 251, 1327, kinds=("outputs",)) == "held out"


def test_fresh_rows_are_never_tuned_answered_or_seen() -> None:
    assert fresh_ranges("musique") == []  # 1-30 shaped the multi-hop parser, 31-60 were run through it
    assert fresh_ranges("musique", kinds=("outputs",)) == [(1, 30)]  # no answer read; 31-60 seen by the parser run
    assert fresh_ranges("clapnq") == []  # every row informed something, the language detector included
    assert fresh_ranges("clapnq", kinds=("outputs",)) == []  # 281-400 were answered by held-out runs
    assert fresh_ranges("nq_open_oracle", kinds=("outputs",))[0][0] >= 201  # 161-200 too; more runs only shrink
    assert min(first for first, _ in fresh_ranges("nomiracl/id")) >= 201  # 71-200 went through a retrieval bench
    assert to_ranges({1, 2, 3, 7}) == [(1, 3), (7, 7)]


def test_an_unknown_dataset_key_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"unknown dataset key 'nomiracl'.*nomiracl/en"):
        tuned_rows("nomiracl")
    with pytest.raises(ValueError, match="kinds must be some of"):
        tuned_rows("clapnq", kinds=("labels",))


def test_dataset_keys_of_run_paths() -> None:
    assert dataset_key("/work/shared/datasets/clapnq") == "clapnq"
    assert dataset_key("../shared/datasets/nomiracl", "id") == "nomiracl/id"
    assert dataset_key("../shared/datasets/hotpotqa_sample/hotpotqa_train.json") == "hotpotqa_sample"


def test_every_evaluated_dataset_has_an_entry() -> None:
    assert RUNS, "no bench/results/**/run.json found"
    splits = load_splits()
    missing = set()
    for run in RUNS:
        raw = json.loads(run.read_text(encoding="utf-8"))
        key = dataset_key(raw["dataset_path"], raw.get("language"))
        if key not in splits.datasets:
            missing.add(f"{key} ({run.relative_to(REPO)})")
    assert not missing, f"add these datasets to bench/splits.json: {sorted(missing)}"


def _positions(raw: Mapping[str, object], ids: set[str]) -> set[int]:
    """The 1-based rows (in `anchorgate eval`'s order) of the questions a run with `--ids` asked."""
    skip = int(raw.get("skip") or 0)  # type: ignore[call-overload]
    dataset = load_dataset(str(raw["dataset_path"]), skip=skip, limit=raw.get("limit"), language=raw.get("language"))  # type: ignore[arg-type]
    return {skip + i + 1 for i, item in enumerate(dataset.items) if item.id in ids}


def test_every_row_a_stored_run_evaluated_is_recorded() -> None:
    splits = load_splits()
    unrecorded = []
    for run in RUNS:
        raw = json.loads(run.read_text(encoding="utf-8"))
        data = splits.dataset(dataset_key(raw["dataset_path"], raw.get("language")))
        last = raw.get("limit") or data.total_rows
        rows = set(range((raw.get("skip") or 0) + 1, min(last, data.total_rows) + 1))
        if raw.get("ids"):  # `--ids`: only the listed questions of those rows were asked
            rows = _positions(raw, set(raw["ids"]))
        recorded = data.tuned_rows() | data.seen_rows()
        if rows - recorded:
            unrecorded.append(f"{run.relative_to(REPO)}: {data.key} rows {to_ranges(rows - recorded)}")
    assert not unrecorded, "record these rows in bench/splits.json (answered, then tuned or seen): " + "; ".join(
        unrecorded
    )

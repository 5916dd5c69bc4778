"""The hand-writable generic JSONL format: round trips from real datasets and strict validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchorgate.eval.datasets import (
    DatasetFormatError,
    detect_format,
    dump_corpus_jsonl,
    dump_jsonl,
    load_corpus_jsonl,
    load_dataset,
)


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def _row(item_id: str = "q1", **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": item_id,
        "question": "Who wrote Hamlet?",
        "answers": ["William Shakespeare", "Shakespeare"],
        "answerable": True,
        "passages": [{"id": "p1", "title": "Hamlet", "text": "Hamlet is a tragedy by William Shakespeare."}],
        "gold_passage_ids": ["p1"],
    }
    row.update(fields)
    return row


@pytest.mark.parametrize(
    ("folder", "limit"),
    [
        ("crag_sample/crag_example_dev.jsonl.bz2", 2),
        ("hotpotqa_sample", 5),
        ("clapnq", 6),
        ("nomiracl", 4),
        ("squad2_id_translated", 40),
        ("falseqa", 6),
        ("nq_open_oracle", 5),
        ("halueval_qa", 3),
    ],
)
def test_round_trip_through_generic_jsonl(
    datasets_dir: Path, tmp_path: Path, folder: str, limit: int
) -> None:
    original = load_dataset(datasets_dir / folder, limit=limit)
    out = tmp_path / "questions.jsonl"
    assert dump_jsonl(original.items, out) == limit
    assert detect_format(out) == "jsonl"
    again = load_dataset(out)
    assert again.format == "jsonl" and again.items == original.items and not again.skipped


def test_corpus_round_trip_and_gold_ids_resolved_against_corpus(datasets_dir: Path, tmp_path: Path) -> None:
    hotpot = load_dataset(datasets_dir / "hotpotqa_sample", limit=3)
    corpus = tmp_path / "corpus.jsonl"
    assert dump_corpus_jsonl(hotpot.corpus_passages(), corpus) == 994
    assert tuple(load_corpus_jsonl(corpus)) == hotpot.corpus
    rows = [_row(item.id, question=item.question, answers=list(item.answers), passages=[],
                 gold_passage_ids=list(item.gold_passage_ids)) for item in hotpot.items]  # fmt: skip
    questions = _write(tmp_path / "questions.jsonl", rows)
    loaded = load_dataset(questions, corpus_path=corpus)
    assert loaded.corpus == hotpot.corpus and [i.gold_passage_ids for i in loaded.items] == [
        i.gold_passage_ids for i in hotpot.items
    ]
    from_folder = load_dataset(tmp_path)  # questions + the folder's single *corpus*.jsonl
    assert from_folder.format == "jsonl" and from_folder.corpus == hotpot.corpus
    with pytest.raises(DatasetFormatError, match="unknown passage id"):
        load_dataset(questions)


def test_documented_example_loads(tmp_path: Path) -> None:
    path = _write(tmp_path / "mine.jsonl", [_row(), _row("q2", answers=[], answerable=False, passages=[],
                                                     gold_passage_ids=[], language="id")])  # fmt: skip
    ds = load_dataset(path)
    assert [item.id for item in ds.items] == ["q1", "q2"]
    assert ds.items[0].answers == ("William Shakespeare", "Shakespeare") and ds.items[0].gold_passage_ids == (
        "p1",
    )
    assert not ds.items[1].answerable and ds.items[1].language == "id"
    assert [p.id for p in ds.corpus_passages()] == ["p1"]


@pytest.mark.parametrize(
    ("rows", "fragments"),
    [
        ([_row(), {"id": "q2", "answers": ["x"]}], ["line 2", "'question'"]),
        ([_row(), _row("q2"), _row("q1")], ["line 3", "duplicate id 'q1'", "line 1"]),
        ([_row(), _row("q2", answers=[])], ["line 2", "'answers'", "'answerable' is true"]),
        ([_row(), _row("q2", answers=["", "  "])], ["line 2", "'answers'"]),
        ([_row(gold_passage_ids=["p9"])], ["line 1", "'gold_passage_ids'", "'p9'"]),
        ([_row(answer=["typo"])], ["line 1", "unknown field", "'answer'"]),
        ([_row(answers="Shakespeare")], ["line 1", "'answers'", "list of strings"]),
        ([_row(answerable="yes")], ["line 1", "'answerable'"]),
        ([_row(passages=[{"id": "p1", "title": "t"}])], ["line 1", "'text'"]),
        (
            [_row(), _row("q2", passages=[{"id": "p1", "title": "x", "text": "another text"}])],
            ["'p1'", "different"],
        ),
    ],
)
def test_invalid_records_name_file_line_and_field(
    tmp_path: Path, rows: list[dict[str, Any]], fragments: list[str]
) -> None:
    path = _write(tmp_path / "bad.jsonl", rows)
    with pytest.raises(DatasetFormatError) as info:
        load_dataset(path, "jsonl")
    message = str(info.value)
    if "different" not in fragments:
        assert str(path) in message
    for fragment in fragments:
        assert fragment in message


def test_answerable_without_gold_strings_needs_the_explicit_flag(tmp_path: Path) -> None:
    path = _write(tmp_path / "q.jsonl", [_row(answers=[], extra={"answers_unknown": True})])
    assert load_dataset(path).items[0].answers == ()


def test_corpus_file_errors(tmp_path: Path) -> None:
    good = {"id": "p1", "title": "T", "text": "x", "url": "http://a"}
    dup = _write(tmp_path / "dup_corpus.jsonl", [good, {"id": "p2", "text": "y"}, good])
    with pytest.raises(DatasetFormatError, match=r"line 3: duplicate id 'p1' \(first used on line 1\)"):
        load_corpus_jsonl(dup)
    ok = load_corpus_jsonl(_write(tmp_path / "ok_corpus.jsonl", [good]))
    assert ok[0].metadata == {"url": "http://a"} and ok[0].title == "T"
    with pytest.raises(DatasetFormatError, match="line 1.*'text'"):
        load_corpus_jsonl(_write(tmp_path / "bad_corpus.jsonl", [{"id": "p1", "title": "no text"}]))

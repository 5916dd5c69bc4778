"""Damaged, empty, mis-encoded, wrong-format and pathological input: recorded or a clear error."""

from __future__ import annotations

import bz2
import json
import time
from pathlib import Path

import pytest

from anchorgate.eval.datasets import DatasetFormatError, detect_format, load_dataset
from anchorgate.eval.datasets.io import LoadLog, iter_lines


def _crag_line(item_id: str, html: str) -> str:
    page = {"page_name": "Big page", "page_url": "https://www.Example.org/big", "page_snippet": "s",
            "page_result": html, "page_last_modified": ""}  # fmt: skip
    record = {"interaction_id": item_id, "query_time": "03/01/2024, 10:00:00 PT", "domain": "open",
              "question_type": "simple", "query": "what is big?", "answer": "big",
              "alternative_answers": [], "search_results": [page]}  # fmt: skip
    return json.dumps(record)


def test_truncated_bz2_keeps_complete_lines_and_records_the_cut(datasets_dir: Path, tmp_path: Path) -> None:
    data = (datasets_dir / "crag_sample" / "crag_example_dev.jsonl.bz2").read_bytes()
    cut = tmp_path / "crag_cut.jsonl.bz2"
    cut.write_bytes(data[: int(len(data) * 0.3)])
    ds = load_dataset(cut)  # auto-detects from the first complete line
    assert ds.format == "crag" and 0 < len(ds) < 10
    assert any("truncated" in reason for _, reason in ds.skipped)
    tiny = tmp_path / "crag_tiny.jsonl.bz2"
    tiny.write_bytes(data[:5000])  # not even one complete bz2 block
    tiny_ds = load_dataset(tiny)
    assert len(tiny_ds) == 0 and "truncated" in tiny_ds.skipped[0][1]


def test_corrupt_compressed_stream_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "crag_garbage.jsonl.bz2"
    path.write_bytes(b"this is not bzip2 data" * 10)
    ds = load_dataset(path, "crag")
    assert len(ds) == 0 and "corrupt" in ds.skipped[0][1]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("crag.jsonl.bz2", "crag"),
        ("q.json", "hotpotqa"),
        ("q.jsonl", "nq-oracle"),
        ("q.jsonl", "clapnq"),
        ("q.jsonl", "nomiracl"),
        ("q.json", "squad"),
        ("q.jsonl", "indonlu"),
        ("q.csv", "indonlu"),
        ("q.json", "halueval"),
        ("q.csv", "falseqa"),
        ("q.json", "covidqa"),
        ("q.jsonl", "jsonl"),
    ],
)
def test_empty_file_gives_an_empty_dataset_and_a_record(tmp_path: Path, name: str, fmt: str) -> None:
    path = tmp_path / name
    path.write_bytes(bz2.compress(b"") if name.endswith(".bz2") else b"")
    ds = load_dataset(path, fmt)
    assert len(ds) == 0 and ds.skipped == [(str(path), "empty file")]


def test_empty_file_auto_detection(tmp_path: Path) -> None:
    named = tmp_path / "nomiracl_en_test_relevant.jsonl"
    named.write_bytes(b"")
    assert load_dataset(named).format == "nomiracl"
    anonymous = tmp_path / "data.jsonl"
    anonymous.write_bytes(b"")
    with pytest.raises(DatasetFormatError, match="empty"):
        load_dataset(anonymous)


def test_invalid_utf8_is_replaced_and_recorded(tmp_path: Path) -> None:
    good = json.dumps({"id": "q1", "question": "ok?", "answers": ["a"]}).encode()
    bad = b'{"id": "q2", "question": "caf\xe9 \xff?", "answers": ["b"]}'
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(good + b"\n" + bad + b"\n")
    ds = load_dataset(path)
    assert [item.id for item in ds.items] == ["q1", "q2"] and "\ufffd" in ds.items[1].question
    assert ds.warnings and "line 2" in ds.warnings[0][0] and "UTF-8" in ds.warnings[0][1]
    csv_path = tmp_path / "valid.csv"
    csv_path.write_bytes(b"question,answer,label\nWhy is the sky gr\xfcn?,It is not.,1\n")
    falseqa = load_dataset(csv_path)
    assert falseqa.format == "falseqa" and falseqa.items[0].false_premise and falseqa.warnings


def test_broken_json_line_after_the_first_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    row = json.dumps({"id": "q1", "question": "ok?", "answers": ["a"]})
    path.write_text(row + "\n" + '{"id": "q2", "question": "cut' + "\n" + row.replace("q1", "q3") + "\n")
    ds = load_dataset(path)
    assert [item.id for item in ds.items] == ["q1", "q3"]
    assert ds.skipped[0][0].endswith("line 2") and "invalid JSON" in ds.skipped[0][1]


@pytest.mark.parametrize(
    ("source", "fmt", "fragments"),
    [
        ("falseqa/valid.csv", "hotpotqa", ["valid.csv", "line 1", "HotpotQA"]),
        ("falseqa/valid.csv", "jsonl", ["valid.csv", "line 1", "generic record"]),
        (
            "clapnq/clapnq_dev_answerable.jsonl",
            "crag",
            ["clapnq_dev_answerable.jsonl", "line 1", "'interaction_id'"],
        ),
        ("clapnq/clapnq_dev_answerable.jsonl", "nq-oracle", ["line 1", "'ctxs'"]),
        ("hotpotqa_sample/hotpotqa_train.json", "squad", ["hotpotqa_train.json", "record 0", "'data'"]),
        ("nq_open_oracle/nq-open-oracle.part1.jsonl", "falseqa", ["line 1", "column(s)", "label"]),
        ("squad2_id_translated/dev-v2.0_small_id.json", "hotpotqa", ["record 0", "HotpotQA"]),
        ("indonlu_facqa/facqa_valid.jsonl", "halueval", ["line 1", "'right_answer'"]),
    ],
)
def test_wrong_format_names_file_line_and_field(
    datasets_dir: Path, source: str, fmt: str, fragments: list[str]
) -> None:
    with pytest.raises(DatasetFormatError) as info:
        load_dataset(datasets_dir / source, fmt)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_jsonl_record_missing_a_field_on_a_later_line(tmp_path: Path) -> None:
    path = tmp_path / "nq.jsonl"
    good = {"question": "q?", "answers": ["a"], "ctxs": [{"title": "t", "text": "a", "isgold": True}]}
    path.write_text(json.dumps(good) + "\n" + json.dumps({"answers": ["a"], "ctxs": []}) + "\n")
    with pytest.raises(DatasetFormatError, match=r"nq\.jsonl, line 2: missing field 'question'"):
        load_dataset(path, "nq-oracle")


def test_unknown_formats_list_the_known_ones(tmp_path: Path, datasets_dir: Path) -> None:
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"foo": 1, "bar": 2}) + "\n")
    with pytest.raises(DatasetFormatError, match="known formats: crag, hotpotqa, .*jsonl"):
        detect_format(odd)
    with pytest.raises(DatasetFormatError, match="known formats"):
        load_dataset(odd, "bogus")
    with pytest.raises(DatasetFormatError, match="corpus_path"):
        detect_format(datasets_dir / "hotpotqa_sample" / "hotpotqa_train_corpus.json")
    with pytest.raises(FileNotFoundError):
        load_dataset(tmp_path / "missing.jsonl")


def test_ten_megabyte_page_is_bounded_and_fast(tmp_path: Path) -> None:
    paragraph = "<p>" + "lorem ipsum dolor sit amet " * 40 + "</p>\n"
    html = "<html><head><script>var x=1;</script></head><body>" + paragraph * (10_000_000 // len(paragraph))
    assert len(html) > 9_000_000
    path = tmp_path / "crag_big.jsonl"
    path.write_text(_crag_line("big", html) + "\n" + _crag_line("scripts", "<script>only()</script>") + "\n")
    started = time.perf_counter()
    ds = load_dataset(path)
    assert time.perf_counter() - started < 10
    page = ds.items[0].passages[0]
    assert 100_000 < len(page.text) <= 200_000 and "<" not in page.text and "var x" not in page.text
    assert page.metadata["domain"] == "example.org" and page.metadata["last_modified"] is None
    assert ds.items[1].passages == () and "no extractable text" in ds.skipped[0][1]


def test_million_character_line_is_bounded(tmp_path: Path) -> None:
    huge_word = "x" * 1_000_000
    path = tmp_path / "crag_line.jsonl"
    path.write_text(_crag_line("long", f"<html><body><p>{huge_word}</p><p>tail</p></body></html>") + "\n")
    started = time.perf_counter()
    text = load_dataset(path).items[0].passages[0].text
    assert time.perf_counter() - started < 5
    first, last = text.split("\n\n")
    assert len(first) == 10_000 and last == "tail"
    generic = tmp_path / "long.jsonl"
    row = {"id": "q", "question": "long?", "answers": ["x"], "passages": [{"id": "p", "text": huge_word}]}
    generic.write_text(json.dumps(row) + "\n")
    assert len(load_dataset(generic).items[0].passages[0].text) == 1_000_000


def test_over_long_line_is_skipped_without_being_kept(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    path.write_text("short\n" + "y" * 1_000_000 + "\nafter\n")
    log = LoadLog()
    lines = list(iter_lines(path, log, max_line_bytes=1000))
    assert lines == [(1, "short"), (3, "after")]
    assert log.skipped == [(f"{path}, line 2", "line longer than 1000 bytes")]

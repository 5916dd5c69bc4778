"""The generic JSON Lines format users write by hand, its corpus file, and writers for both.

One question per line:
{"id", "question", "answers": [...], "answerable": true, "passages": [{"id", "title", "text"}],
 "gold_passage_ids": [...]} plus optional question_type, query_time, language, false_premise,
gold_sentences ([[passage_id, sentence], ...]) and extra (an object). Unknown keys are errors
(typos must not pass silently). An answerable item needs answers unless `extra.answers_unknown`
is true (datasets without gold strings, e.g. NoMIRACL); `extra.long_form_answers` true marks gold
answers that are passage sentences, scored by the long-form rule (`eval/scoring/long_form.py`)
unless an answer key is given (`--answer-keys`). A corpus file has one {"id", "title", "text", ...}
per line; other keys go to the passage metadata. Validation is
strict: duplicate ids, an answerable item without answers, or a gold id that names no passage
raise `DatasetFormatError` with file and line.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, iter_jsonl, optional_str, require, require_text, string_list, unique_strings
from .schema import ANSWERS_UNKNOWN, DatasetFormatError, QAItem

FORMAT = "jsonl"
EXPECTED = (
    'a generic record {"id", "question", "answers": [...], "answerable", "passages", "gold_passage_ids"}'
)
CORPUS_EXPECTED = 'a corpus record {"id", "title", "text"}'
ITEM_KEYS = frozenset(
    {
        "id", "question", "answers", "answerable", "question_type", "query_time", "language", "passages",
        "gold_passage_ids", "gold_sentences", "false_premise", "extra",
    }
)  # fmt: skip


def is_data_file(path: Path) -> bool:
    """Question files in a folder: *.jsonl whose name does not contain "corpus"."""
    return path.name.endswith(".jsonl") and "corpus" not in path.name


def default_corpus_path(path: Path) -> Path | None:
    """The single *corpus*.jsonl file of a folder, if there is exactly one."""
    if not path.is_dir():
        return None
    found = sorted(p for p in path.glob("*.jsonl") if "corpus" in p.name)
    return found[0] if len(found) == 1 else None


def iter_items(path: Path, log: LoadLog, corpus_ids: frozenset[str] = frozenset()) -> Iterator[QAItem]:
    """Yield validated items; `corpus_ids` are the ids gold_passage_ids may also refer to."""
    first_line: dict[str, int] = {}
    for lineno, record in iter_jsonl(path, log, EXPECTED):
        where = f"{path}, line {lineno}"
        item = parse_item(record, where, corpus_ids)
        if item.id in first_line:
            raise DatasetFormatError(
                f"{where}: duplicate id {item.id!r} (first used on line {first_line[item.id]})"
            )
        first_line[item.id] = lineno
        yield item


def parse_item(record: dict[str, Any], where: str, corpus_ids: frozenset[str] = frozenset()) -> QAItem:
    """One generic record as a `QAItem`, or a `DatasetFormatError` naming the field."""
    unknown = sorted(set(record) - ITEM_KEYS)
    if unknown:
        raise DatasetFormatError(f"{where}: unknown field(s) {unknown}; allowed: {sorted(ITEM_KEYS)}")
    item_id = _id(record, where, EXPECTED)
    answers = unique_strings(string_list(record.get("answers", []), "answers", where))
    answerable = _bool(record, "answerable", True, where)
    extra = record.get("extra", {})
    if not isinstance(extra, dict):
        raise DatasetFormatError(f"{where}: field 'extra' must be an object")
    if answerable and not answers and extra.get(ANSWERS_UNKNOWN) is not True:
        raise DatasetFormatError(
            f"{where}: field 'answers' is empty but 'answerable' is true (id {item_id!r});"
            f' set "extra": {{"{ANSWERS_UNKNOWN}": true}} if the dataset has no gold strings'
        )
    passages = tuple(_passages(record.get("passages", []), where))
    known = corpus_ids | {p.id for p in passages}
    gold_ids = tuple(string_list(record.get("gold_passage_ids", []), "gold_passage_ids", where))
    gold_sentences = _gold_sentences(record.get("gold_sentences", []), where)
    for pid in (*gold_ids, *(pid for pid, _ in gold_sentences)):
        if pid not in known:
            raise DatasetFormatError(f"{where}: field 'gold_passage_ids' names unknown passage id {pid!r}")
    return QAItem(
        id=item_id,
        question=require_text(record, "question", where, EXPECTED),
        answers=answers,
        answerable=answerable,
        question_type=optional_str(record, "question_type", where),
        query_time=optional_str(record, "query_time", where),
        language=optional_str(record, "language", where) or "en",
        passages=passages,
        gold_passage_ids=gold_ids,
        gold_sentences=gold_sentences,
        false_premise=_bool(record, "false_premise", False, where),
        extra=dict(extra),
    )


def _id(record: dict[str, Any], where: str, expected: str) -> str:
    value = require(record, "id", (str, int), where, expected)
    text = str(value).strip()
    if not text:
        raise DatasetFormatError(f"{where}: field 'id' is empty; expected {expected}")
    return text


def _bool(record: dict[str, Any], key: str, default: bool, where: str) -> bool:
    value = record.get(key, default)
    if not isinstance(value, bool):
        raise DatasetFormatError(f"{where}: field '{key}' must be true or false, got {value!r}")
    return value


def _passages(value: Any, where: str) -> Iterator[Passage]:
    if not isinstance(value, list):
        raise DatasetFormatError(f"{where}: field 'passages' must be a list of {{id, title, text}}")
    seen: set[str] = set()
    for index, entry in enumerate(value):
        passage = parse_passage(entry, f"{where}, passages[{index}]", CORPUS_EXPECTED)
        if passage.id in seen:
            raise DatasetFormatError(f"{where}: field 'passages' repeats passage id {passage.id!r}")
        seen.add(passage.id)
        yield passage


def parse_passage(entry: Any, where: str, expected: str) -> Passage:
    """A {id, title, text, source?, metadata?, ...} object; other keys go to metadata."""
    if not isinstance(entry, dict):
        raise DatasetFormatError(f"{where}: expected an object; {expected}")
    metadata = entry.get("metadata", {})
    if not isinstance(metadata, dict):
        raise DatasetFormatError(f"{where}: field 'metadata' must be an object")
    metadata = {
        **metadata,
        **{k: v for k, v in entry.items() if k not in {"id", "title", "text", "source", "metadata"}},
    }
    return Passage(
        id=_id(entry, where, expected),
        title=optional_str(entry, "title", where) or "",
        text=require(entry, "text", str, where, expected),
        source=optional_str(entry, "source", where) or "",
        metadata=metadata,
    )


def _gold_sentences(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    """[[passage_id, sentence], ...] or [{"passage_id", "text"}, ...]."""
    if not isinstance(value, list):
        raise DatasetFormatError(f"{where}: field 'gold_sentences' must be a list of [passage_id, sentence]")
    pairs: list[tuple[str, str]] = []
    for entry in value:
        if isinstance(entry, dict):
            entry = [entry.get("passage_id"), entry.get("text")]
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(v, str) for v in entry)):
            raise DatasetFormatError(
                f"{where}: field 'gold_sentences' entry {entry!r} is not [passage_id, sentence]"
            )
        pairs.append((entry[0], entry[1]))
    return tuple(pairs)


def read_corpus(path: Path, log: LoadLog) -> list[Passage]:
    """Passages of a corpus JSONL file; duplicate ids raise with both line numbers."""
    passages: list[Passage] = []
    first_line: dict[str, int] = {}
    for lineno, record in iter_jsonl(path, log, CORPUS_EXPECTED):
        where = f"{path}, line {lineno}"
        passage = parse_passage(record, where, CORPUS_EXPECTED)
        if passage.id in first_line:
            raise DatasetFormatError(
                f"{where}: duplicate id {passage.id!r} (first used on line {first_line[passage.id]})"
            )
        first_line[passage.id] = lineno
        passages.append(passage)
    return passages


def load_corpus_jsonl(path: str | Path) -> list[Passage]:
    """A user's corpus file (one {"id", "title", "text", ...} per line) as passages.

    Lines that had to be skipped or repaired are reported with `warnings.warn`.
    """
    log = LoadLog()
    passages = read_corpus(Path(path), log)
    for where, reason in [*log.skipped, *log.warnings]:
        warnings.warn(f"{where}: {reason}", stacklevel=2)
    return passages


def item_to_json(item: QAItem) -> dict[str, Any]:
    """The generic JSON object for `item` (reads back to an equal item)."""
    return {
        "id": item.id,
        "question": item.question,
        "answers": list(item.answers),
        "answerable": item.answerable,
        "question_type": item.question_type,
        "query_time": item.query_time,
        "language": item.language,
        "passages": [passage_to_json(p) for p in item.passages],
        "gold_passage_ids": list(item.gold_passage_ids),
        "gold_sentences": [list(pair) for pair in item.gold_sentences],
        "false_premise": item.false_premise,
        "extra": item.extra,
    }


def passage_to_json(passage: Passage) -> dict[str, Any]:
    """The corpus JSON object for `passage`."""
    return {"id": passage.id, "title": passage.title, "text": passage.text, "source": passage.source,
            "metadata": passage.metadata}  # fmt: skip


def dump_jsonl(items: Iterable[QAItem], path: str | Path) -> int:
    """Write `items` in the generic format (UTF-8, one object per line); returns the count."""
    return _write(Path(path), (item_to_json(item) for item in items))


def dump_corpus_jsonl(passages: Iterable[Passage], path: str | Path) -> int:
    """Write `passages` as a corpus JSONL file; returns the count."""
    return _write(Path(path), (passage_to_json(p) for p in passages))


def _write(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count

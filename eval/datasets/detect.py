"""Format auto-detection from file names and the first record.

JSON Lines and CSV files are recognised by the keys of their first record (or their header);
whole-file JSON (HotpotQA, SQuAD, COVID-QA) by its top-level shape or, when the first line is
not a complete document, by characteristic keys in its first 256 KB. A folder is detected from
its data files, which must all agree (pooled-corpus files are ignored).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from .io import first_line, head_text
from .schema import DatasetFormatError

FORMATS = ("crag", "hotpotqa", "nq-oracle", "clapnq", "nomiracl", "squad", "indonlu", "halueval", "falseqa",
           "covidqa", "jsonl")  # fmt: skip
DATA_SUFFIXES = (".json", ".jsonl", ".csv", ".bz2", ".gz", ".xz")

_KEY_RULES: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"interaction_id", "query", "search_results"}), "crag"),
    (frozenset({"question", "answers", "ctxs"}), "nq-oracle"),
    (frozenset({"input", "passages", "output"}), "clapnq"),
    (frozenset({"query_id", "subset", "passages"}), "nomiracl"),
    (frozenset({"question", "passage", "answers"}), "indonlu"),
    (frozenset({"knowledge", "question", "right_answer", "hallucinated_answer"}), "halueval"),
    (frozenset({"supporting_facts", "context", "question"}), "hotpotqa"),
    (frozenset({"id", "question", "answers"}), "jsonl"),
    (frozenset({"id", "question", "answerable"}), "jsonl"),
    (frozenset({"id", "question", "passages"}), "jsonl"),
)
_CSV_RULES: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"question", "answer", "label"}), "falseqa"),
    (frozenset({"question", "passage", "seq_label"}), "indonlu"),
)
_TEXT_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    (('"supporting_facts"', '"context"'), "hotpotqa"),
    (('"paragraphs"', '"qas"', '"document_id"'), "covidqa"),
    (('"paragraphs"', '"qas"'), "squad"),
    (('"hallucinated_answer"', '"right_answer"'), "halueval"),
)

_NAME_HINTS: tuple[tuple[str, str], ...] = (
    ("crag", "crag"), ("hotpot", "hotpotqa"), ("nq-open", "nq-oracle"), ("clapnq", "clapnq"),
    ("nomiracl", "nomiracl"), ("covid", "covidqa"), ("squad", "squad"), ("facqa", "indonlu"),
    ("halueval", "halueval"), ("qa_one-turn", "halueval"), ("qa_multi-turn", "halueval"),
    ("falseqa", "falseqa"),
)  # fmt: skip


def known_formats_hint() -> str:
    """The sentence listing known formats, for error messages."""
    return f"known formats: {', '.join(FORMATS)}; pass fmt=... explicitly"


def detect_format(path: str | Path) -> str:
    """The format name of a dataset file or folder; `DatasetFormatError` when it is not recognised."""
    target = Path(path)
    if not target.exists():
        raise FileNotFoundError(f"dataset path not found: {target}")
    if not target.is_dir():
        return _detect_file(target)
    files = data_files(target)
    if not files:
        raise DatasetFormatError(
            f"{target}: no data files ({', '.join(DATA_SUFFIXES)}); {known_formats_hint()}"
        )
    found = {f: _detect_file(f) for f in files}
    formats = set(found.values())
    if len(formats) > 1:
        listing = ", ".join(f"{f.name}={fmt}" for f, fmt in found.items())
        raise DatasetFormatError(
            f"{target}: files are in different formats ({listing}); load them separately"
        )
    return formats.pop()


def data_files(folder: Path) -> list[Path]:
    """Candidate data files of a folder (sorted), leaving out hidden files and pooled corpora."""
    return sorted(
        p for p in folder.iterdir()
        if p.is_file() and not p.name.startswith(".") and p.name.lower().endswith(DATA_SUFFIXES)
        and "corpus" not in p.name.lower()
    )  # fmt: skip


def _detect_file(path: Path) -> str:
    if "corpus" in path.name.lower():
        raise DatasetFormatError(
            f"{path}: looks like a pooled corpus file; pass it as corpus_path=... instead"
        )
    line = first_line(path) if path.stat().st_size else None
    if line is None:
        hinted = format_from_name(path)
        if hinted is None:
            raise DatasetFormatError(
                f"{path}: file is empty or unreadable; cannot detect its format ({known_formats_hint()})"
            )
        return hinted
    record = _json_or_none(line)
    if isinstance(record, dict):
        found = _by_keys(record, path)
    elif isinstance(record, list):
        found = _by_keys(record[0], path) if record and isinstance(record[0], dict) else None
    elif line.lstrip().startswith(("{", "[")):
        found = _by_text(head_text(path), path)
    else:
        found = _by_csv_header(line)
    if found is None:
        raise DatasetFormatError(
            f"{path}: cannot tell the dataset format from the file name or first record"
            f" ({_describe(record, line)}); {known_formats_hint()}"
        )
    return found


def format_from_name(path: Path) -> str | None:
    """The format suggested by well-known upstream file names (used when the content cannot tell)."""
    name = path.name.lower()
    return next((fmt for hint, fmt in _NAME_HINTS if hint in name), None)


def _json_or_none(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


def _by_keys(record: dict[str, Any], path: Path) -> str | None:
    """Format from a record's keys (SQuAD-shaped documents via their 'data' articles)."""
    keys = set(record)
    if "data" in keys and isinstance(record["data"], list):
        return _by_text(json.dumps(record["data"][:1]), path)
    if _looks_like_corpus(record):
        raise DatasetFormatError(
            f"{path}: looks like a pooled corpus (title -> sentences); pass it as corpus_path=..."
        )
    for required, name in _KEY_RULES:
        if required <= keys:
            return name
    return None


def _by_text(text: str, path: Path) -> str | None:
    for needles, name in _TEXT_RULES:
        if all(n in text for n in needles):
            return "covidqa" if name == "squad" and "covid" in path.name.lower() else name
    return None


def _by_csv_header(line: str) -> str | None:
    header = {cell.strip() for cell in next(csv.reader(io.StringIO(line)), [])}
    for required, name in _CSV_RULES:
        if required <= header:
            return name
    return None


def _looks_like_corpus(record: dict[str, Any]) -> bool:
    values = list(record.values())[:5]
    return bool(values) and all(isinstance(v, list) and all(isinstance(s, str) for s in v) for v in values)


def _describe(record: Any, line: str) -> str:
    if isinstance(record, dict):
        return f"keys {sorted(record)[:10]}"
    return f"first line {line[:80]!r}"

"""CRAG (Meta's Comprehensive RAG Benchmark): bz2 JSON Lines with full HTML search results.

Each line is one question with `search_results` (5 pages in Task 1/2, 50 in Task 3). Every page
becomes a `Passage` with id "<interaction_id>#<rank>" (rank = 1-based position in the results),
its main text extracted from `page_result` and metadata title/url/domain/rank/last_modified/
snippet. A page with no extractable text is skipped and recorded. Duplicate pages within one
question keep their own rank and id; their HTML is parsed once.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.corpus.html_text import domain_of, extract_main_text

from .io import LoadLog, iter_jsonl, optional_str, require, require_text, unique_strings
from .schema import ANSWERS_UNKNOWN, DatasetFormatError, QAItem

FORMAT = "crag"
EXPECTED = "a CRAG record (interaction_id, query, answer, search_results, ...)"
FALSE_PREMISE_ANSWER = "invalid question"
_MISSING_ANSWERS = {"nan", "none", "null"}


def is_data_file(path: Path) -> bool:
    """CRAG data files in a folder: JSON Lines, possibly bz2/gzip-compressed."""
    return path.name.endswith((".jsonl", ".jsonl.bz2", ".jsonl.gz", ".jsonl.xz"))


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield one `QAItem` per CRAG line, in file order (pages parsed as each line is reached)."""
    for lineno, record in iter_jsonl(path, log, EXPECTED):
        yield _item(record, f"{path}, line {lineno}", log)


def _item(record: dict[str, Any], where: str, log: LoadLog) -> QAItem:
    item_id = _text_id(record, where)
    question = require_text(record, "query", where, EXPECTED)
    results = require(record, "search_results", list, where, EXPECTED)
    answer = require(record, "answer", str, where, EXPECTED).strip()
    question_type = optional_str(record, "question_type", where)
    answers = unique_strings([answer, *_alternatives(record.get("alternative_answers"), where, log)])
    missing = tuple(a for a in answers if a.lower() in _MISSING_ANSWERS)
    answers = tuple(a for a in answers if a not in missing)
    false_premise = question_type == "false_premise" or answer.lower() == FALSE_PREMISE_ANSWER
    extra: dict[str, Any] = {
        key: record[key] for key in ("domain", "static_or_dynamic", "split") if record.get(key) is not None
    }
    extra["n_search_results"] = len(results)
    if missing:
        extra[ANSWERS_UNKNOWN] = True
        extra["raw_answer"] = answer
        log.warn(where, f"gold answer {missing[0]!r} is a missing-value placeholder; answers left empty")
    return QAItem(
        id=item_id,
        question=question,
        answers=answers,
        answerable=not false_premise,
        question_type=question_type,
        query_time=optional_str(record, "query_time", where),
        language="en",
        passages=tuple(_pages(item_id, results, where, log)),
        false_premise=false_premise,
        extra=extra,
    )


def _text_id(record: dict[str, Any], where: str) -> str:
    value = require(record, "interaction_id", (str, int), where, EXPECTED)
    text = str(value).strip()
    if not text:
        raise DatasetFormatError(f"{where}: field 'interaction_id' is empty; expected {EXPECTED}")
    return text


def _alternatives(value: Any, where: str, log: LoadLog) -> list[str]:
    """`alternative_answers`: a list, or (in the public example file) a string holding a list."""
    if value is None:
        return []
    if isinstance(value, str):
        value = _parse_list_string(value)
        if value is None:
            log.warn(where, "alternative_answers is a string that is not a list; ignored")
            return []
    if not isinstance(value, list):
        log.warn(where, f"alternative_answers is {type(value).__name__}, not a list; ignored")
        return []
    return [str(v) for v in value if isinstance(v, str | int | float) and not isinstance(v, bool)]


def _parse_list_string(text: str) -> list[Any] | None:
    """Parse "[...]" written as JSON or as a Python literal; None when it is not a list."""
    text = text.strip()
    if not text:
        return []
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, list) else None


def _pages(item_id: str, results: list[Any], where: str, log: LoadLog) -> Iterator[Passage]:
    """Passages of one question's search results; pages without text are skipped and recorded."""
    cache: dict[str, str] = {}
    for rank, result in enumerate(results, start=1):
        page_where = f"{where}, search_results[{rank - 1}]"
        if not isinstance(result, dict):
            log.skip(page_where, f"search result is {type(result).__name__}, not an object")
            continue
        html = result.get("page_result")
        if not isinstance(html, str):
            log.skip(page_where, "search result has no 'page_result' HTML string")
            continue
        if html not in cache:
            cache[html] = extract_main_text(html)
        text = cache[html]
        if not text:
            log.skip(page_where, "page has no extractable text (empty or unparsable HTML)")
            continue
        yield _passage(item_id, rank, result, text)


def _passage(item_id: str, rank: int, result: dict[str, Any], text: str) -> Passage:
    url = _str(result.get("page_url"))
    domain = domain_of(url)
    last_modified = _str(result.get("page_last_modified"))
    return Passage(
        id=f"{item_id}#{rank}",
        title=_str(result.get("page_name")) or domain,
        text=text,
        source=url or FORMAT,
        metadata={
            "url": url,
            "domain": domain,
            "rank": rank,
            "last_modified": last_modified or None,
            "snippet": _str(result.get("page_snippet")),
        },
    )


def _str(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""

"""NoMIRACL (relevant / non-relevant subsets, 10 Wikipedia passages per query, several languages).

Each line is {query_id, lang, subset, question, answerable_from_passages, passages: [{docid,
title, text}], gpt4_output}. subset "non_relevant" means none of the passages answers the query,
so the item is unanswerable. There are no gold answer strings and no per-passage relevance
labels, so `answers` and `gold_passage_ids` are empty (`extra["answers_unknown"]` is True).
Ids are namespaced by language ("<lang>:<query_id>", passages "<lang>:<docid>") because MIRACL
ids are per-language.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, iter_jsonl, require, require_text
from .schema import ANSWERS_UNKNOWN, DatasetFormatError, QAItem

FORMAT = "nomiracl"
EXPECTED = "a NoMIRACL record {query_id, question, subset, passages: [{docid, title, text}]}"
_LANG_IN_NAME = re.compile(r"(?:^|[_.\-])([a-z]{2})(?:[_.\-])")


def is_data_file(path: Path) -> bool:
    """NoMIRACL files in a folder: *.jsonl (languages and subsets interleaved)."""
    return path.name.endswith(".jsonl")


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield one item per line, in file order."""
    default_lang = _language_from_name(path)
    for lineno, record in iter_jsonl(path, log, EXPECTED):
        yield _item(record, f"{path}, line {lineno}", default_lang)


def _item(record: dict[str, Any], where: str, default_lang: str) -> QAItem:
    query_id = str(require(record, "query_id", (str, int), where, EXPECTED)).strip()
    question = require_text(record, "question", where, EXPECTED)
    lang = _str_field(record, "lang") or default_lang
    answerable = _answerable(record, where)
    raw = require(record, "passages", list, where, EXPECTED)
    passages = tuple(_passage(lang, entry, f"{where}, passages[{i}]") for i, entry in enumerate(raw))
    extra: dict[str, Any] = {"subset": "relevant" if answerable else "non_relevant", ANSWERS_UNKNOWN: True}
    if isinstance(record.get("gpt4_output"), str):
        extra["gpt4_output"] = record["gpt4_output"]
    return QAItem(
        id=f"{lang}:{query_id}",
        question=question,
        answers=(),
        answerable=answerable,
        language=lang,
        passages=passages,
        extra=extra,
    )


def _answerable(record: dict[str, Any], where: str) -> bool:
    """From `subset` ("relevant"/"non_relevant"), else `answerable_from_passages`."""
    subset = record.get("subset")
    if subset in ("relevant", "non_relevant"):
        return subset == "relevant"
    flag = record.get("answerable_from_passages")
    if isinstance(flag, bool):
        return flag
    raise DatasetFormatError(
        f"{where}: field 'subset' must be 'relevant' or 'non_relevant'; expected {EXPECTED}"
    )


def _passage(lang: str, entry: Any, where: str) -> Passage:
    if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
        raise DatasetFormatError(f"{where}: field 'text' missing; expected {EXPECTED}")
    docid = entry.get("docid", entry.get("id"))
    if not isinstance(docid, str | int) or isinstance(docid, bool):
        raise DatasetFormatError(f"{where}: field 'docid' missing; expected {EXPECTED}")
    return Passage(
        id=f"{lang}:{docid}",
        title=_str_field(entry, "title"),
        text=entry["text"].strip(),
        source=FORMAT,
        metadata={"docid": str(docid)},
    )


def _str_field(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    return value if isinstance(value, str) else ""


def _language_from_name(path: Path) -> str:
    """Language code from a name like nomiracl_id_test_relevant.jsonl ("en" if none)."""
    match = _LANG_IN_NAME.search(path.name)
    return match.group(1) if match else "en"

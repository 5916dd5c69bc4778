"""SQuAD-shaped JSON ({"data": [{title, paragraphs: [{context, qas}]}]}): SQuAD 1.1/2.0 and COVID-QA.

Every paragraph is a passage of the pooled corpus; each question's candidate passage is its
paragraph, which is gold when the question is answerable. SQuAD 2.0 `is_impossible` questions
are unanswerable (their `plausible_answers` kept in `extra`). Paragraph ids are
"<title>#<paragraph index>", or "doc-<document_id>" when the paragraph has one (COVID-QA);
COVID-QA articles have no title, so the first line of the paper is used. The language is "id"
when the file name has an "id" token (dev-v2.0_small_id.json), "zh" for a question written in Chinese
(CMRC 2018, whose several gold spans per question become aliases), else "en".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from anchorgate.eval.scoring.text import has_chinese
from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, read_json, require, require_text
from .schema import DatasetFormatError, QAItem

EXPECTED = "SQuAD-shaped JSON {data: [{title, paragraphs: [{context, qas: [{id, question, answers}]}]}]}"
_ID_TOKEN = re.compile(r"(?:^|[_.\-])id(?:[_.\-]|$)", re.IGNORECASE)
_MAX_TITLE = 200

Paragraph = tuple[Passage, list[Any], str]


def is_data_file(path: Path) -> bool:
    """SQuAD files in a folder: *.json."""
    return path.suffix == ".json"


def language_of(path: Path) -> str:
    """The language tag: "id" for files named with an "id" token, else "en"."""
    return "id" if _ID_TOKEN.search(path.stem) else "en"


def iter_items(path: Path, log: LoadLog, source: str = "squad") -> Iterator[QAItem]:
    """Yield the questions of one file in article, paragraph, question order."""
    language = language_of(path)
    for passage, qas, where in _paragraphs(path, log, source):
        for index, qa in enumerate(qas):
            if not isinstance(qa, dict):
                raise DatasetFormatError(f"{where}, qas[{index}]: expected an object; {EXPECTED}")
            yield _item(qa, passage, f"{where}, qas[{index}]", language, log)


def load_corpus(paths: Sequence[Path], log: LoadLog, source: str = "squad") -> tuple[Passage, ...]:
    """Every paragraph of every file, in order (first occurrence of an id kept)."""
    pooled: dict[str, Passage] = {}
    for path in paths:
        for passage, _, _ in _paragraphs(path, log, source):
            pooled.setdefault(passage.id, passage)
    return tuple(pooled.values())


def _paragraphs(path: Path, log: LoadLog, source: str) -> Iterator[Paragraph]:
    """(passage, qas, where) for every paragraph with text; empty ones are skipped and recorded."""
    data = read_json(path, log, EXPECTED)
    if data is None:
        return
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise DatasetFormatError(
            f"{path}, record 0: missing field 'data' (a list of articles); expected {EXPECTED}"
        )
    for a_index, article in enumerate(data["data"]):
        where = f"{path}, data[{a_index}]"
        if not isinstance(article, dict):
            raise DatasetFormatError(f"{where}: expected an article object; {EXPECTED}")
        paragraphs = require(article, "paragraphs", list, where, EXPECTED)
        title = article["title"] if isinstance(article.get("title"), str) else ""
        for p_index, paragraph in enumerate(paragraphs):
            p_where = f"{where}, paragraphs[{p_index}]"
            if not isinstance(paragraph, dict):
                raise DatasetFormatError(f"{p_where}: expected a paragraph object; {EXPECTED}")
            context = require(paragraph, "context", str, p_where, EXPECTED)
            if not context.strip():
                log.skip(p_where, "paragraph has an empty context")
                continue
            qas = require(paragraph, "qas", list, p_where, EXPECTED)
            yield _passage(title, (a_index, p_index), paragraph, context, source), qas, p_where


def _passage(
    title: str, index: tuple[int, int], paragraph: dict[str, Any], context: str, source: str
) -> Passage:
    a_index, p_index = index
    doc_id = paragraph.get("document_id")
    if doc_id is not None and not isinstance(doc_id, bool):
        pid = f"doc-{doc_id}"
    else:
        pid = f"{title or f'article{a_index}'}#{p_index}"
    shown = title.replace("_", " ") if title else _first_line(context)
    metadata: dict[str, Any] = {"paragraph_index": p_index}
    if doc_id is not None:
        metadata["document_id"] = doc_id
    return Passage(id=pid, title=shown, text=context, source=source, metadata=metadata)


def _first_line(text: str) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line[:_MAX_TITLE]


def _item(qa: dict[str, Any], passage: Passage, where: str, language: str, log: LoadLog) -> QAItem:
    item_id = str(require(qa, "id", (str, int), where, EXPECTED)).strip()
    question = require_text(qa, "question", where, EXPECTED)
    spans = _spans(qa.get("answers", []), "answers", where)
    starts: dict[str, int] = {}
    for text, start in spans:
        starts.setdefault(text, start)
    answers = tuple(starts)
    impossible = qa.get("is_impossible") is True
    if not impossible and not answers:
        log.warn(where, "question is not marked impossible but has no answers; treated as unanswerable")
    answerable = not impossible and bool(answers)
    extra: dict[str, Any] = {"answer_starts": list(starts.values())} if starts else {}
    if impossible:
        plausible = _spans(qa.get("plausible_answers", []), "plausible_answers", where)
        extra["plausible_answers"] = list(dict.fromkeys(text for text, _ in plausible))
    return QAItem(
        id=item_id,
        question=question,
        answers=answers,
        answerable=answerable,
        language="zh" if language == "en" and has_chinese(question) else language,
        passages=(passage,),
        gold_passage_ids=(passage.id,) if answerable else (),
        extra=extra,
    )


def _spans(value: Any, key: str, where: str) -> list[tuple[str, int]]:
    """[(text, answer_start)] from SQuAD answer objects (start -1 when absent)."""
    if not isinstance(value, list):
        raise DatasetFormatError(f"{where}: field '{key}' must be a list of {{text, answer_start}}")
    spans: list[tuple[str, int]] = []
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise DatasetFormatError(
                f"{where}: field '{key}' has an entry without 'text'; expected {EXPECTED}"
            )
        text = entry["text"].strip()
        start = entry.get("answer_start")
        if text:
            spans.append((text, start if isinstance(start, int) else -1))
    return spans

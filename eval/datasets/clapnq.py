"""ClapNQ (long-form answers grounded in one NQ passage; answerable and unanswerable files).

Each line is {id, input, passages: [{title, text, sentences}], output: [{answer,
selected_sentences, meta}]}. An item is answerable when some output has a non-empty answer
(the unanswerable file has only ""). Selected sentences become `gold_sentences` on the passage
that contains them, and those passages the gold passages. Passage ids are "<id>#<index>".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, iter_jsonl, require, require_text, string_list, unique_strings
from .schema import LONG_FORM_ANSWERS, DatasetFormatError, QAItem

FORMAT = "clapnq"
EXPECTED = "a ClapNQ record {id, input, passages: [{title, text, sentences}], output: [{answer}]}"


def is_data_file(path: Path) -> bool:
    """ClapNQ files in a folder: *.jsonl (answerable and unanswerable, interleaved)."""
    return path.name.endswith(".jsonl")


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield one item per line, in file order."""
    for lineno, record in iter_jsonl(path, log, EXPECTED):
        yield _item(record, f"{path}, line {lineno}", log)


def _item(record: dict[str, Any], where: str, log: LoadLog) -> QAItem:
    item_id = str(require(record, "id", (str, int), where, EXPECTED)).strip()
    question = require_text(record, "input", where, EXPECTED)
    passages = tuple(_passages(item_id, require(record, "passages", list, where, EXPECTED), where))
    outputs = [o for o in require(record, "output", list, where, EXPECTED) if isinstance(o, dict)]
    answers = unique_strings([o["answer"] for o in outputs if isinstance(o.get("answer"), str)])
    selected = unique_strings(
        [
            s
            for o in outputs
            for s in string_list(o.get("selected_sentences") or [], "selected_sentences", where)
        ]
    )
    gold_sentences = tuple(_locate(selected, passages, where, log))
    gold_ids = tuple(dict.fromkeys(pid for pid, _ in gold_sentences))
    if answers and not gold_ids:
        gold_ids = tuple(p.id for p in passages)
    return QAItem(
        id=item_id,
        question=question,
        answers=answers,
        answerable=bool(answers),
        language="en",
        passages=passages,
        gold_passage_ids=gold_ids,
        gold_sentences=gold_sentences,
        extra={"subset": "answerable" if answers else "unanswerable", LONG_FORM_ANSWERS: True},
    )


def _passages(item_id: str, raw: list[Any], where: str) -> Iterator[Passage]:
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise DatasetFormatError(f"{where}: field 'passages[{index}].text' missing; expected {EXPECTED}")
        sentences = entry.get("sentences")
        yield Passage(
            id=f"{item_id}#{index}",
            title=entry["title"] if isinstance(entry.get("title"), str) else "",
            text=entry["text"].strip(),
            source=FORMAT,
            metadata={"sentences": [s.strip() for s in sentences if isinstance(s, str)]}
            if isinstance(sentences, list)
            else {},
        )


def _locate(
    selected: tuple[str, ...], passages: tuple[Passage, ...], where: str, log: LoadLog
) -> Iterator[tuple[str, str]]:
    """(passage id, sentence) for each selected sentence, found by sentence list or by substring."""
    for sentence in selected:
        owner = next((p for p in passages if sentence in p.metadata.get("sentences", ())), None)
        owner = owner or next((p for p in passages if sentence in p.text), None)
        if owner is None:
            log.warn(where, f"selected sentence not found in any passage; dropped: {sentence[:60]!r}")
            continue
        yield owner.id, sentence

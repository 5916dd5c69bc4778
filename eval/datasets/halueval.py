"""HaluEval QA: question, knowledge, right answer and a plausible hallucinated answer.

Upstream files are JSON Lines despite the .json extension (a JSON array is accepted too). The
knowledge paragraph is the item's one (gold) passage, id "halueval:<sha1>", so the one-turn and
multi-turn files share passages; `extra` keeps `hallucinated_answer` and `knowledge` for judging.
Item ids are "halueval-<variant>-<index>" with the variant from the file name (one-turn, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, head_text, iter_jsonl, read_json, require, require_text, short_hash
from .schema import DatasetFormatError, QAItem

FORMAT = "halueval"
EXPECTED = "a HaluEval QA record {knowledge, question, right_answer, hallucinated_answer}"


def is_data_file(path: Path) -> bool:
    """HaluEval files in a folder: *.json / *.jsonl (each variant loaded in name order)."""
    return path.suffix in {".json", ".jsonl"}


def variant_of(path: Path) -> str:
    """The variant named in the file: "one-turn" for qa_one-turn_data.json, "qa" for qa_data.json."""
    return path.stem.removeprefix("qa_").removesuffix("_data").removesuffix("data") or "qa"


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield one item per record, in file order."""
    prefix = f"halueval-{variant_of(path)}"
    for index, (where, record) in enumerate(_records(path, log)):
        yield _item(f"{prefix}-{index}", record, where)


def _records(path: Path, log: LoadLog) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, record) from JSON Lines, or from a JSON array when the file starts with "["."""
    if head_text(path, 4096).lstrip().startswith("["):
        data = read_json(path, log, EXPECTED)
        for index, record in enumerate(data or []):
            if not isinstance(record, dict):
                raise DatasetFormatError(f"{path}, record {index}: expected an object; {EXPECTED}")
            yield f"{path}, record {index}", record
        return
    for lineno, record in iter_jsonl(path, log, EXPECTED):
        yield f"{path}, line {lineno}", record


def _item(item_id: str, record: dict[str, Any], where: str) -> QAItem:
    question = require_text(record, "question", where, EXPECTED)
    right = require_text(record, "right_answer", where, EXPECTED)
    hallucinated = require(record, "hallucinated_answer", str, where, EXPECTED).strip()
    knowledge = require(record, "knowledge", str, where, EXPECTED).strip()
    passages: tuple[Passage, ...] = ()
    if knowledge:
        passages = (
            Passage(
                id=f"halueval:{short_hash(knowledge, length=12)}", title="", text=knowledge, source=FORMAT
            ),
        )
    return QAItem(
        id=item_id,
        question=question,
        answers=(right,),
        answerable=True,
        language="en",
        passages=passages,
        gold_passage_ids=tuple(p.id for p in passages),
        extra={"hallucinated_answer": hallucinated, "knowledge": knowledge},
    )

"""FalseQA: closed-book questions, half with a false premise (CSV: question, answer, label).

label 1 = false premise: the item is unanswerable as posed, `false_premise` is True and the
upstream answer is the reference rebuttal (in `answers` and `extra["rebuttal"]`). label 0 = a
normal question with its answer. There are no passages. Ids are "falseqa-<stem>-<row index>"
(upstream has none, and two questions occur twice).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .io import LoadLog, iter_csv, unique_strings
from .schema import DatasetFormatError, QAItem

FORMAT = "falseqa"
EXPECTED = "FalseQA CSV with columns question, answer, label (1 = false premise, 0 = normal)"


def is_data_file(path: Path) -> bool:
    """FalseQA files in a folder: *.csv."""
    return path.suffix == ".csv"


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield one item per CSV row, in file order; rows without a question are skipped."""
    for index, (lineno, row) in enumerate(iter_csv(path, log, ("question", "answer", "label"), EXPECTED)):
        where = f"{path}, line {lineno}"
        question = row["question"].strip()
        if not question:
            log.skip(where, "empty question")
            continue
        false_premise = _label(row["label"], where)
        answers = unique_strings([row["answer"]])
        yield QAItem(
            id=f"falseqa-{path.stem}-{index}",
            question=question,
            answers=answers,
            answerable=not false_premise,
            question_type="false_premise" if false_premise else None,
            language="en",
            false_premise=false_premise,
            extra={"rebuttal": answers[0] if answers else ""} if false_premise else {},
        )


def _label(value: str, where: str) -> bool:
    """True for label 1 (false premise), False for 0; anything else is a format error."""
    text = value.strip()
    if text in {"1", "1.0", "true", "True"}:
        return True
    if text in {"0", "0.0", "false", "False"}:
        return False
    raise DatasetFormatError(f"{where}: field 'label' is {text!r}; expected {EXPECTED}")

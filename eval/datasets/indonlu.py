"""IndoNLU FacQA (Indonesian factoid QA over short news passages).

Two shapes are read. The preferred one is the derived JSON Lines file (facqa_valid.jsonl:
detokenised {id, question, passage, answers}), which keeps the original spelling and spacing.
The upstream CSV (valid_preprocess.csv: token lists for question and passage plus a BIO
`seq_label`) is also accepted; its tokens are joined with light detokenisation and answers are
read from the BIO spans. Passage ids are content hashes ("facqa:<sha1>"), so the 311 questions
share the 273 distinct passages.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, iter_csv, iter_jsonl, require, require_text, short_hash, string_list, unique_strings
from .schema import DatasetFormatError, QAItem

FORMAT = "indonlu"
EXPECTED = "an IndoNLU FacQA record {id, question, passage, answers}"
CSV_EXPECTED = "IndoNLU FacQA CSV with columns question, passage, seq_label (token lists)"
_NO_SPACE_BEFORE = re.compile(r" ([,.;:?!%)\]}])")
_NO_SPACE_AFTER = re.compile(r"([(\[{]) ")


def select_files(folder: Path) -> list[Path]:
    """The JSON Lines files of a folder, or its CSV files when there is no JSON Lines file."""
    jsonl = sorted(folder.glob("*.jsonl"))
    return jsonl or sorted(folder.glob("*.csv"))


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield the questions of a FacQA .jsonl or .csv file, in file order."""
    if path.suffix.lower() == ".csv":
        yield from _iter_csv(path, log)
        return
    for index, (lineno, record) in enumerate(iter_jsonl(path, log, EXPECTED)):
        where = f"{path}, line {lineno}"
        item_id = str(record.get("id") or f"facqa-{path.stem}-{index}")
        answers = string_list(require(record, "answers", list, where, EXPECTED), "answers", where)
        yield _item(item_id, require_text(record, "question", where, EXPECTED),
                    require_text(record, "passage", where, EXPECTED), unique_strings(answers))  # fmt: skip


def _item(item_id: str, question: str, text: str, answers: tuple[str, ...]) -> QAItem:
    passage = Passage(id=f"facqa:{short_hash(text, length=12)}", title="", text=text, source=FORMAT)
    return QAItem(
        id=item_id,
        question=question,
        answers=answers,
        answerable=bool(answers),
        language="id",
        passages=(passage,),
        gold_passage_ids=(passage.id,) if answers else (),
    )


def _iter_csv(path: Path, log: LoadLog) -> Iterator[QAItem]:
    stem = path.stem.removesuffix("_preprocess")
    rows = iter_csv(path, log, ("question", "passage", "seq_label"), CSV_EXPECTED)
    for index, (lineno, row) in enumerate(rows):
        where = f"{path}, line {lineno}"
        question = _tokens(row["question"], "question", where)
        passage = _tokens(row["passage"], "passage", where)
        labels = _tokens(row["seq_label"], "seq_label", where)
        if len(labels) != len(passage):
            log.skip(where, f"seq_label has {len(labels)} tags for {len(passage)} passage tokens")
            continue
        answers = unique_strings([detokenize(span) for span in _bio_spans(passage, labels)])
        yield _item(f"facqa-{stem}-{index}", detokenize(question), detokenize(passage), answers)


def _tokens(cell: str, field: str, where: str) -> list[str]:
    """A CSV cell holding a Python list of strings, e.g. "['Apa', 'nama']"."""
    try:
        value: Any = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise DatasetFormatError(
            f"{where}: field '{field}' is not a token list ({exc}); expected {CSV_EXPECTED}"
        ) from exc
    return string_list(value, field, where)


def _bio_spans(tokens: list[str], labels: list[str]) -> Iterator[list[str]]:
    """Token spans tagged B (begin) followed by I (inside)."""
    span: list[str] = []
    for token, label in zip(tokens, labels, strict=True):
        if label == "B" or (label == "I" and not span):
            if span:
                yield span
            span = [token]
        elif label == "I":
            span.append(token)
        elif span:
            yield span
            span = []
    if span:
        yield span


def detokenize(tokens: list[str]) -> str:
    """Join tokens with spaces, without the space before closing punctuation or after an opener."""
    text = " ".join(tokens)
    return _NO_SPACE_AFTER.sub(r"\1", _NO_SPACE_BEFORE.sub(r"\1", text)).strip()

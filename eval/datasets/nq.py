"""NQ-Open with oracle/distractor passages (the "lost in the middle" JSON Lines files).

Each line is {question, answers, ctxs: [{title, text, hasanswer, isgold, id?}], nq_annotated_gold}.
Upstream gives no question ids and no passage ids in the oracle file, so both are content
hashes: "nq-<sha1(question)>" and "nq:<sha1(title, text)>". Identical passages therefore share
one id and the pooled corpus (every ctx of every line, first occurrence kept) is deduplicated.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, iter_jsonl, require, require_text, short_hash, string_list, unique_strings
from .schema import DatasetFormatError, QAItem

FORMAT = "nq-oracle"
EXPECTED = "an NQ-Open record {question, answers, ctxs: [{title, text, isgold}]}"


def is_data_file(path: Path) -> bool:
    """NQ data files in a folder: JSON Lines, possibly compressed (parts are read in name order)."""
    return path.name.endswith((".jsonl", ".jsonl.gz", ".jsonl.bz2", ".jsonl.xz"))


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield one item per line; its passages are the line's ctxs, gold = those marked isgold."""
    for lineno, record in iter_jsonl(path, log, EXPECTED):
        where = f"{path}, line {lineno}"
        question = require_text(record, "question", where, EXPECTED)
        answers = unique_strings(
            string_list(require(record, "answers", list, where, EXPECTED), "answers", where)
        )
        ctxs = _ctxs(record, where)
        passages = tuple(_passage(ctx) for ctx in ctxs)
        gold = tuple(dict.fromkeys(p.id for p, ctx in zip(passages, ctxs, strict=True) if ctx.get("isgold")))
        yield QAItem(
            id=f"nq-{short_hash(question, length=12)}",
            question=question,
            answers=answers,
            answerable=True,
            language="en",
            passages=passages,
            gold_passage_ids=gold,
            extra=_gold_annotation(record.get("nq_annotated_gold")),
        )


def _ctxs(record: dict[str, Any], where: str) -> list[dict[str, Any]]:
    ctxs = require(record, "ctxs", list, where, EXPECTED)
    for pos, ctx in enumerate(ctxs):
        if not isinstance(ctx, dict) or not isinstance(ctx.get("text"), str):
            raise DatasetFormatError(f"{where}: field 'ctxs[{pos}].text' missing; expected {EXPECTED}")
    return ctxs


def _passage(ctx: dict[str, Any]) -> Passage:
    title = ctx["title"] if isinstance(ctx.get("title"), str) else ""
    text = ctx["text"].strip()
    metadata: dict[str, Any] = {key: ctx[key] for key in ("hasanswer", "isgold") if key in ctx}
    if "id" in ctx:
        metadata["upstream_id"] = str(ctx["id"])
    return Passage(
        id=f"nq:{short_hash(title, text)}", title=title, text=text, source=FORMAT, metadata=metadata
    )


def _gold_annotation(value: Any) -> dict[str, Any]:
    """The NQ long answer and short answers, kept for reference."""
    if not isinstance(value, dict):
        return {}
    return {f"nq_{key}": value[key] for key in ("long_answer", "short_answers") if key in value}


def load_corpus(paths: Sequence[Path], log: LoadLog) -> tuple[Passage, ...]:
    """The pooled corpus over all files: every ctx, deduplicated by content id, in file order."""
    pooled: dict[str, Passage] = {}
    for path in paths:
        for lineno, record in iter_jsonl(path, log, EXPECTED):
            for ctx in _ctxs(record, f"{path}, line {lineno}"):
                passage = _passage(ctx)
                if passage.text:
                    pooled.setdefault(passage.id, passage)
    return tuple(pooled.values())

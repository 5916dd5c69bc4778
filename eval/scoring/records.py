"""Scores of stored records: one record scored from the fields it keeps, so stored runs score again.

A record keeps what scoring reads: the question, the gold, whether the item is answerable or has a
false premise or long-form gold, the answer the user received (`prediction`, `short_answer`) and
the decision. So any stored record can be scored again by the current rules with no model call and
no dataset: `anchorgate eval` does it when it resumes a run, and `bench/rescore_records.py` does it
for every committed record. A record of an LLM fault is not model output and scores nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .keys import AnswerKey
from .metrics import QuestionScore, score_question

Record = dict[str, Any]


def score_fields(
    record: Mapping[str, Any], key: AnswerKey | None = None, *, question: str | None = None
) -> QuestionScore:
    """The scores of one record's answer (`key`: the question's answer key, when it has one)."""
    return score_question(
        answer=str(record.get("prediction") or ""), short_answer=str(record.get("short_answer") or ""),
        decision=str(record.get("decision") or ""), golds=list(record.get("gold") or []),
        answerable=bool(record.get("answerable", True)), false_premise=bool(record.get("false_premise")),
        question=question if question is not None else str(record.get("question") or ""),
        long_form=bool(record.get("long_form_gold")), key=key,
    )  # fmt: skip


def has_answer(record: Mapping[str, Any]) -> bool:
    """Whether the record holds an answer field to score (a record without one scores as no answer)."""
    return isinstance(record.get("prediction"), str)


def rescore(record: Record, key: AnswerKey | None = None) -> Record:
    """`record` with its scores recomputed by the current rules; a fault record is returned as it is."""
    if record.get("llm_fault"):
        return record
    return {**record, **score_fields(record, key).to_dict()}

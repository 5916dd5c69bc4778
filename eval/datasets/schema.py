"""The one internal schema every dataset loader produces.

Loaders turn each upstream format (CRAG, HotpotQA, SQuAD, ...) into `QAItem`s collected in a
`QADataset`, so retrieval, answering and evaluation code never sees format-specific fields.
All values are JSON-friendly (strings, numbers, lists, dicts) so items can be dumped to the
generic JSONL format and read back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from anchorgate.tools.corpus.documents import Passage

__all__ = ["ANSWERS_UNKNOWN", "LONG_FORM_ANSWERS", "DatasetFormatError", "QADataset", "QAItem"]

ANSWERS_UNKNOWN = "answers_unknown"
"""`extra` key set to True on answerable items whose dataset gives no gold answer string."""

LONG_FORM_ANSWERS = "long_form_answers"
"""`extra` key set to True when the gold answers are passage sentences, not short spans (ClapNQ).
Such items are also scored with the long-form rule of `eval/scoring/long_form.py` when they have no answer key."""


class DatasetFormatError(ValueError):
    """A file is not in the expected format; the message names the file, line/record and field."""


@dataclass(frozen=True)
class QAItem:
    """One question with its gold answers and evidence.

    `answers` are the reference strings (aliases included). For a false-premise question they are
    the reference rebuttal(s) (CRAG's gold answer, FalseQA's rebuttal), and `answerable` is False
    because there is no answer to the question as posed. `passages` are per-question candidate
    documents (may be empty when the dataset only has a pooled corpus or no evidence at all).
    `gold_sentences` holds (passage_id, sentence) pairs when the dataset gives sentence-level
    evidence (HotpotQA supporting facts, ClapNQ selected sentences).
    """

    id: str
    question: str
    answers: tuple[str, ...] = ()
    answerable: bool = True
    question_type: str | None = None
    query_time: str | None = None
    language: str = "en"
    passages: tuple[Passage, ...] = ()
    gold_passage_ids: tuple[str, ...] = ()
    gold_sentences: tuple[tuple[str, str], ...] = ()
    false_premise: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class QADataset:
    """A loaded dataset: its items, the pooled corpus when the format has one, and what was skipped.

    `skipped` lists (where, reason) for every record, page or line that was dropped; `warnings`
    lists (where, reason) for data that was kept but repaired (e.g. invalid UTF-8 replaced).
    """

    name: str
    format: str
    path: str
    items: tuple[QAItem, ...]
    corpus: tuple[Passage, ...] | None = None
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.items)

    def corpus_passages(self) -> tuple[Passage, ...]:
        """The retrieval corpus: the pooled corpus if any, else the union of per-item passages.

        The union keeps the first passage seen for each id, in item order, so it is deterministic.
        """
        if self.corpus is not None:
            return self.corpus
        seen: dict[str, Passage] = {}
        for item in self.items:
            for passage in item.passages:
                seen.setdefault(passage.id, passage)
        return tuple(seen.values())

    def item(self, item_id: str) -> QAItem:
        """The item with id `item_id` (KeyError when absent)."""
        for candidate in self.items:
            if candidate.id == item_id:
                return candidate
        raise KeyError(item_id)

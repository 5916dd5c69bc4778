"""Correctness against long-form gold answers (ClapNQ: one or more whole passage sentences).

The SQuAD rules of `metrics.is_correct` (exact match, or the gold inside a short answer) cannot
credit an answer whose gold is a paragraph: before this rule, 15 of the 16 stored ClapNQ answers
with token F1 ≥ 0.7 counted as wrong, and "Lake Havasu City, Arizona" for "where is the original
London Bridge now located" scored CRAG −1. Raw token F1 is no remedy: it rewards restating the
question ("The role of the prime minister in Canada is …" shares five words with any gold).

So the rule compares the *new information* only: the content words of the answer and of the gold,
less the words of the question and the words an answer uses to talk about its sources ("passage",
"supported" …). An answer is correct when it holds at least `MIN_RECALL` of the gold's new words
and at least `MIN_PRECISION` of its own new words are in the gold. Best over gold aliases. It is
wrong (the long-form "F1 = 0") when it holds none of any gold's new words: restating the question
is wrong; a vaguer true answer is neither right nor wrong (CRAG −1, not counted wrong-on-answerable).

The floors were chosen against blind hand labels of the 251 distinct ClapNQ answers stored by then,
on a tune half of the questions, and checked on the other half: agreement with the labels 0.80
(kappa 0.60) against 0.54 (kappa 0.03) for the SQuAD rules alone, crediting 1 of 35 answers labelled
wrong (`bench/long_form_correctness.py`, BENCHMARKS.md "Seventeenth session"). Words are the
SQuAD-normalized tokens of `answer_text`, less English stopwords, suffixes folded, so the rule does
not move when answer-stage code changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from anchorgate.tools.answer.text import strip_citations
from anchorgate.tools.text.stopwords import ENGLISH_STOPWORDS
from anchorgate.tools.text.suffixes import fold_suffix

from .answer_text import answer_tokens

MIN_RECALL = 0.5
"""Share of the gold's new words the answer must hold."""

MIN_PRECISION = 0.2
"""Share of the answer's new words that must be in the gold (low: a right answer may add true detail)."""

SOURCE_WORDS = frozenset(
    fold_suffix(w)
    for w in ("passage", "passages", "document", "documents", "supported", "information", "stated", "states",
              "based", "provided", "context", "according", "mentioned", "found")
)  # fmt: skip
"""Words an answer uses about its sources, not about the question's subject."""


def new_words(text: str, known: frozenset[str] = frozenset()) -> frozenset[str]:
    """Content words of `text` (stopwords dropped, suffixes folded) that are not in `known`."""
    words = {fold_suffix(w) for w in answer_tokens(text) if w not in ENGLISH_STOPWORDS}
    return frozenset(words - known)


def long_form_overlap(question: str, answer: str, gold: str) -> tuple[float, float]:
    """(precision, recall) of the answer's new words against the gold's; (0, 0) when either has none."""
    asked = new_words(question)
    said = new_words(strip_citations(answer), asked | SOURCE_WORDS)
    expected = new_words(gold, asked)
    if not said or not expected:
        return 0.0, 0.0
    shared = len(said & expected)
    return shared / len(said), shared / len(expected)


def long_form_correct(
    question: str, answer: str, golds: Sequence[str], *, min_precision: float = MIN_PRECISION,
    min_recall: float = MIN_RECALL,
) -> bool:  # fmt: skip
    """True when, for some gold, the answer meets both the precision and the recall floor."""
    for gold in golds:
        precision, recall = long_form_overlap(question, answer, gold)
        if precision >= min_precision and recall >= min_recall:
            return True
    return False


def long_form_wrong(question: str, answer: str, golds: Sequence[str]) -> bool:
    """True when the answer holds none of the new words of any gold."""
    return all(long_form_overlap(question, answer, gold)[1] == 0.0 for gold in golds)

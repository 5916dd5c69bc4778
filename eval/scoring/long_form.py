"""A secondary measure for long-form gold: how much of the gold's new information an answer holds.

Before the answer keys (`keys.py`), ClapNQ correctness was this rule: an answer is right when it
holds at least `MIN_RECALL` of the gold's new words (content words the question does not already
say) and at least `MIN_PRECISION` of its own new words are in the gold. It favours long answers
over concise ones ("Warren Beatty" shares few words with a gold sentence about the song), so it no
longer decides correctness: it is reported beside the key scores as `long_form_correct`.

Words are SQuAD-normalized tokens less this module's stopwords, with plural endings folded; the
floors were chosen against blind hand labels (records: bench/results/long_form_correctness.json).
"""

from __future__ import annotations

from collections.abc import Sequence

from .text import answer_tokens, fold_inflection, strip_citation_markers

MIN_RECALL = 0.5
"""Share of the gold's new words the answer must hold."""

MIN_PRECISION = 0.2
"""Share of the answer's new words that must be in the gold (low: a right answer may add true detail)."""

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "do",
        "does",
        "did",
        "were",
        "has",
        "have",
        "had",
        "from",
        "its",
        "than",
        "s",
        "t",
    ]
)
"""English function words and question words: the Lucene English list plus interrogatives and auxiliaries."""

SOURCE_WORDS = frozenset(
    [
        "passage",
        "passages",
        "document",
        "documents",
        "supported",
        "information",
        "stated",
        "states",
        "based",
        "provided",
        "context",
        "according",
        "mentioned",
        "found",
    ]
)
"""Words an answer uses about its sources, not about the question's subject."""


def new_words(text: str, known: frozenset[str] = frozenset()) -> frozenset[str]:
    """Content words of `text` (stopwords dropped, plurals folded) that are not in `known`."""
    return frozenset({fold_inflection(w) for w in answer_tokens(text) if w not in STOPWORDS} - known)


def long_form_overlap(question: str, answer: str, gold: str) -> tuple[float, float]:
    """(precision, recall) of the answer's new words against the gold's; (0, 0) when either has none."""
    asked = new_words(question)
    said = new_words(strip_citation_markers(answer), asked | {fold_inflection(w) for w in SOURCE_WORDS})
    expected = new_words(gold, asked)
    if not said or not expected:
        return 0.0, 0.0
    shared = len(said & expected)
    return shared / len(said), shared / len(expected)


def long_form_correct(question: str, answer: str, golds: Sequence[str]) -> bool:
    """True when, for some gold, the answer meets both the precision and the recall floor."""
    for gold in golds:
        precision, recall = long_form_overlap(question, answer, gold)
        if precision >= MIN_PRECISION and recall >= MIN_RECALL:
            return True
    return False

"""Citations: map [n] markers to the passages the generator saw, and attribute uncited sentences.

A small model often forgets its markers; a sentence without one is attributed to the passage
that shares most of its content words, when that share is high enough, and the citation says it
was attributed rather than written by the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anchorgate.tools.answer.text import cited_numbers, normalize_words, strip_citations
from anchorgate.tools.text.content_words import content_words
from anchorgate.tools.text.sentences import split_sentences
from anchorgate.tools.text.stopwords import stopwords_for

ATTRIBUTION_MIN_SHARE = 0.5
QUOTE_MAX_CHARS = 240


def overlap_words(text: str) -> set[str]:
    """The content words overlap measures compare: normalized words, English, Indonesian and Chinese
    stopwords and one-letter words removed."""
    return set(content_words(normalize_words(text), stopwords_for("multi")))


def word_share(claim: str, passage: str) -> float:
    """Share of the claim's content words found in the passage."""
    words = overlap_words(claim)
    return len(words & overlap_words(passage)) / len(words) if words else 0.0


def best_quote(passage_text: str, claim: str) -> str:
    """The passage sentence sharing most words with the claim (first on ties), trimmed."""
    sentences = [s.text for s in split_sentences(passage_text)] or [passage_text]
    claim_words = overlap_words(claim)
    best = max(sentences, key=lambda s: len(claim_words & overlap_words(s)))
    return best if len(best) <= QUOTE_MAX_CHARS else best[: QUOTE_MAX_CHARS - 1].rstrip() + "…"


def resolve_citations(
    answer: str, context: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[int]]:
    """Citations (in order of first use) and the cited numbers that match no passage."""
    by_number = {int(p["n"]): p for p in context}
    claims: dict[int, list[str]] = {}
    attributed: set[int] = set()
    invalid: list[int] = []
    for sentence in split_sentences(answer):
        numbers = cited_numbers(sentence.text)
        valid = [n for n in numbers if n in by_number]
        invalid.extend(n for n in numbers if n not in by_number and n not in invalid)
        if not numbers:
            guess = attribute_claim(strip_citations(sentence.text), context)
            if guess is not None:
                valid = [guess]
                attributed.add(guess)
        for n in valid:
            claims.setdefault(n, []).append(strip_citations(sentence.text))
    citations = [
        {
            "n": n,
            "id": by_number[n]["id"],
            "title": by_number[n]["title"],
            "source": by_number[n]["source"],
            "quote": best_quote(by_number[n]["text"], " ".join(texts)),
            "attributed": n in attributed,
            **_page_of(by_number[n]),
        }
        for n, texts in claims.items()
    ]
    return citations, invalid


def _page_of(passage: Mapping[str, Any]) -> dict[str, int]:
    """`{"page": n}` for a passage from a paged document (a PDF page, 1-based), else nothing."""
    page = (passage.get("metadata") or {}).get("page")
    return {"page": page} if type(page) is int and page > 0 else {}


def attribute_claim(claim: str, context: Sequence[Mapping[str, Any]]) -> int | None:
    """Number of the passage sharing most of the claim's content words, if the share is high enough."""
    scored = [(word_share(claim, f"{p['title']} {p['text']}"), -int(p["n"])) for p in context]
    if not scored:
        return None
    share, neg_n = max(scored)
    return -neg_n if share >= ATTRIBUTION_MIN_SHARE else None

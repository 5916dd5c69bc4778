"""Guarded query rewriting (seed 001 §3): is a rewrite of the question still the same question?

A rewrite / decomposition q' is kept only if cos(q, q') ≥ 0.9, its entities equal the original's,
its top distance is not worse by more than 0.15, and the Jaccard overlap of retrieved sources is
≥ 0.2 — checked in that order; the first failure names the decision. Entities are found by a
simple capitalisation rule (`extract_entities`), not by the anchor rules (`tools/question/anchors/`),
which read a question, not a rewrite, and give kinds and confidences this check does not need.
What is checked before and around it (empty, identical, other-language rewrites; entities compared
case-blind) is in `tools/question/rewrite_guard.py`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from anchorgate.tools.text.stopwords import ENGLISH_STOPWORDS, INDONESIAN_STOPWORDS

# Capitalized words that start questions or instructions, not names.
_INSTRUCTIONS = "i explain describe list name give tell show find compare define please jelaskan sebutkan"
_NOT_ENTITIES = ENGLISH_STOPWORDS | INDONESIAN_STOPWORDS | frozenset(_INSTRUCTIONS.split())
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")
_NUMBER = re.compile(r"\w*\d[\w]*(?:[.,]\d+)*%?")
# Whole letter-only words: "Q" of "Q1" is not a word (the number rule takes "Q1").
_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?:['’-][^\W\d_]+)*(?!\w)")


def _norm(entity: str) -> str:
    return " ".join(entity.casefold().split())


def _capitalized_spans(text: str) -> list[str]:
    """Runs of capitalized words separated only by spaces, minus question/instruction words."""
    spans: list[str] = []
    current: list[str] = []
    last_end = -1
    for match in _WORD.finditer(text):
        word = match.group()
        is_name = word[0].isupper() and word.casefold() not in _NOT_ENTITIES
        adjacent = last_end >= 0 and text[last_end : match.start()].strip(" ") == ""
        if current and not (is_name and adjacent):
            spans.append(" ".join(current))
            current = []
        if is_name:
            current.append(word)
        last_end = match.end()
    if current:
        spans.append(" ".join(current))
    return spans


def extract_entities(text: str) -> frozenset[str]:
    """Casefolded entities by a simple rule: quoted strings, tokens with digits ("2019", "Q1",
    "3.5%") and runs of capitalized words ("US Open"), skipping question words like "Who"."""
    quoted = [a or b for a, b in _QUOTED.findall(text)]
    unquoted = _QUOTED.sub(" ", text)
    found = quoted + _NUMBER.findall(unquoted) + _capitalized_spans(unquoted)
    return frozenset(_norm(e) for e in found if e.strip())


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity of two vectors — seed 001 eq. 13 (0.0 when either is all zeros)."""
    u, v = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    denom = float(np.linalg.norm(u) * np.linalg.norm(v))
    return float(u @ v) / denom if denom > 0 else 0.0


def jaccard(a: Collection[str], b: Collection[str]) -> float:
    """|A ∩ B| / |A ∪ B| — seed 001 eq. 14. Two empty sets give 0.0: nothing to validate against."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


@dataclass(frozen=True)
class RewriteDecision:
    """Whether a rewrite is kept, with the measured values and the first failed check."""

    accepted: bool
    reason: str
    similarity: float
    top_distance_delta: float
    jaccard: float


@dataclass(frozen=True)
class RewriteThresholds:
    """Seed 001 §4 defaults."""

    min_similarity: float = 0.9
    top_distance_margin: float = 0.15
    min_jaccard: float = 0.2


def validate_rewrite(
    similarity: float,
    original_entities: Collection[str],
    rewrite_entities: Collection[str],
    original_top_distance: float,
    rewrite_top_distance: float,
    original_sources: Collection[str],
    rewrite_sources: Collection[str],
    thresholds: RewriteThresholds | None = None,
) -> RewriteDecision:
    """Seed 001 §3 validator. Reasons: BLOCK_SIMILARITY, BLOCK_ENTITIES, BLOCK_TOP_DISTANCE,
    BLOCK_JACCARD or ACCEPT. For a decomposition pass the union of the sub-queries' entities
    and sources. Entities compare as casefolded sets (`extract_entities` gives such sets)."""
    t = thresholds or RewriteThresholds()
    delta = rewrite_top_distance - original_top_distance
    jac = jaccard(original_sources, rewrite_sources)

    def decide(reason: str) -> RewriteDecision:
        return RewriteDecision(reason == "ACCEPT", reason, similarity, delta, jac)

    if similarity < t.min_similarity:
        return decide("BLOCK_SIMILARITY")
    if {_norm(e) for e in original_entities} != {_norm(e) for e in rewrite_entities}:
        return decide("BLOCK_ENTITIES")
    # The 1e-9 slack keeps 0.2 + 0.15 from failing on float rounding at exactly the margin.
    if delta > t.top_distance_margin + 1e-9:
        return decide("BLOCK_TOP_DISTANCE")
    if jac < t.min_jaccard:
        return decide("BLOCK_JACCARD")
    return decide("ACCEPT")

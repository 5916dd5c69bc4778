"""Relevance gating: metadata priors may reorder relevant chunks but can never lift irrelevant ones.

Seed 004 (root-cause analysis) found that an *additive* hybrid score — 0.25·semantic +
0.15·keyword + 0.20·kg + 0.20·authority + 0.10·temporal + 0.10·completeness — lets an
authoritative, recent, complete but irrelevant regulation (semantic 0.15, keyword 0.05) score
0.530 and outrank relevant documents, because relevance is only 40 % of the weight. The fix
implemented here follows its Fix #1 and Fix #3:

1. relevance = w_s · max(cosine, 0) + w_k · keyword, with w_s = w_k = 0.5 (the seed's
   (semantic + keyword) / 2); a chunk whose relevance < floor (0.20) is dropped, whatever its
   metadata;
2. priors (source rank, recency, authority, completeness, each in [0, 1]) give a factor in
   [0.85, 1.15] that *multiplies* the relevance of chunks that passed the floor ("multiply"
   mode), or only breaks ties between equal relevance ("tiebreak" mode).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Priors:
    """Metadata priors of one chunk, each in [0, 1]; None means unknown (treated as neutral 0.5)."""

    source_rank: float | None = None
    recency: float | None = None
    authority: float | None = None
    completeness: float | None = None


@dataclass(frozen=True)
class GateSettings:
    """Parameters of the relevance gate (defaults from seed 004)."""

    floor: float = 0.20
    """Minimum combined relevance for a chunk to enter the pool (seed 004 recommends 0.15–0.25)."""
    semantic_weight: float = 0.5
    """Weight of the (clipped) cosine similarity in the relevance."""
    keyword_weight: float = 0.5
    """Weight of the keyword relevance (query-term coverage) in the relevance."""
    prior_min: float = 0.85
    """Factor applied to the worst possible priors."""
    prior_max: float = 1.15
    """Factor applied to the best possible priors."""
    prior_weights: Mapping[str, float] = field(
        default_factory=lambda: dict.fromkeys(("source_rank", "recency", "authority", "completeness"), 0.25)
    )
    """Relative weight of each prior inside the factor."""
    prior_mode: Literal["multiply", "tiebreak"] = "multiply"
    """"multiply": score = relevance · factor; "tiebreak": score = relevance, factor breaks ties."""


@dataclass(frozen=True)
class GateResult:
    """The gate's verdict on one candidate."""

    index: int
    relevance: float
    factor: float
    score: float
    kept: bool


def relevance(semantic: float, keyword: float, settings: GateSettings | None = None) -> float:
    """Combined relevance (seed 004 Fix #1): w_s·max(cos, 0) + w_k·keyword over w_s + w_k."""
    s = settings or GateSettings()
    total = s.semantic_weight + s.keyword_weight
    # A negative cosine is "unrelated", not "anti-relevant"; clipping keeps relevance in [0, 1].
    value = s.semantic_weight * max(semantic, 0.0) + s.keyword_weight * min(max(keyword, 0.0), 1.0)
    return value / total if total > 0 else 0.0


def prior_factor(priors: Priors, settings: GateSettings | None = None) -> float:
    """Bounded multiplicative factor in [prior_min, prior_max] from the weighted mean of priors."""
    s = settings or GateSettings()
    weighted = total = 0.0
    for name, weight in s.prior_weights.items():
        value = getattr(priors, name)
        weighted += weight * (0.5 if value is None else min(max(value, 0.0), 1.0))
        total += weight
    mean = weighted / total if total > 0 else 0.5
    return s.prior_min + (s.prior_max - s.prior_min) * mean


def gated_score(
    semantic: float, keyword: float, priors: Priors, settings: GateSettings | None = None
) -> float | None:
    """The ranking score of a chunk, or None when its relevance is below the floor (seed 004)."""
    s = settings or GateSettings()
    rel = relevance(semantic, keyword, s)
    if rel < s.floor:
        return None
    return rel * prior_factor(priors, s) if s.prior_mode == "multiply" else rel


def gate(
    semantic: Sequence[float],
    keyword: Sequence[float],
    priors: Sequence[Priors],
    settings: GateSettings | None = None,
) -> list[GateResult]:
    """Gate candidates given as parallel lists; kept first (score desc, factor desc, index asc)."""
    s = settings or GateSettings()
    if not len(semantic) == len(keyword) == len(priors):
        raise ValueError("semantic, keyword and priors must have the same length")
    results = []
    for i, (sem, kw, pri) in enumerate(zip(semantic, keyword, priors, strict=True)):
        rel, factor = relevance(sem, kw, s), prior_factor(pri, s)
        score = gated_score(sem, kw, pri, s)
        results.append(GateResult(i, rel, factor, score if score is not None else 0.0, score is not None))
    # In tiebreak mode the factor only decides between equal scores; original order decides last.
    return sorted(results, key=lambda r: (not r.kept, -r.score, -r.factor, r.index))


def keyword_coverage(
    query_terms: Collection[str], doc_terms: Collection[str], idf: Callable[[str], float] | None = None
) -> float:
    """Share of the query's distinct terms present in the document, idf-weighted when `idf` is given.

    An absolute keyword relevance in [0, 1] (unlike min-max-normalized BM25, where the best hit of
    an irrelevant pool would still get 1.0), so it can be compared with a fixed floor.
    """
    terms = set(query_terms)
    if not terms:
        return 0.0
    present = terms & set(doc_terms)
    weight = idf or (lambda _term: 1.0)
    total = sum(weight(t) for t in sorted(terms))
    return sum(weight(t) for t in sorted(present)) / total if total > 0 else 0.0


def recency_prior(age_days: float, half_life_days: float = 365.0) -> float:
    """Exponential recency prior 0.5 ** (age / half-life): 1.0 today, 0.5 after one half-life."""
    return 0.5 ** (max(age_days, 0.0) / half_life_days)


def rank_prior(rank: int) -> float:
    """Source-rank prior 1 / log2(rank + 1) for a 1-based rank (the DCG discount): 1.0 for rank 1."""
    return 1.0 / math.log2(max(rank, 1) + 1)


def priors_from_metadata(metadata: Mapping[str, Any]) -> Priors:
    """Priors read from chunk metadata keys `source_rank` (1-based rank or a [0,1] prior when
    given as `source_rank_prior`), `recency` or `age_days`, `authority`, `completeness`."""

    def unit(key: str) -> float | None:
        value = metadata.get(key)
        return None if value is None else min(max(float(value), 0.0), 1.0)

    source = unit("source_rank_prior")
    if source is None and metadata.get("source_rank") is not None:
        source = rank_prior(int(metadata["source_rank"]))
    recency = unit("recency")
    if recency is None and metadata.get("age_days") is not None:
        recency = recency_prior(float(metadata["age_days"]))
    return Priors(source, recency, unit("authority"), unit("completeness"))

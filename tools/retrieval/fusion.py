"""Rank fusion of several retrievers' results: reciprocal rank fusion and weighted min-max fusion.

Pure functions over ids (str or int). Every output is sorted by (score desc, best input rank asc,
id asc), so equal inputs always give the same order whatever the iteration order of a dict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

Id = TypeVar("Id", str, int)


def _check_weights(weights: Sequence[float] | None, n: int) -> list[float]:
    """`weights` as a list of length n (all 1.0 when None); rejects a length mismatch or negatives."""
    if weights is None:
        return [1.0] * n
    if len(weights) != n:
        raise ValueError(f"{len(weights)} weights for {n} inputs")
    if any(w < 0 for w in weights):
        raise ValueError("fusion weights must be non-negative")
    return [float(w) for w in weights]


def _sorted_items(scores: Mapping[Id, float], best_rank: Mapping[Id, int]) -> list[tuple[Id, float]]:
    """(id, score) pairs by score desc, then best input rank asc, then id asc."""
    return sorted(scores.items(), key=lambda item: (-item[1], best_rank[item[0]], item[0]))


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Id]], k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[Id, float]]:
    """RRF (Cormack, Clarke & Büttcher, SIGIR 2009): score(d) = Σ_r w_r / (k + rank_r(d)).

    Ranks are 1-based; an id repeated inside one ranking counts only at its first (best)
    position. Ties go to the id with the better best rank in any input, then to the smaller id.
    """
    if k < 0:
        raise ValueError("RRF constant k must be >= 0")
    ws = _check_weights(weights, len(rankings))
    scores: dict[Id, float] = {}
    best_rank: dict[Id, int] = {}
    for ranking, weight in zip(rankings, ws, strict=True):
        seen: set[Id] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
            best_rank[item] = min(best_rank.get(item, rank), rank)
    return _sorted_items(scores, best_rank)


def min_max_normalize(scores: Mapping[Id, float]) -> dict[Id, float]:
    """Scores mapped linearly onto [0, 1] (max → 1, min → 0).

    A constant, non-empty input maps to 1.0 for every id: each is this retriever's best hit, and
    a lone hit must not be zeroed (which would make it indistinguishable from "not retrieved").
    """
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low <= 0.0:
        return dict.fromkeys(scores, 1.0)
    return {item: (value - low) / (high - low) for item, value in scores.items()}


def _ranks(scores: Mapping[Id, float]) -> dict[Id, int]:
    """1-based rank of each id inside one score map (score desc, then id asc)."""
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return {item: rank for rank, (item, _) in enumerate(ordered, start=1)}


def weighted_fusion(
    score_maps: Sequence[Mapping[Id, float]], weights: Sequence[float] | None = None
) -> list[tuple[Id, float]]:
    """Convex combination of min-max-normalized scores: Σ_r w_r · norm_r(d) / Σ_r w_r.

    An id missing from a retriever's map contributes 0 for that retriever (it was not
    retrieved). Dividing by Σ w keeps the fused score in [0, 1] for any weights.
    """
    ws = _check_weights(weights, len(score_maps))
    total = sum(ws)
    if total <= 0.0:
        raise ValueError("at least one fusion weight must be positive")
    fused: dict[Id, float] = {}
    best_rank: dict[Id, int] = {}
    for scores, weight in zip(score_maps, ws, strict=True):
        for item, value in min_max_normalize(scores).items():
            fused[item] = fused.get(item, 0.0) + weight * value / total
        for item, rank in _ranks(scores).items():
            best_rank[item] = min(best_rank.get(item, rank), rank)
    return _sorted_items(fused, best_rank)


def dense_sparse_fusion(
    dense: Mapping[Id, float],
    sparse: Mapping[Id, float],
    dense_weight: float = 0.5,
    sparse_weight: float = 0.5,
) -> list[tuple[Id, float]]:
    """Hybrid dense (cosine) + sparse (BM25) fusion with weights 0.5/0.5 by default."""
    return weighted_fusion([dense, sparse], [dense_weight, sparse_weight])

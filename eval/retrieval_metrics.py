"""Retrieval metrics with binary relevance: Recall@k, reciprocal rank, nDCG@k, all-gold@k.

Ranked lists are deduplicated keeping the first occurrence (several chunks of one gold document
count once at the document level). Ranks are 1-based. Definitions follow Manning, Raghavan &
Schütze, "Introduction to Information Retrieval" (2008), ch. 8; nDCG uses the Järvelin &
Kekäläinen (2002) log2(i + 1) discount.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def dedupe(ranked: Sequence[T]) -> list[T]:
    """`ranked` without repeats, first occurrence kept."""
    seen: set[T] = set()
    out: list[T] = []
    for item in ranked:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def recall_at_k(ranked: Sequence[T], gold: Collection[T], k: int) -> float:
    """|gold ∩ top-k| / |gold|; 0.0 when there is no gold (nothing can be recalled)."""
    gold_set = set(gold)
    if not gold_set:
        return 0.0
    return len(gold_set.intersection(dedupe(ranked)[:k])) / len(gold_set)


def all_gold_in_top_k(ranked: Sequence[T], gold: Collection[T], k: int) -> bool:
    """True when every gold item is in the top k (HotpotQA: both supporting passages retrieved)."""
    gold_set = set(gold)
    return bool(gold_set) and gold_set.issubset(dedupe(ranked)[:k])


def reciprocal_rank(ranked: Sequence[T], gold: Collection[T], k: int | None = None) -> float:
    """1 / rank of the first gold item (within the top k when given), 0.0 when none is found."""
    gold_set = set(gold)
    items = dedupe(ranked)
    for rank, item in enumerate(items[:k] if k is not None else items, start=1):
        if item in gold_set:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[T], gold: Collection[T], k: int) -> float:
    """Binary-relevance nDCG@k = DCG@k / IDCG@k with DCG = Σ rel_i / log2(i + 1); 0.0 without gold."""
    gold_set = set(gold)
    if not gold_set or k <= 0:
        return 0.0
    hits = [i for i, item in enumerate(dedupe(ranked)[:k], start=1) if item in gold_set]
    dcg = sum(1.0 / math.log2(i + 1) for i in hits)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold_set), k) + 1))
    return dcg / ideal

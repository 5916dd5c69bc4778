"""Retrieval and pruning metrics with binary relevance: Recall@k, MRR, nDCG@k, all-gold@k, sentence P/R/F1.

Ranked lists are deduplicated keeping the first occurrence (several chunks of one gold document
count once at the document level). Ranks are 1-based. Definitions follow Manning, Raghavan &
Schütze, "Introduction to Information Retrieval" (2008), ch. 8; nDCG uses the Järvelin &
Kekäläinen (2002) log2(i + 1) discount. Sentence-level P/R/F1 of kept vs gold sentences is
Provence's pruning yardstick (seed 002).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
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


def mean_reciprocal_rank(runs: Sequence[tuple[Sequence[T], Collection[T]]], k: int | None = None) -> float:
    """MRR over (ranked, gold) pairs; 0.0 for no runs."""
    if not runs:
        return 0.0
    return sum(reciprocal_rank(ranked, gold, k) for ranked, gold in runs) / len(runs)


def ndcg_at_k(ranked: Sequence[T], gold: Collection[T], k: int) -> float:
    """Binary-relevance nDCG@k = DCG@k / IDCG@k with DCG = Σ rel_i / log2(i + 1); 0.0 without gold."""
    gold_set = set(gold)
    if not gold_set or k <= 0:
        return 0.0
    hits = [i for i, item in enumerate(dedupe(ranked)[:k], start=1) if item in gold_set]
    dcg = sum(1.0 / math.log2(i + 1) for i in hits)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold_set), k) + 1))
    return dcg / ideal


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of a kept set against a gold set."""

    precision: float
    recall: float
    f1: float


def sentence_prf(kept: Collection[T], gold: Collection[T]) -> PRF:
    """Set precision/recall/F1 of kept sentence ids (e.g. (title, sent_id)) vs gold sentence ids.

    Conventions: both empty → 1/1/1 (correctly kept nothing); nothing kept but gold exists →
    precision 0; gold empty but something kept → recall 1, precision 0.
    """
    kept_set, gold_set = set(kept), set(gold)
    if not kept_set and not gold_set:
        return PRF(1.0, 1.0, 1.0)
    hits = len(kept_set & gold_set)
    precision = hits / len(kept_set) if kept_set else 0.0
    recall = hits / len(gold_set) if gold_set else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return PRF(precision, recall, f1)

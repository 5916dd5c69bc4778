"""Retrieval metrics against a hand-computed example (binary relevance)."""

from __future__ import annotations

import math

import pytest

from anchorgate.eval.retrieval_metrics import (
    all_gold_in_top_k,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank,
)

# The repeated d3 counts once: deduplicated ranking is d3, d1, d7, d2, d9 (gold at ranks 2 and 4).
RANKED = ["d3", "d1", "d3", "d7", "d2", "d9"]
GOLD = {"d1", "d2", "d5"}


def test_recall_at_k() -> None:
    assert recall_at_k(RANKED, GOLD, 1) == 0.0
    assert recall_at_k(RANKED, GOLD, 2) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, GOLD, 3) == pytest.approx(1 / 3)  # would be 2/3 without deduplication
    assert recall_at_k(RANKED, GOLD, 4) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, GOLD, 100) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, set(), 5) == 0.0


def test_reciprocal_rank() -> None:
    assert reciprocal_rank(RANKED, GOLD) == 0.5
    assert reciprocal_rank(RANKED, GOLD, k=1) == 0.0
    assert reciprocal_rank(["x"], GOLD) == 0.0


def test_ndcg_at_k() -> None:
    dcg = 1 / math.log2(3) + 1 / math.log2(5)  # hits at ranks 2 and 4
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)  # three gold items fit in the top 5
    assert ndcg_at_k(RANKED, GOLD, 5) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(RANKED, GOLD, 5) == pytest.approx(0.49819, abs=1e-5)
    assert ndcg_at_k(RANKED, GOLD, 2) == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert ndcg_at_k(["d1", "d2", "d5"], GOLD, 3) == pytest.approx(1.0)
    assert ndcg_at_k(RANKED, set(), 5) == 0.0 and ndcg_at_k(RANKED, GOLD, 0) == 0.0


def test_all_gold_in_top_k_for_hotpotqa_pairs() -> None:
    ranked = ["Scott Derrickson", "Doctor Strange", "Ed Wood"]
    gold = {"Scott Derrickson", "Ed Wood"}
    assert all_gold_in_top_k(ranked, gold, 3)
    assert not all_gold_in_top_k(ranked, gold, 2)
    assert not all_gold_in_top_k(ranked, set(), 3)

"""Reciprocal rank fusion and weighted min-max fusion: hand-computed values and stable tie-breaks."""

from __future__ import annotations

import numpy as np
import pytest

from anchorgate.tools.retrieval.fusion import (
    dense_sparse_fusion,
    min_max_normalize,
    reciprocal_rank_fusion,
    weighted_fusion,
)


def test_rrf_hand_computed() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert fused["b"] == pytest.approx(1 / 62)
    assert [item for item, _ in reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]])] == ["a", "c", "b"]


def test_rrf_ties_prefer_best_rank_then_id() -> None:
    # k=0: "x" is 2nd in two lists (1/2 + 1/2 = 1), "y" is 1st in one list (1/1 = 1): equal scores,
    # "y" wins on best rank although "x" < "y"; "m" and "n" tie on score and rank, so by id.
    fused = reciprocal_rank_fusion([["m", "x"], ["n", "x"], ["y"]], k=0)
    assert [item for item, _ in fused] == ["m", "n", "y", "x"]
    assert fused[2][1] == fused[3][1] == 1.0


def test_rrf_counts_repeats_once_and_applies_weights() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "a", "b"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61) and fused["b"] == pytest.approx(1 / 63)
    weighted = dict(reciprocal_rank_fusion([["a"], ["b"]], k=60, weights=[2.0, 1.0]))
    assert weighted["a"] == pytest.approx(2 / 61) and weighted["b"] == pytest.approx(1 / 61)
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], weights=[1.0, 1.0])
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], weights=[-1.0])


def test_rrf_works_on_int_ids() -> None:
    assert [i for i, _ in reciprocal_rank_fusion([[3, 1], [1, 2]])] == [1, 3, 2]


def test_min_max_normalize() -> None:
    assert min_max_normalize({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert min_max_normalize({"a": 0.3, "b": 0.3}) == {"a": 1.0, "b": 1.0}
    assert min_max_normalize({}) == {}


def test_dense_sparse_fusion_hand_computed() -> None:
    dense = {"a": 0.9, "b": 0.5, "c": 0.1}  # normalized: a 1, b 0.5, c 0
    sparse = {"b": 12.0, "d": 4.0}  # normalized: b 1, d 0
    fused = dict(dense_sparse_fusion(dense, sparse))
    assert fused == pytest.approx({"a": 0.5, "b": 0.75, "c": 0.0, "d": 0.0})
    ordered = [item for item, _ in dense_sparse_fusion(dense, sparse)]
    # c and d tie at 0: c is rank 3 in dense, d rank 2 in sparse, so d first.
    assert ordered == ["b", "a", "d", "c"]
    skewed = dict(dense_sparse_fusion(dense, sparse, dense_weight=3.0, sparse_weight=1.0))
    assert skewed["a"] == pytest.approx(0.75) and skewed["b"] == pytest.approx(0.625)


def test_weighted_fusion_is_order_independent_and_bounded() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        ids = [f"d{i}" for i in range(12)]
        maps = [{i: float(rng.choice([0.1, 0.5, 0.9, rng.random()])) for i in rng.permutation(ids)[:8]}
                for _ in range(3)]
        weights = list(rng.random(3) + 0.01)
        fused = weighted_fusion(maps, weights)
        shuffled = [dict(reversed(list(m.items()))) for m in maps]
        assert weighted_fusion(shuffled, weights) == fused
        assert all(0.0 <= s <= 1.0 + 1e-12 for _, s in fused)
        scores = [s for _, s in fused]
        assert scores == sorted(scores, reverse=True)
    with pytest.raises(ValueError):
        weighted_fusion([{"a": 1.0}], [0.0])

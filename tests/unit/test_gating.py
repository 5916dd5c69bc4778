"""Relevance gating (seed 004): metadata priors never lift an irrelevant chunk."""

from __future__ import annotations

import numpy as np
import pytest

from anchorgate.tools.retrieval.gating import (
    GateSettings,
    Priors,
    gate,
    gated_score,
    keyword_coverage,
    prior_factor,
    priors_from_metadata,
    rank_prior,
    recency_prior,
    relevance,
)

# Seed 004's banking regulation: near-zero relevance, top metadata (its additive score 0.530 ranked it first).
BANKING = {"semantic": 0.15, "keyword": 0.05, "priors": Priors(None, 0.85, 0.95, 0.90)}
LAND_USE = {"semantic": 0.18, "keyword": 0.08, "priors": Priors(None, 0.60, 0.90, 0.95)}
TAX_OBJECTION = {"semantic": 0.62, "keyword": 0.55, "priors": Priors(None, 0.30, 0.60, 0.50)}


def test_gate_keeps_only_the_relevant_doc_of_seed_004() -> None:
    docs = [TAX_OBJECTION, BANKING, LAND_USE]
    results = gate([d["semantic"] for d in docs], [d["keyword"] for d in docs], [d["priors"] for d in docs])
    assert [r.index for r in results if r.kept] == [0]
    assert [r.index for r in results if not r.kept] == [1, 2]
    assert results[0].relevance == pytest.approx((0.62 + 0.55) / 2)


def test_priors_can_never_lift_a_chunk_below_the_floor() -> None:
    rng = np.random.default_rng(0)
    settings = GateSettings()
    for _ in range(500):
        semantic, keyword = rng.uniform(-0.3, 1.0), rng.uniform(0.0, 1.0)
        priors = Priors(*rng.uniform(0.0, 1.0, size=4))
        rel = relevance(semantic, keyword, settings)
        score = gated_score(semantic, keyword, priors, settings)
        if rel < settings.floor:
            assert score is None
        else:
            assert score is not None and 0.85 * rel - 1e-12 <= score <= 1.15 * rel + 1e-12


def test_prior_factor_bounds_and_neutral_default() -> None:
    assert prior_factor(Priors(1.0, 1.0, 1.0, 1.0)) == pytest.approx(1.15)
    assert prior_factor(Priors(0.0, 0.0, 0.0, 0.0)) == pytest.approx(0.85)
    assert prior_factor(Priors()) == pytest.approx(1.0)
    assert prior_factor(Priors(authority=7.0)) == pytest.approx(0.85 + 0.30 * (1.0 + 1.5) / 4)  # clipped to 1


def test_multiply_mode_reorders_close_calls_only() -> None:
    best, worst = Priors(1, 1, 1, 1), Priors(0, 0, 0, 0)
    # 0.50 vs 0.45 relevance: the better-sourced, slightly less relevant chunk may win ...
    close = gate([0.50, 0.45], [0.50, 0.45], [worst, best])
    assert [r.index for r in close] == [1, 0]
    # ... but relevance more than 1.15/0.85 ≈ 1.35× higher always wins.
    far = gate([0.70, 0.50], [0.70, 0.50], [worst, best])
    assert [r.index for r in far] == [0, 1]


def test_tiebreak_mode_uses_priors_only_between_equal_relevance() -> None:
    settings = GateSettings(prior_mode="tiebreak")
    best, worst = Priors(1, 1, 1, 1), Priors(0, 0, 0, 0)
    assert [r.index for r in gate([0.5, 0.5], [0.5, 0.5], [worst, best], settings)] == [1, 0]
    assert [r.index for r in gate([0.5, 0.45], [0.5, 0.45], [worst, best], settings)] == [0, 1]
    with pytest.raises(ValueError):
        gate([0.5], [0.5, 0.4], [worst], settings)


def test_keyword_coverage_plain_and_idf_weighted() -> None:
    assert keyword_coverage(["pajak", "keberatan", "kup", "prosedur"], ["pajak", "kup", "bank"]) == 0.5
    idf = {"pajak": 1.0, "keberatan": 3.0, "kup": 3.0, "prosedur": 1.0}.__getitem__
    assert keyword_coverage(["pajak", "keberatan", "kup", "prosedur"], ["pajak", "kup"], idf) == 0.5
    assert keyword_coverage(["pajak", "keberatan", "kup", "prosedur"], ["keberatan", "kup"], idf) == 0.75
    assert keyword_coverage([], ["a"]) == 0.0


def test_priors_from_metadata() -> None:
    priors = priors_from_metadata({"source_rank": 1, "age_days": 365, "authority": 0.9})
    assert priors == Priors(1.0, pytest.approx(0.5), 0.9, None)
    assert rank_prior(3) == pytest.approx(0.5) and recency_prior(0) == 1.0
    assert priors_from_metadata({"source_rank_prior": 0.2, "recency": 2.0}) == Priors(0.2, 1.0, None, None)


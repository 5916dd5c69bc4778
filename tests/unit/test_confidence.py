"""Seed 001: retrieval confidence, guarded rewriting and DRAGIN entropy, with the seed's worked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anchorgate.tools.answer.confidence import (
    abstain_probability,
    answer_span,
    answer_span_confidence,
    distance_to_similarity,
    dragin_confidence,
    query_length,
    retrieval_confidence,
    token_entropy,
    yes_probability,
)
from anchorgate.tools.question.rewrite_validation import cosine, extract_entities, jaccard, validate_rewrite


def test_distance_to_similarity_seed_examples() -> None:
    assert [distance_to_similarity(d) for d in (0.20, 0.60, 1.80)] == pytest.approx([0.90, 0.70, 0.10])
    assert distance_to_similarity(2.5) == 0.0 and distance_to_similarity(-0.01) == 1.0


def test_seed_5_1_worked_example() -> None:
    result = retrieval_confidence([0.20, 0.60, 1.00, 1.20, 1.80], query_words=4)
    assert result.similarities == pytest.approx((0.90, 0.70, 0.50, 0.40, 0.10))
    assert result.mean == pytest.approx(0.52) and result.concentration == pytest.approx(0.38)
    assert result.concentration_weight == 1.0 and result.length_weight == pytest.approx(4 / 6)
    assert result.confidence == pytest.approx(0.60, abs=1e-9)
    assert result.bypass_rewrite is False


def test_flat_short_query_is_not_confident() -> None:
    result = retrieval_confidence([0.8, 0.85, 0.9, 0.95, 1.0], query_words=1)
    # s = [0.6 … 0.5], concentration 0.05 → weight 1/6; L = 1 → length weight clamps to 0.3.
    assert result.confidence == pytest.approx(0.6 * (0.05 / 0.3) * 0.3)
    assert result.confidence < 0.7 and not result.bypass_rewrite


def test_peaked_long_query_bypasses_rewrite() -> None:
    words = query_length("who won the us open final in 2017")
    result = retrieval_confidence([0.1, 0.9, 1.2, 1.4, 1.6], query_words=words)
    assert result.confidence == pytest.approx(0.95) and result.bypass_rewrite
    assert retrieval_confidence([], 5).confidence == 0.0


def test_extract_entities() -> None:
    assert extract_entities("Who won the US Open in 2019?") == {"us open", "2019"}
    assert extract_entities("Siapa juara AO 2019?") == {"ao", "2019"}
    assert extract_entities('Explain "global interpreter lock" in CPython 3.12') == {
        "global interpreter lock",
        "cpython",
        "3.12",
    }
    assert extract_entities("What was the revenue of Apple Inc. in Q1 2024, up 5.5%?") == {
        "apple inc",
        "q1",
        "2024",
        "5.5%",
    }


def test_rewrite_blocked_on_similarity() -> None:  # seed 5.3: sim 0.88 < 0.9
    decision = validate_rewrite(0.88, {"x"}, {"x"}, 0.2, 0.2, {"a"}, {"a"})
    assert not decision.accepted and decision.reason == "BLOCK_SIMILARITY"


def test_rewrite_blocked_on_changed_entities() -> None:
    original = extract_entities("Who won the AO in 2019?")
    rewrite = extract_entities("Who won the US Open in 2019?")
    decision = validate_rewrite(0.95, original, rewrite, 0.2, 0.2, {"a"}, {"a"})
    assert decision.reason == "BLOCK_ENTITIES"
    same = validate_rewrite(
        0.95, original, extract_entities("Which player won the AO 2019 title?"), 0.2, 0.2, {"a"}, {"a"}
    )
    assert same.accepted


def test_rewrite_blocked_on_top_distance() -> None:  # seed 5.3: 0.4 > 0.2 + 0.15
    decision = validate_rewrite(0.92, {"e"}, {"e"}, 0.2, 0.4, {"a", "b"}, {"a", "b"})
    assert decision.reason == "BLOCK_TOP_DISTANCE" and decision.top_distance_delta == pytest.approx(0.2)
    at_margin = validate_rewrite(0.92, {"e"}, {"e"}, 0.2, 0.35, {"a"}, {"a"})
    assert at_margin.accepted  # exactly at the margin is allowed, despite 0.2 + 0.15 != 0.35 in floats


def test_rewrite_kept_and_jaccard_block() -> None:
    # Seed 5.3: d_cand 0.3 and J = 0.4 → KEEP.
    kept = validate_rewrite(0.92, {"e"}, {"e"}, 0.2, 0.3, {"A", "B", "C", "D"}, {"A", "B", "E"})
    assert kept.accepted and kept.reason == "ACCEPT" and kept.jaccard == pytest.approx(0.4)
    # Seed 7.2: {A,B,C} vs {D,E} → J = 0 < 0.2 → BLOCK.
    blocked = validate_rewrite(0.92, {"e"}, {"e"}, 0.2, 0.3, {"A", "B", "C"}, {"D", "E"})
    assert blocked.reason == "BLOCK_JACCARD"
    assert jaccard(set(), set()) == 0.0


def test_cosine() -> None:
    assert cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert cosine([1, 1], [1, 0]) == pytest.approx(1 / math.sqrt(2))
    assert cosine([0, 0], [1, 0]) == 0.0


def test_seed_2_4_entropy_example() -> None:
    # The seed's stated probabilities [0.62, 0.23, 0.15] give H ≈ 0.92 nats (seed: "≈ 0.94").
    assert token_entropy(np.log([0.62, 0.23, 0.15])) == pytest.approx(0.94, abs=0.03)
    # Renormalizing the stated logprobs [-0.10, -0.50, -1.20] exactly (eq. 9) gives
    # p = [0.499, 0.335, 0.166] and H = 1.011 nats: the seed's p ≈ [0.62, 0.23, 0.15] is an arithmetic slip.
    lp = [-0.10, -0.50, -1.20]
    p = np.exp(lp) / np.exp(lp).sum()
    assert p == pytest.approx([0.4992, 0.3346, 0.1662], abs=1e-4)
    assert token_entropy(lp) == pytest.approx(-(p * np.log(p)).sum())
    assert token_entropy(lp) == pytest.approx(1.0114, abs=1e-4)


def _ternary_with_entropy(target: float) -> list[float]:
    """Logprobs of [1 − 2x, x, x] whose entropy is `target` (bisection; H grows with x up to 1/3)."""
    low, high = 1e-9, 1 / 3
    for _ in range(100):
        x = (low + high) / 2
        low, high = (x, high) if token_entropy(np.log([1 - 2 * x, x, x])) < target else (low, x)
    return list(np.log([1 - 2 * low, low, low]))


def test_seed_normalizer_example_and_default_normalization() -> None:
    tokens = [_ternary_with_entropy(0.85)] * 50
    seed = dragin_confidence(tokens, normalizer=1.7)  # seed: normalize(0.85) = 0.5 → conf 0.5
    assert seed.mean_entropy == pytest.approx(0.85) and seed.confidence == pytest.approx(0.5)
    assert not seed.uncertain  # 0.5 is not below the 0.5 threshold
    default = dragin_confidence(tokens)
    assert default.normalized_entropy == pytest.approx(0.85 / math.log(3))
    assert default.confidence == pytest.approx(1 - 0.85 / math.log(3)) and default.uncertain


def test_dragin_extremes_and_missing_logprobs() -> None:
    assert dragin_confidence([[0.0, -50.0, -50.0]] * 5).confidence == pytest.approx(1.0, abs=1e-9)
    uniform = dragin_confidence([[math.log(0.25)] * 4] * 3)
    assert uniform.confidence == pytest.approx(0.0, abs=1e-12) and uniform.uncertain
    cases: list[list[list[float]] | None] = [None, [], [[], []]]
    for missing in cases:
        result = dragin_confidence(missing)
        assert result.confidence == 0.0 and result.missing and result.uncertain
    # A token without candidates counts as maximally uncertain; -inf candidates are ignored.
    partial = dragin_confidence([[0.0, -50.0], []])
    assert partial.normalized_entropy == pytest.approx(0.5, abs=1e-9)
    assert token_entropy([0.0, float("-inf")]) == 0.0


def test_mapping_input_matches_sequence_input() -> None:
    as_map = [{"Paris": -0.1, " Lyon": -2.5, " Nice": -3.0}]
    as_seq = [[-0.1, -2.5, -3.0]]
    assert dragin_confidence(as_map).confidence == dragin_confidence(as_seq).confidence


def test_abstain_probability_sums_the_tokens_that_start_the_refusal() -> None:
    first = [("The", math.log(0.5)), ("I", math.log(0.3)), (" I", math.log(0.1)), ("In", math.log(0.05))]
    # "I" and " I" begin "I don't know"; "In" and "The" do not.
    assert abstain_probability(first, "I don't know") == pytest.approx(0.4, abs=1e-4)
    assert abstain_probability([("I don", math.log(0.9))], "I don't know") == pytest.approx(0.9, abs=1e-4)
    assert abstain_probability([(" ", 0.0), ("Paris", -0.01)], "I don't know") == 0.0
    assert abstain_probability(None, "I don't know") is None and abstain_probability([], "I don't know") is None


def test_yes_probability_pools_the_spellings_of_each_word() -> None:
    first = [("NO", math.log(0.5)), ("YES", math.log(0.2)), (" Yes", math.log(0.05)), ("no", math.log(0.05))]
    assert yes_probability(first) == pytest.approx(0.25 / 0.8, abs=1e-4)
    assert yes_probability([("Maybe", math.log(0.9))]) is None
    assert yes_probability(None) is None


def test_yes_no_verdict_falls_back_to_the_greedy_word_without_candidates() -> None:
    from anchorgate.agents.judge import parse_yes_no

    assert parse_yes_no("YES.", None, 0.3) == parse_yes_no("yes", [], 0.3)
    assert parse_yes_no("YES.", None, 0.3).label == "SUPPORTED"  # type: ignore[union-attr]
    assert parse_yes_no("No, it does not.", None, 0.3).confidence is None  # type: ignore[union-attr]
    assert parse_yes_no("Probably.", None, 0.3) is None
    assert parse_yes_no("Probably.", [("NO", math.log(0.6)), ("YES", math.log(0.3))], 0.3).label == "SUPPORTED"  # type: ignore[union-attr]


def test_the_answer_span_is_the_first_line_cut_at_the_first_sentence() -> None:
    assert answer_span("1889\nQUOTE [2]: The tower was finished in 1889.") == "1889"
    assert answer_span("  The Exies [1]. They formed in 1997 [2].") == "The Exies [1]."
    assert answer_span("Version 3.11 added it") == "Version 3.11 added it"  # "3.11" is no sentence end


def test_answer_span_confidence_reads_only_the_span_rows() -> None:
    certain, unsure = [0.0, -50.0, -50.0], [math.log(1 / 3)] * 3
    reply = "Paris\nQUOTE [1]: Paris is the capital of France."
    rows = [unsure, unsure] + [certain] * 12  # the answer's two tokens are uncertain, the copied quote is not
    span = answer_span_confidence(reply, rows, lambda text: len(text.split()) + 1, threshold=0.5)  # "Paris": 2 rows
    whole = dragin_confidence(rows, threshold=0.5)
    assert span.confidence == pytest.approx(0.0, abs=1e-9) and span.uncertain
    assert whole.confidence > 0.8 and not whole.uncertain
    assert answer_span_confidence(reply, None, len).missing
    assert answer_span_confidence(reply, rows, lambda text: 0).n_tokens == 1  # never fewer than one row

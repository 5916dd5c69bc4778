"""Paired bootstrap of two presets on the same questions: interval, verdict, too few, determinism, input checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anchorgate.eval.scoring.paired import MIN_QUESTIONS, PairedDifference, format_difference, paired_bootstrap


def _right(count: int, n: int) -> list[float]:
    """1.0 on the first `count` of n questions, 0.0 on the rest."""
    return [1.0] * count + [0.0] * (n - count)


def test_identical_presets_give_a_zero_interval() -> None:
    a = [1.0, 0.0, 1.0, 1.0, 0.0] * 4
    d = paired_bootstrap(a, list(a))
    assert (d.n, d.diff, d.low, d.high) == (20, 0.0, 0.0, 0.0)
    assert (d.mean_diff, d.mean_low, d.mean_high) == (0.0, 0.0, 0.0)
    assert d.verdict == "no measurable difference"
    assert format_difference(d) == "+0 [+0, +0]"


def test_clearly_better_b_excludes_zero() -> None:
    a, b = _right(5, 30), _right(25, 30)  # b right on the same 5 and on 20 more
    d = paired_bootstrap(a, b)
    assert (d.total_a, d.total_b, d.diff) == (5.0, 25.0, 20.0)
    assert d.low is not None and d.high is not None
    assert 0.0 < d.low <= 20.0 <= d.high <= 30.0
    assert d.verdict == "b higher"
    assert d.mean_diff == pytest.approx(20 / 30)
    assert d.mean_low == pytest.approx(d.low / 30) and d.mean_high == pytest.approx(d.high / 30)
    reverse = paired_bootstrap(b, a)
    assert reverse.diff == -20.0 and reverse.verdict == "b lower"
    assert format_difference(reverse).startswith("\u221220 [\u2212")


def test_every_question_better_by_one_gives_the_point() -> None:
    # Each resample sums n differences of +1, so every resampled difference is exactly n.
    d = paired_bootstrap([0.0] * 12, [1.0] * 12)
    assert (d.low, d.high) == (12.0, 12.0)


def test_crag_scores_and_overlapping_presets_are_not_told_apart() -> None:
    a = [1.0, 0.0, -1.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0, 1.0, 1.0, -1.0]
    b = [1.0, 1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 1.0, 1.0, 1.0, 1.0, -1.0]  # +1, −1, +1 against a
    d = paired_bootstrap(a, b)
    assert d.diff == 1.0
    assert d.verdict == "no measurable difference"


def test_interval_width_matches_the_normal_approximation() -> None:
    # Differences of ±1 with equal chance: the sum over n questions has sd sqrt(n), 95 % half-width ≈ 1.96·sqrt(n).
    rng = np.random.default_rng(7)
    diffs = rng.choice([-1.0, 1.0], size=400)
    sd = float(np.std(diffs)) * math.sqrt(400)
    d = paired_bootstrap([0.0] * 400, diffs.tolist())
    assert d.low is not None and d.high is not None
    assert (d.high - d.low) / 2 == pytest.approx(1.96 * sd, rel=0.1)
    assert d.low < d.diff < d.high


def test_fewer_than_ten_questions_is_too_few() -> None:
    d = paired_bootstrap(_right(0, 9), _right(9, 9))
    assert d.too_few and d.n == 9 and d.diff == 9.0
    assert (d.low, d.high, d.mean_low, d.mean_high) == (None, None, None, None)
    assert d.verdict == "too few questions"
    assert format_difference(d) == "too few questions"
    assert format_difference(d, as_mean=True) == "too few questions"
    assert not paired_bootstrap(_right(0, MIN_QUESTIONS), _right(9, MIN_QUESTIONS)).too_few


def test_no_questions_is_too_few_not_an_error() -> None:
    d = paired_bootstrap([], [])
    assert d.too_few and d.n == 0 and d.diff == 0.0 and d.mean_diff == 0.0


def test_deterministic_for_a_seed() -> None:
    a = [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    b = [1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    first, second = paired_bootstrap(a, b), paired_bootstrap(a, b)
    assert first == second
    other = paired_bootstrap(a, b, seed=1)
    assert (other.n, other.total_a, other.total_b, other.diff, other.mean_diff) == (
        first.n,
        first.total_a,
        first.total_b,
        first.diff,
        first.mean_diff,
    )


def test_large_sample_is_drawn_in_blocks_and_stays_deterministic() -> None:
    # 2,000 questions × 10,000 resamples exceeds one block of draws.
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 2, 2000).astype(float).tolist(), rng.integers(0, 2, 2000).astype(float).tolist()
    assert paired_bootstrap(a, b) == paired_bootstrap(a, b)


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "message"),
    [
        ([1.0, 0.0], [1.0], {}, "same questions"),
        ([1.0, math.nan], [1.0, 0.0], {}, "finite"),
        ([1.0, 0.0], [1.0, math.inf], {}, "finite"),
        ([1.0], [1.0], {"level": 1.0}, "level"),
        ([1.0], [1.0], {"level": 0.0}, "level"),
        ([1.0], [1.0], {"resamples": 0}, "resamples"),
    ],
)
def test_bad_input_raises(a: list[float], b: list[float], kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        paired_bootstrap(a, b, **kwargs)  # type: ignore[arg-type]


def test_format_signs_counts_and_means() -> None:
    d = PairedDifference(
        n=40,
        total_a=10.0,
        total_b=13.0,
        diff=3.0,
        low=-1.0,
        high=7.0,
        mean_diff=0.075,
        mean_low=-0.025,
        mean_high=0.175,
        level=0.95,
        too_few=False,
    )
    assert format_difference(d) == "+3 [\u22121, +7]"
    assert format_difference(d, as_mean=True) == "+0.075 [\u22120.025, +0.175]"
    assert d.verdict == "no measurable difference"
    half = PairedDifference(40, 0.0, 2.5, 2.5, 0.5, 4.0, 0.0625, 0.0125, 0.1, 0.95, False)
    assert format_difference(half) == "+2.5 [+0.5, +4]"
    assert half.verdict == "b higher"

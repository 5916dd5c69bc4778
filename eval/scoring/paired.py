"""Paired bootstrap: is preset b's total on the same questions really different from preset a's?

Both presets answered the same questions, so the comparison is paired: each question contributes the
difference b − a of its own two values (1/0 for right, 1/0 for wrong, a CRAG score in {−1, 0, 1}, ...),
and the question-to-question spread that both presets share (easy vs hard questions) cancels out.

The interval is a percentile bootstrap over questions: draw n question indices with replacement, take
sum(b) − sum(a) over the draw, repeat `resamples` times, and keep the central `level` share of those
differences. It says how much the count difference could move had a different sample of questions of
the same kind been asked; it is not a statement about the presets on questions unlike these. An
interval that includes 0 means the questions cannot tell the presets apart. With fewer than
`MIN_QUESTIONS` pairs no interval is given: the bootstrap of a handful of questions looks precise and
is not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

MIN_QUESTIONS = 10
# Cap on index draws held in memory at once (rows × questions); the draws are made in fixed-size
# blocks, so the result depends only on the inputs and the seed.
_BLOCK_CELLS = 1_000_000
_MINUS = "\u2212"


@dataclass(frozen=True)
class PairedDifference:
    """Preset b against preset a on the same n questions.

    `diff` = total_b − total_a; `low`/`high` bound it at `level`, `mean_*` are the same per question.
    The interval fields are None when `too_few` (fewer than `MIN_QUESTIONS` pairs).
    """

    n: int
    total_a: float
    total_b: float
    diff: float
    low: float | None
    high: float | None
    mean_diff: float
    mean_low: float | None
    mean_high: float | None
    level: float
    too_few: bool

    @property
    def verdict(self) -> str:
        """'too few questions', 'no measurable difference', 'b higher' or 'b lower'."""
        if self.too_few or self.low is None or self.high is None:
            return "too few questions"
        if self.low <= 0.0 <= self.high:
            return "no measurable difference"
        return "b higher" if self.low > 0.0 else "b lower"


def _validate(a: Sequence[float], b: Sequence[float], resamples: int, level: float) -> None:
    """Raise ValueError for inputs the bootstrap cannot honestly summarise."""
    if len(a) != len(b):
        raise ValueError(f"paired values need the same questions: len(a)={len(a)} != len(b)={len(b)}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples!r}")
    for name, values in (("a", a), ("b", b)):
        for i, value in enumerate(values):
            if not math.isfinite(value):
                raise ValueError(f"{name}[{i}] is {value!r}; every paired value must be a finite number")


def _resampled_sums(diffs: npt.NDArray[np.float64], resamples: int, seed: int) -> npt.NDArray[np.float64]:
    """Sum of `diffs` over each of `resamples` draws of len(diffs) indices with replacement."""
    n = len(diffs)
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // n)
    sums = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, block):
        rows = min(block, resamples - start)
        indices = rng.integers(0, n, size=(rows, n))
        sums[start : start + rows] = diffs[indices].sum(axis=1)
    return sums


def _percentile_interval(sums: npt.NDArray[np.float64], level: float) -> tuple[float, float]:
    """Central `level` share of `sums`, widened to the enclosing observed values.

    Taking actual resampled values (not interpolating between them) keeps a count interval in counts
    and errs on the wide side.
    """
    tail = (1.0 - level) / 2.0
    low = float(np.quantile(sums, tail, method="lower"))
    high = float(np.quantile(sums, 1.0 - tail, method="higher"))
    return low, high


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = 10_000,
    seed: int = 20261127,
    level: float = 0.95,
) -> PairedDifference:
    """Paired percentile-bootstrap interval of sum(b) − sum(a) (and of mean(b) − mean(a)).

    `a[i]` and `b[i]` are the two presets' values on question i. Same inputs and seed give the same
    result. Raises ValueError when the lengths differ, a value is NaN or infinite, or `level` is not
    in (0, 1).
    """
    _validate(a, b, resamples, level)
    n = len(a)
    values_a = np.asarray(a, dtype=np.float64)
    values_b = np.asarray(b, dtype=np.float64)
    total_a, total_b = float(values_a.sum()), float(values_b.sum())
    diff = total_b - total_a
    mean_diff = diff / n if n else 0.0  # no questions: nothing to tell apart
    if n < MIN_QUESTIONS:
        return PairedDifference(n, total_a, total_b, diff, None, None, mean_diff, None, None, level, True)
    low, high = _percentile_interval(_resampled_sums(values_b - values_a, resamples, seed), level)
    # Every resample has n questions, so its mean difference is its count difference / n.
    return PairedDifference(n, total_a, total_b, diff, low, high, mean_diff, low / n, high / n, level, False)


def _signed(value: float, as_mean: bool) -> str:
    """`value` with an explicit sign (Unicode minus); counts bare when whole, means to 3 decimals."""
    digits = 3 if as_mean else (0 if float(value).is_integer() else 1)
    value = round(value, digits) + 0.0  # + 0.0 turns a rounded −0 into 0, printed "+0"
    text = f"{value:+.{digits}f}"
    return text.replace("-", _MINUS)


def format_difference(d: PairedDifference, *, as_mean: bool = False) -> str:
    """'+3 [−1, +7]' (count difference and interval), per question with `as_mean`, or 'too few questions'."""
    if d.too_few:
        return "too few questions"
    point, low, high = (d.mean_diff, d.mean_low, d.mean_high) if as_mean else (d.diff, d.low, d.high)
    if low is None or high is None:  # only when too_few; kept for the type checker
        return "too few questions"
    return f"{_signed(point, as_mean)} [{_signed(low, as_mean)}, {_signed(high, as_mean)}]"


def bootstrap_mean(
    values: Sequence[float], *, resamples: int = 10_000, seed: int = 20261127, level: float = 0.95
) -> PairedDifference:
    """Percentile-bootstrap interval of one preset's mean (its difference from a preset scoring 0 everywhere).

    Read `mean_diff`, `mean_low` and `mean_high`; `too_few` below `MIN_QUESTIONS` values, as for a pair."""
    return paired_bootstrap([0.0] * len(values), values, resamples=resamples, seed=seed, level=level)

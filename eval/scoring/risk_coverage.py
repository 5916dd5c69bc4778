"""Risk–coverage: how well a preset's confidence ranks its own answers.

Rows are one per scored question: `(confidence, outcome)` with outcome "right", "wrong" or
"abstained". Coverage is a share of ALL N questions, abstentions included, because a question the
preset declined is a question it did not cover. The curve ranks the answered (right or wrong)
questions by confidence, highest first; a missing confidence ranks last and ties keep input order.
Point k (k = 1..answered) is coverage k/N and selective risk (wrong among the top k) / k. The last
point is the preset's actual operating point, (answered/N, wrong/answered): the curve cannot go
further right, since the abstentions have no answer to add.

AURC (area under the risk–coverage curve) is the area under that step curve from coverage 0 to the
operating coverage: each point k holds its risk over a coverage step of 1/N, so the area is the mean
selective risk over k = 1..answered times answered/N. Lower is better. Because the curve stops at
the operating point, a preset that answers less has less area to accumulate: compare AURC between
presets together with their coverage, never alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["right", "wrong", "abstained"]
OUTCOMES: frozenset[str] = frozenset({"right", "wrong", "abstained"})


@dataclass(frozen=True)
class RiskCoverage:
    """The risk–coverage curve of one preset over n scored questions.

    `coverage[k-1]`, `risk[k-1]` are point k. `operating_point` and `aurc` are None when nothing was
    answered.
    """

    n: int
    answered: int
    coverage: list[float]
    risk: list[float]
    operating_point: tuple[float, float] | None
    aurc: float | None

    @property
    def selective_accuracy(self) -> list[float]:
        """1 − selective risk at each point."""
        return [1.0 - r for r in self.risk]

    def coverage_at_risk(self, max_risk: float = 0.10) -> float:
        """Largest coverage whose selective risk is at most `max_risk`; 0.0 when no point qualifies."""
        return max((c for c, r in zip(self.coverage, self.risk, strict=True) if r <= max_risk), default=0.0)


def _validate(rows: Sequence[tuple[float | None, str]]) -> None:
    """Raise ValueError on an unknown outcome or a NaN confidence (it would not rank)."""
    for i, (confidence, outcome) in enumerate(rows):
        if outcome not in OUTCOMES:
            raise ValueError(f"row {i}: outcome {outcome!r} is not one of {sorted(OUTCOMES)}")
        if confidence is not None and math.isnan(confidence):
            raise ValueError(f"row {i}: confidence is NaN; use None for a missing confidence")


def _ranked_outcomes(rows: Sequence[tuple[float | None, Outcome]]) -> list[Outcome]:
    """Outcomes of the answered rows, most confident first, None last, ties in input order."""
    answered = [(confidence, outcome) for confidence, outcome in rows if outcome != "abstained"]
    # sorted() is stable, so equal keys keep their input order.
    ranked = sorted(answered, key=lambda row: (row[0] is None, -row[0] if row[0] is not None else 0.0))
    return [outcome for _, outcome in ranked]


def risk_coverage(rows: Sequence[tuple[float | None, Outcome]]) -> RiskCoverage:
    """The risk–coverage curve, operating point and AURC of one preset's scored questions."""
    _validate(rows)
    n = len(rows)
    coverage: list[float] = []
    risk: list[float] = []
    wrong = 0
    for k, outcome in enumerate(_ranked_outcomes(rows), start=1):
        wrong += 1 if outcome == "wrong" else 0
        coverage.append(k / n)
        risk.append(wrong / k)
    answered = len(risk)
    if not answered:
        return RiskCoverage(n, 0, [], [], None, None)
    operating = (answered / n, wrong / answered)
    aurc = sum(risk) / answered * operating[0]
    return RiskCoverage(n, answered, coverage, risk, operating, aurc)

"""Risk–coverage of a preset's confidence: the curve by hand, ranking rules, nothing answered, the plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.eval.risk_plot import write_risk_coverage_plot
from anchorgate.eval.scoring.risk_coverage import Outcome, RiskCoverage, risk_coverage

# Five questions: ranked answered ones are 0.9 right, 0.6 wrong, 0.3 right, None right; one abstained.
HAND: list[tuple[float | None, Outcome]] = [
    (0.6, "wrong"),
    (0.9, "right"),
    (None, "right"),
    (0.8, "abstained"),
    (0.3, "right"),
]


def test_hand_computed_curve() -> None:
    rc = risk_coverage(HAND)
    assert (rc.n, rc.answered) == (5, 4)
    assert rc.coverage == [0.2, 0.4, 0.6, 0.8]
    assert rc.risk == pytest.approx([0.0, 1 / 2, 1 / 3, 1 / 4])
    assert rc.selective_accuracy == pytest.approx([1.0, 1 / 2, 2 / 3, 3 / 4])
    assert rc.operating_point == pytest.approx((0.8, 0.25))
    # Mean risk (0 + 1/2 + 1/3 + 1/4) / 4 times operating coverage 4/5 = 13/60.
    assert rc.aurc == pytest.approx(13 / 60)
    assert rc.coverage_at_risk() == 0.2
    assert rc.coverage_at_risk(0.0) == 0.2
    assert rc.coverage_at_risk(0.25) == 0.8
    assert rc.coverage_at_risk(0.4) == 0.8


def test_coverage_at_risk_is_the_largest_qualifying_coverage() -> None:
    # Risks 1, 1/2, 1/3, 2/4, 2/5: within 0.35 only point 3 qualifies, past a point (4) that does not.
    rows: list[tuple[float | None, Outcome]] = [(0.9, "wrong"), (0.8, "right"), (0.7, "right"), (0.6, "wrong")]
    rows.append((0.5, "right"))
    rc = risk_coverage(rows)
    assert rc.risk == pytest.approx([1.0, 0.5, 1 / 3, 0.5, 0.4])
    assert rc.coverage_at_risk(0.4) == 1.0
    assert rc.coverage_at_risk(0.35) == 0.6
    assert rc.coverage_at_risk(0.2) == 0.0


def test_none_confidence_ranks_last() -> None:
    rc = risk_coverage([(None, "wrong"), (0.01, "right"), (None, "right"), (0.0, "right")])
    assert rc.risk == pytest.approx([0.0, 0.0, 1 / 3, 1 / 4])


def test_ties_keep_input_order() -> None:
    assert risk_coverage([(0.5, "wrong"), (0.5, "right")]).risk == [1.0, 0.5]
    assert risk_coverage([(0.5, "right"), (0.5, "wrong")]).risk == [0.0, 0.5]
    assert risk_coverage([(None, "wrong"), (None, "right")]).risk == [1.0, 0.5]


def test_abstentions_count_in_coverage_not_in_risk() -> None:
    rc = risk_coverage([(0.9, "right"), (None, "abstained"), (0.1, "abstained"), (0.2, "wrong")])
    assert rc.coverage == [0.25, 0.5]
    assert rc.operating_point == (0.5, 0.5)
    assert rc.aurc == pytest.approx((0.0 + 0.5) / 2 * 0.5)


def test_all_abstained() -> None:
    rc = risk_coverage([(0.7, "abstained"), (None, "abstained")])
    assert (rc.n, rc.answered, rc.coverage, rc.risk) == (2, 0, [], [])
    assert rc.operating_point is None and rc.aurc is None
    assert rc.coverage_at_risk() == 0.0
    assert rc.selective_accuracy == []
    empty = risk_coverage([])
    assert empty.n == 0 and empty.operating_point is None and empty.aurc is None


def test_bad_rows_raise() -> None:
    with pytest.raises(ValueError, match="outcome"):
        risk_coverage([(0.5, "idk")])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="NaN"):
        risk_coverage([(float("nan"), "right")])


def _curves() -> dict[str, RiskCoverage]:
    return {
        "baseline": risk_coverage([(0.9, "right"), (0.5, "wrong"), (0.4, "right"), (None, "right")]),
        "B": risk_coverage(HAND),
        "silent": risk_coverage([(None, "abstained")] * 4),
    }


def test_plot_writes_a_png_byte_identical_on_rewrite(tmp_path: Path) -> None:
    first = write_risk_coverage_plot(_curves(), tmp_path / "rc.png", "toy")
    assert first is not None and first == tmp_path / "rc.png"
    data = first.read_bytes()
    assert len(data) > 1000 and data.startswith(b"\x89PNG")
    second = write_risk_coverage_plot(_curves(), tmp_path / "rc2.png", "toy")
    assert second is not None and second.read_bytes() == data


def test_plot_is_none_when_nothing_answered(tmp_path: Path) -> None:
    silent = {"silent": risk_coverage([(None, "abstained")] * 3)}
    assert write_risk_coverage_plot(silent, tmp_path / "rc.png", "toy") is None
    assert write_risk_coverage_plot({}, tmp_path / "rc.png", "toy") is None
    assert not (tmp_path / "rc.png").exists()

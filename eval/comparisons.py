"""Comparisons across a run's presets: paired differences with intervals, and risk–coverage curves.

* **Paired differences.** For each pair of presets, on the questions both scored (no LLM fault, a
  CRAG score), the difference in right answers, wrong answers and CRAG score with a paired
  bootstrap 95% interval (`scoring.paired`, fixed seed). The first preset of a pair is the baseline
  when the run has one, else the earlier preset of the run. A "better"/"worse" reading needs an
  interval that excludes 0; otherwise there is no measurable difference. Fewer than 10 shared
  questions give "too few questions" instead of an interval.
* **Risk–coverage.** Each preset's answers ranked by the gate's answer confidence at its last
  decision (`aggregate.answer_confidence`), abstentions counted in the coverage denominator
  (`scoring.risk_coverage`): AURC, coverage at 10% risk and the preset's operating point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from anchorgate.eval.aggregate import answer_confidence, outcome, scored_records
from anchorgate.eval.scoring.paired import PairedDifference, format_difference, paired_bootstrap
from anchorgate.eval.scoring.risk_coverage import RiskCoverage, risk_coverage

BASELINE = "baseline"
MAX_RISK = 0.10
Record = dict[str, Any]
MEASURES: tuple[tuple[str, Any], ...] = (
    ("right", lambda r: float(r["crag_score"] == 1)),
    ("wrong", lambda r: float(r["crag_score"] == -1)),
    ("crag", lambda r: float(r["crag_score"])),
)


def _scored_by_id(records: Sequence[Record]) -> dict[str, Record]:
    return {r["id"]: r for r in scored_records(records) if r.get("crag_score") is not None}


def pairs(presets: Sequence[str]) -> list[tuple[str, str]]:
    """(a, b) for every pair of presets: the baseline first when there is one, else run order."""
    ordered = sorted(presets, key=lambda p: (p != BASELINE, presets.index(p)))
    return list(combinations(ordered, 2))


def _difference_entry(d: PairedDifference, as_mean: bool) -> dict[str, Any]:
    return {"a": d.total_a, "b": d.total_b, "diff": d.mean_diff if as_mean else d.diff,
            "low": d.mean_low if as_mean else d.low, "high": d.mean_high if as_mean else d.high,
            "text": format_difference(d, as_mean=as_mean), "verdict": d.verdict}  # fmt: skip


def paired_comparisons(results: Mapping[str, Sequence[Record]]) -> list[dict[str, Any]]:
    """One entry per preset pair: shared questions and the difference (b − a) in right, wrong and CRAG."""
    scored = {preset: _scored_by_id(records) for preset, records in results.items() if records}
    entries = []
    for a, b in pairs(list(scored)):
        ids = [qid for qid in scored[a] if qid in scored[b]]
        entry: dict[str, Any] = {"a": a, "b": b, "n": len(ids)}
        for name, value in MEASURES:
            d = paired_bootstrap([value(scored[a][q]) for q in ids], [value(scored[b][q]) for q in ids])
            entry[name] = _difference_entry(d, as_mean=name == "crag")
        entries.append(entry)
    return entries


def risk_coverage_by_preset(results: Mapping[str, Sequence[Record]]) -> dict[str, RiskCoverage]:
    """Each preset's risk–coverage curve over its scored questions (dataset order)."""
    curves = {}
    for preset, records in results.items():
        rows = [(answer_confidence(r), outcome(r)) for r in scored_records(records)]
        kept = [(c, o) for c, o in rows if o is not None]
        if kept:
            curves[preset] = risk_coverage(kept)  # type: ignore[arg-type]  # outcome() gives only the three
    return curves


def risk_summary(curve: RiskCoverage) -> dict[str, Any]:
    """The headline figures of one curve: AURC, coverage at 10% risk, operating point."""
    point = curve.operating_point
    return {"n": curve.n, "answered": curve.answered, "aurc": None if curve.aurc is None else round(curve.aurc, 4),
            "coverage_at_10pct_risk": round(curve.coverage_at_risk(MAX_RISK), 4),
            "operating_coverage": None if point is None else round(point[0], 4),
            "operating_risk": None if point is None else round(point[1], 4)}  # fmt: skip

"""PNG of risk–coverage curves (matplotlib's Agg canvas, no display, no pyplot global state).

One line per preset: selective accuracy (1 − selective risk) against coverage of all questions, as the
step curve whose area `anchorgate.eval.scoring.risk_coverage` measures, ending at the preset's operating
point (marked and labelled). A higher, longer line is a confidence that ranks the preset's own answers
better and a preset that answers more.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import cycle
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from anchorgate.eval.scoring.risk_coverage import RiskCoverage

DPI = 100
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def _save(fig: Figure, path: Path) -> Path:
    """Write `fig` as PNG; no Software stamp, so repeated writes are byte-identical (as eval/plots.py)."""
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return path


def write_risk_coverage_plot(curves: Mapping[str, RiskCoverage], path: Path, title: str) -> Path | None:
    """Selective accuracy vs coverage, one curve per preset; None when no preset answered anything."""
    drawn = [(name, curve, curve.operating_point) for name, curve in curves.items()]
    points = [(name, curve, point) for name, curve, point in drawn if point is not None]
    if not points:
        return None
    fig = Figure(figsize=(6, 4.5))
    ax = fig.add_subplot()
    for (name, curve, (coverage, risk)), marker in zip(points, cycle(MARKERS)):
        accuracy = curve.selective_accuracy
        # Start at coverage 0 at the first point's height, so the drawn steps enclose what AURC sums;
        # the marker sits on the last point only, the operating point, and shows in the legend too.
        ax.step(
            [0.0, *curve.coverage],
            [accuracy[0], *accuracy],
            where="pre",
            marker=marker,
            markersize=8,
            markevery=[len(accuracy)],
            label=name,
        )
        ax.annotate(name, (coverage, 1.0 - risk), textcoords="offset points", xytext=(6, 6))
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("coverage (answered share of all questions)")
    ax.set_ylabel("selective accuracy (right among answered)")
    ax.set_title(f"{title}: risk–coverage")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left")
    return _save(fig, path)

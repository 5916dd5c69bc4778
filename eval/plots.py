"""PNG plots of a run (matplotlib's Agg canvas, no display, no pyplot global state).

* `pareto.png`: CRAG score vs tokens per question, one labelled point per preset, with the Pareto
  front (no other preset has both fewer tokens and a higher score) drawn as a line.
* `bar_<metric>.png`: one bar chart per metric, presets side by side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

BAR_METRICS: tuple[tuple[str, str], ...] = (
    ("f1_mean", "Short-answer F1 (mean)"),
    ("em_mean", "Exact match (mean)"),
    ("right", "Right answers (count)"),
    ("wrong", "Wrong answers (count)"),
    ("crag_score_mean", "CRAG score (mean)"),
    ("tokens_mean", "Tokens per question (mean)"),
    ("latency_p50", "Latency p50 (s)"),
    ("idk_count", "IDK / abstentions (count)"),
    ("wrong_on_answerable", "Wrong on answerable (count)"),
    ("abstention_recall", "Abstention recall on unanswerable"),
    ("false_premise_rate", "False-premise detection rate"),
)
DPI = 100


def _save(fig: Figure, path: Path) -> Path:
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return path


def pareto_front(points: dict[str, tuple[float, float]]) -> list[str]:
    """Presets not dominated by another (fewer-or-equal tokens and higher-or-equal score, one strictly)."""

    def dominated(name: str) -> bool:
        tokens, score = points[name]
        return any(
            t <= tokens and o >= score and (t < tokens or o > score)
            for other, (t, o) in points.items()
            if other != name
        )

    return sorted((n for n in points if not dominated(n)), key=lambda n: points[n][0])


def pareto_plot(summaries: dict[str, dict[str, Any]], path: Path, title: str) -> Path | None:
    """CRAG score vs tokens/question, one point per preset; None when no preset has both numbers."""
    points = {
        name: (float(s["tokens_mean"]), float(s["crag_score_mean"]))
        for name, s in summaries.items()
        if s.get("tokens_mean") is not None and s.get("crag_score_mean") is not None
    }
    if not points:
        return None
    fig = Figure(figsize=(6, 4.5))
    ax = fig.add_subplot()
    labels: dict[tuple[float, float], list[str]] = {}
    for name, point in points.items():
        labels.setdefault(point, []).append(name)  # presets on the same spot share one label
    for (tokens, score), names in labels.items():
        ax.scatter([tokens], [score], s=60, zorder=3)
        ax.annotate(", ".join(names), (tokens, score), textcoords="offset points", xytext=(6, 6))
    front = pareto_front(points)
    ax.plot([points[n][0] for n in front], [points[n][1] for n in front], linestyle="--", color="grey", zorder=2)
    ax.set_xlabel("tokens per question (mean)")
    ax.set_ylabel("CRAG score (mean)")
    ax.set_title(f"{title}: CRAG score vs tokens")
    ax.grid(True, alpha=0.3)
    return _save(fig, path)


def bar_plot(summaries: dict[str, dict[str, Any]], metric: str, label: str, path: Path, title: str) -> Path | None:
    """One bar per preset for `metric`; None when no preset has a value."""
    names = [n for n, s in summaries.items() if s.get(metric) is not None]
    if not names:
        return None
    values = [float(summaries[n][metric]) for n in names]
    fig = Figure(figsize=(max(4.0, 1.2 * len(names) + 2), 3.5))
    ax = fig.add_subplot()
    bars = ax.bar(names, values, color="#4C72B0")
    ax.bar_label(bars, labels=[f"{v:.3g}" for v in values], padding=2)
    ax.set_ylabel(label)
    ax.set_title(f"{title}: {label}")
    ax.margins(y=0.15)
    return _save(fig, path)


def write_plots(summaries: dict[str, dict[str, Any]], out: Path, title: str) -> list[Path]:
    """Every plot of a run; returns the files written."""
    written = [pareto_plot(summaries, out / "pareto.png", title)]
    written += [bar_plot(summaries, key, label, out / f"bar_{key}.png", title) for key, label in BAR_METRICS]
    return [p for p in written if p is not None]

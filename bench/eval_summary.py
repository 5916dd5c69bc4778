"""Summarise `anchorgate eval` output folders as the Markdown tables of BENCHMARKS.md.

Usage: .venv/bin/python bench/eval_summary.py [ROOT]   (default bench/results/eval)

Reads every `ROOT/<dataset>/metrics.json` (and `ROOT/*/judge_check.json`) that the evaluation
harness wrote; computes nothing new, so the tables match the per-dataset `report.md` files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROWS = (
    ("questions", "questions"),
    ("f1_mean", "short-answer F1"),
    ("overlap_mean", "support overlap (IDK = 0)"),
    ("crag_score_mean", "CRAG score"),
    ("tokens_mean", "tokens/Q"),
    ("latency_p50", "latency p50 (s)"),
    ("cached_call_share", "LLM calls replayed from cache"),  # such calls take ~0 s: read latency with it
    ("idk_count", "IDK"),
    ("answer_rate_answerable", "answer rate (answerable)"),
    ("wrong_on_answerable", "wrong on answerable"),
    ("abstention_recall", "abstention recall (unanswerable)"),
    ("false_premise_rate", "false-premise detection"),
    ("round2_share", "share with round 2"),
)
ORDER = ("baseline", "A", "B", "C", "peer")


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value)}"
    return str(value)


def dataset_table(metrics: dict[str, Any]) -> str:
    """Presets side by side, then each acceptance check as met / not met."""
    presets = [p for p in ORDER if p in metrics["presets"]]
    lines = ["| metric | " + " | ".join(presets) + " |", "|---" * (len(presets) + 1) + "|"]
    for key, label in ROWS:
        values = [_cell(metrics["presets"][p].get(key)) for p in presets]
        lines.append(f"| {label} | " + " | ".join(values) + " |")
    acceptance = metrics.get("acceptance") or {}
    judged = [p for p in presets if p in acceptance]
    if judged:
        checks = [c["check"] for c in acceptance[judged[0]]]
        lines += ["", "| target vs baseline | " + " | ".join(judged) + " |", "|---" * (len(judged) + 1) + "|"]
        for check in checks:
            cells = []
            for preset in judged:
                found = next((c for c in acceptance[preset] if c["check"] == check), None)
                cells.append("–" if found is None else {True: "met", False: "not met"}.get(found["met"], "n/a"))
            lines.append(f"| {check} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(root: Path) -> None:
    for path in sorted(root.glob("*/metrics.json")):
        metrics = json.loads(path.read_text())
        print(f"### {path.parent.name}\n")
        print(dataset_table(metrics))
        print()
    checks = sorted(root.glob("*/judge_check.json"))
    if checks:
        print("### judge checks\n")
        print("| run | items | accuracy | accepts right | rejects hallucinated (strict) | labels right / hallucinated "
              "| confidence AUC | prompt tokens |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|")
        for path in checks:
            print(judge_row(path.parent.name, json.loads(path.read_text())))
        print()


def judge_row(name: str, check: dict[str, Any]) -> str:
    """One table row of a `--judge-check` result."""
    labels = " / ".join(
        ", ".join(f"{label} {count}" for label, count in sorted(check["labels"].get(kind, {}).items()))
        for kind in ("right", "hallucinated")
    )
    return (f"| {name} | {check['items']} | {check['accuracy']} | {check['accept_right_rate']} | "
            f"{check['reject_hallucinated_rate']} ({check['reject_hallucinated_strict_rate']}) | {labels} | "
            f"{check.get('confidence_auc', '–')} | {check['tokens']['prompt']} |")  # fmt: skip


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results/eval"))

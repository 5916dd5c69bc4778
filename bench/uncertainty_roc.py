"""Issue 13 item 2: does the reader's uncertainty over its answer tell right answers from wrong ones?

    .venv/bin/python bench/uncertainty_roc.py RUN_DIR:TUNE_N [RUN_DIR:TUNE_N ...] [--preset A] [--name uncertainty_roc]

Each RUN_DIR is an `anchorgate eval` output folder; its first TUNE_N questions are the tuning part,
the rest are held out (TUNE_N 0: all held out). Over the questions the preset *answered*, a right
answer is one to an answerable question that is `correct` (alias match or containment), has F1 ≥
0.5, or whose words are mostly (≥ 0.6) the gold's: ClapNQ's golds are long sentences that a right
short answer can neither match nor score F1 0.5 against. An answer to an unanswerable question is wrong.
For each signal (DRAGIN confidence over the answer span, `answer_confidence`, and over the whole
reply, `gen_confidence`, both read at the last gate decision) it reports the ROC AUC of right vs
wrong on each part, and the threshold that maximises Youden's J (TPR − FPR for "right above the
threshold") on the tuning part only, with what that threshold does on the held-out part: how many
wrong answers it would have stopped and how many right ones it would have cost. It also reports
the tail cut: the lowest score of a right answer on the tuning part, below which every tuned answer
was wrong (a guess), with the same held-out counts (`guess_answer_threshold`, 2026-11-26).
Results: bench/results/<name>.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import write_result  # noqa: E402

from anchorgate.eval.scoring.text import answer_tokens  # noqa: E402
from anchorgate.tools.answer.text import strip_citations  # noqa: E402

SIGNALS = ("answer_confidence", "gen_confidence")


def answered_rows(run_dir: Path, preset: str, tune_n: int) -> list[dict[str, Any]]:
    """(part, right, signals) of each answered question of one run."""
    rows = []
    records = [json.loads(line) for line in (run_dir / f"{preset}.jsonl").read_text(encoding="utf-8").splitlines()]
    for i, record in enumerate(records):
        if record.get("abstained") or record.get("llm_fault"):
            continue
        gate = (record.get("telemetry") or {}).get("gate") or [{}]
        rows.append({
            "set": run_dir.name, "id": record["id"], "part": "tune" if i < tune_n else "heldout",
            "right": bool(record.get("answerable")) and is_right(record),
            **{s: gate[-1].get(s) for s in SIGNALS},
        })  # fmt: skip
    return rows


def is_right(record: dict[str, Any]) -> bool:
    """`correct`, F1 ≥ 0.5, or at least 0.6 of the answer's tokens in one gold answer."""
    if record.get("correct") or (record.get("f1") or 0.0) >= 0.5:
        return True
    answer = answer_tokens(strip_citations(record.get("short_answer") or record.get("prediction") or ""))
    if not answer:
        return False
    return any(sum(t in set(answer_tokens(gold)) for t in answer) / len(answer) >= 0.6 for gold in record["gold"])


def auc(right: list[float], wrong: list[float]) -> float | None:
    """P(a right answer's score > a wrong one's), ties counted half (Mann–Whitney)."""
    if not right or not wrong:
        return None
    wins = sum((r > w) + 0.5 * (r == w) for r in right for w in wrong)
    return round(wins / (len(right) * len(wrong)), 3)


def youden_threshold(right: list[float], wrong: list[float]) -> float | None:
    """The cut (answers below it are flagged uncertain) with the largest TPR − FPR; lowest cut on ties."""
    if not right or not wrong:
        return None
    cuts = sorted(set(right + wrong))
    return max(cuts, key=lambda c: (sum(r >= c for r in right) / len(right) - sum(w >= c for w in wrong) / len(wrong),
                                    -c))  # fmt: skip


def report(rows: list[dict[str, Any]], signal: str) -> dict[str, Any]:
    """AUC per part, the tuned threshold and its effect on the held-out answers."""
    out: dict[str, Any] = {}
    for part in ("tune", "heldout"):
        scored = [r for r in rows if r["part"] == part and r[signal] is not None]
        right = [r[signal] for r in scored if r["right"]]
        wrong = [r[signal] for r in scored if not r["right"]]
        out[part] = {"answered": len(scored), "right": len(right), "wrong": len(wrong), "auc": auc(right, wrong)}
    tune = [r for r in rows if r["part"] == "tune" and r[signal] is not None]
    cut = youden_threshold([r[signal] for r in tune if r["right"]], [r[signal] for r in tune if not r["right"]])
    out["threshold"] = cut
    if cut is not None:
        held = [r for r in rows if r["part"] == "heldout" and r[signal] is not None]
        out["heldout_flagged"] = {k: v for k, v in _flagged(held, signal, cut).items() if k != "ids"}
    tune_right = [r[signal] for r in tune if r["right"]]
    if tune_right:
        tail = min(tune_right)
        held = [r for r in rows if r["part"] == "heldout" and r[signal] is not None]
        out["tail"] = {"threshold": tail, "tune": _flagged(tune, signal, tail), "heldout": _flagged(held, signal, tail)}
    return out


def _flagged(rows: list[dict[str, Any]], signal: str, cut: float) -> dict[str, Any]:
    """What flagging the answers below `cut` does: wrong ones stopped, right ones lost (with their ids)."""
    below = [r for r in rows if r[signal] < cut]
    return {
        "wrong_stopped": sum(1 for r in below if not r["right"]),
        "right_lost": sum(1 for r in below if r["right"]),
        "ids": [f"{r['set']}/{r['id']}" for r in below],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR:TUNE_N")
    parser.add_argument("--preset", default="A")
    parser.add_argument("--name", default="uncertainty_roc")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for spec in args.runs:
        folder, _, tune_n = spec.rpartition(":")
        rows += answered_rows(Path(folder), args.preset, int(tune_n))
    result = {"runs": args.runs, "preset": args.preset, "signals": {s: report(rows, s) for s in SIGNALS}, "rows": rows}
    write_result(args.name, result)
    print(json.dumps(result["signals"], indent=1))


if __name__ == "__main__":
    main()

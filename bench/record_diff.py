"""What one setting changed: two `anchorgate eval` record files of the same questions, side by side.

    .venv/bin/python bench/record_diff.py runs/nq70/A.jsonl runs/nq70_reread/A.jsonl --questions 41:70

Questions are matched by id and numbered in the first file's order (the dataset loader's order for
a sequential run); `--questions FROM:TO` (1-based, inclusive) keeps a split, e.g. the held-out one.
Prints every question whose decision, reason, short answer or score changed, then one summary line
per file: F1, CRAG and tokens per question over the kept questions, and how many changed for the
better or the worse by F1 (an abstention scores F1 0 on an answerable question).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def load(path: Path) -> list[dict[str, Any]]:
    """The records of one file, in file order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _span(text: str) -> tuple[int, int]:
    start, _, end = text.partition(":")
    return int(start), int(end)


def _f1(record: dict[str, Any]) -> float:
    return float(record["f1"] or 0.0)


def _crag(record: dict[str, Any]) -> int:
    return int(record["crag_score"] or 0)


def _shown(record: dict[str, Any]) -> str:
    answer = record.get("short_answer") or record.get("prediction") or ""
    return f"{record['reason']} {answer[:60]!r} F1 {_f1(record):.2f} CRAG {_crag(record):+d}"


def summary(records: list[dict[str, Any]]) -> dict[str, float]:
    """F1 (answerable with gold), CRAG (items with a score) and tokens per question."""
    scored = [r for r in records if r["f1"] is not None]
    judged = [r for r in records if r["crag_score"] is not None]  # as the harness: no gold, no CRAG score
    return {
        "n": len(records),
        "f1": round(sum(_f1(r) for r in scored) / len(scored), 3) if scored else 0.0,
        "crag": round(sum(_crag(r) for r in judged) / len(judged), 3) if judged else 0.0,
        "tokens_per_question": round(sum(r["tokens"]["total"] for r in records) / len(records), 1) if records else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="records without the setting")
    parser.add_argument("after", type=Path, help="records with it (same questions)")
    parser.add_argument("--questions", type=_span, default=None, metavar="FROM:TO", help="1-based, inclusive")
    args = parser.parse_args()
    before = load(args.before)
    after = {r["id"]: r for r in load(args.after)}
    first, last = args.questions or (1, len(before))
    pairs = [(i, b, after[b["id"]]) for i, b in enumerate(before, 1) if first <= i <= last and b["id"] in after]
    better = worse = 0
    for number, old, new in pairs:
        fields = ("decision", "reason", "short_answer", "f1", "crag_score")
        if all(old.get(k) == new.get(k) for k in fields):
            continue
        better += _f1(new) > _f1(old)
        worse += _f1(new) < _f1(old)
        print(f"{number:>3} {old['question'][:70]}\n    before: {_shown(old)}\n    after:  {_shown(new)}")
    print(f"questions {first}-{last}: {len(pairs)} compared, F1 better {better}, worse {worse}")
    print("before:", json.dumps(summary([b for _, b, _ in pairs])))
    print("after: ", json.dumps(summary([a for _, _, a in pairs])))


if __name__ == "__main__":
    main()

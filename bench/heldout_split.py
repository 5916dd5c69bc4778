"""ClapNQ operating points on the first 80 questions (where settings were chosen) and the next 80
(held out), from `anchorgate eval` records; with `--abstain-p`, also the refusal-probability rule.

    .venv/bin/anchorgate eval --dataset ../shared/datasets/clapnq --limit 160 --presets baseline,A \\
        --set relevance_floor=0.3 --out runs/clapnq160_floor30
    .venv/bin/python bench/heldout_split.py runs/clapnq160_floor30/A.jsonl [--abstain-p]

The loader interleaves answerable and unanswerable items, so each half is 40 + 40.
Copies of the records used in BENCHMARKS.md: bench/results/heldout/.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

THRESHOLDS = (1.0, 0.3, 0.2, 0.15, 0.1, 0.05)


def abstain_p(record: dict[str, Any]) -> float | None:
    """The last gate decision's first-token probability of "I don't know" (None if unreported)."""
    values = [g.get("abstain_p") for g in record["telemetry"]["gate"] if g.get("abstain_p") is not None]
    return values[-1] if values else None


def operating_point(records: list[dict[str, Any]], threshold: float = 1.0) -> dict[str, float]:
    """Answer rate (answerable), abstention rate (unanswerable), wrong answers, mean F1, tokens."""

    def abstains(r: dict[str, Any]) -> bool:
        p = abstain_p(r)
        return bool(r["abstained"]) or (p is not None and p > threshold)

    answerable = [r for r in records if r["answerable"]]
    unanswerable = [r for r in records if not r["answerable"]]
    kept = [r for r in answerable if not abstains(r)]
    return {
        "answers_answerable": round(len(kept) / len(answerable), 3),
        "abstains_unanswerable": round(sum(abstains(r) for r in unanswerable) / len(unanswerable), 3),
        "wrong_on_answerable": sum(bool(r.get("wrong_on_answerable")) for r in kept),
        "f1_answerable": round(sum(r["f1"] or 0.0 for r in kept) / len(answerable), 3),
        "tokens_per_question": round(sum(r["tokens"]["total"] for r in records) / len(records), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, help="<preset>.jsonl of a 160-question ClapNQ run")
    parser.add_argument("--abstain-p", action="store_true", help="sweep the abstain_p_max rule too")
    args = parser.parse_args()
    records = [json.loads(line) for line in args.records.read_text(encoding="utf-8").splitlines() if line]
    halves = {"first 80 (tuned)": records[:80], "next 80 (held out)": records[80:]}
    for name, part in halves.items():
        for threshold in THRESHOLDS if args.abstain_p else (1.0,):
            label = f"{name}, abstain_p_max {threshold}" if args.abstain_p else name
            print(json.dumps({"split": label, "n": len(part), **operating_point(part, threshold)}))


if __name__ == "__main__":
    main()

"""Old against current scoring of stored baseline/preset record pairs (no model is run).

    .venv/bin/python bench/rescore_pairs.py --long-form NAME=BASELINE.jsonl:PRESET.jsonl [...] \
        [--name rescore_pairs]

Each record is scored again by `eval.records.rescore` (the scoring a resumed `anchorgate eval` run
applies), its item rebuilt from the record (question, gold, answerable, false premise; `--long-form`
marks the gold as passage sentences, as the ClapNQ loader does). Per pair and preset: correct, CRAG
mean, wrong on answerable, and the baseline IDKs the preset turned into supported answers, as the
records had them and as the current rule has them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from anchorgate.eval.aggregate import idk_to_supported, summarize
from anchorgate.eval.datasets import LONG_FORM_ANSWERS, QAItem
from anchorgate.eval.records import rescore
from anchorgate.eval.store import read_records

Record = dict[str, Any]


def item_of(record: Record, long_form: bool) -> QAItem:
    """The item a record was scored against, as far as scoring needs it."""
    return QAItem(id=record["id"], question=record["question"], answers=tuple(record["gold"]),
                  answerable=record["answerable"], false_premise=bool(record.get("false_premise")),
                  extra={LONG_FORM_ANSWERS: True} if long_form else {})  # fmt: skip


def numbers(baseline: list[Record], preset: list[Record]) -> dict[str, Any]:
    """What issue 13 compares, for one scoring of a pair."""
    base, run = summarize(baseline), summarize(preset)
    idk_base = sum(r["abstained"] for r in baseline if r["answerable"] and r.get("llm_fault") is None)
    return {
        "correct": [base["crag_counts"]["correct"], run["crag_counts"]["correct"]],
        "crag_mean": [base["crag_score_mean"], run["crag_score_mean"]],
        "wrong_on_answerable": [base["wrong_on_answerable"], run["wrong_on_answerable"]],
        "idk_to_supported": f"{len(idk_to_supported(baseline, preset))}/{idk_base}",
    }


def compare(baseline_path: Path, preset_path: Path, long_form: bool) -> dict[str, Any]:
    """Old and current numbers of one pair, over the questions both files hold."""
    baseline, preset = read_records(baseline_path), read_records(preset_path)
    shared = [qid for qid in baseline if qid in preset]
    old_base, old_run = [baseline[q] for q in shared], [preset[q] for q in shared]
    new_base = [rescore(r, item_of(r, long_form)) for r in old_base]
    new_run = [rescore(r, item_of(r, long_form)) for r in old_run]
    return {"questions": len(shared), "old": numbers(old_base, old_run), "current": numbers(new_base, new_run)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", metavar="NAME=BASELINE:PRESET")
    parser.add_argument("--long-form", action="store_true", help="the gold answers are passage sentences")
    parser.add_argument("--name", default="rescore_pairs")
    args = parser.parse_args()
    result = {}
    for pair in args.pairs:
        name, _, paths = pair.partition("=")
        baseline, _, preset = paths.partition(":")
        result[name] = compare(Path(baseline), Path(preset), args.long_form)
        print(name, json.dumps(result[name]))
    out = Path("bench/results") / f"{args.name}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()

"""Tuned vs held-out halves of `anchorgate eval` records: every setting is chosen on the first
`--tune` questions of a run and reported on the rest too, so a gain that only fits the questions
it was tuned on shows up as a gap between the two rows.

    .venv/bin/anchorgate eval --dataset ../shared/datasets/clapnq --limit 160 --presets baseline,A --out runs/clapnq160
    .venv/bin/python bench/heldout_split.py runs/clapnq160/baseline.jsonl runs/clapnq160/A.jsonl --tune 80

Records are in the dataset loader's order (ClapNQ interleaves answerable and unanswerable items,
so each half of 160 is 40 + 40). `--abstain-p` also sweeps the first-token refusal rule
(`abstain_p_max`). `--guess CUT` replays the guessed-answer rule on records written without it: an
answer whose last answer-span confidence is below CUT counts as withdrawn (exact for a one-round
preset such as A; for B it leaves out the round 2 the rule would have bought). On records written
with `second_reading=record`, `--reread [CAP]` replays `second_reading=withdraw` with
`(e5_)second_reading_below_relevance` CAP (default 1.0): an answer read differently is withdrawn, and
only the readings CAP allows are paid for (`--reread 0`: the second reading off). Latency is as run.
`--markdown` prints one table instead of JSON lines.
Copies of the records used in docs/benchmark-log.md: bench/results/heldout/ and bench/results/eval/.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from anchorgate.tools.answer.second_reading import answers_agree

THRESHOLDS = (1.0, 0.3, 0.2, 0.15, 0.1, 0.05)
COLUMNS = ("n", "f1", "em", "crag", "answers_answerable", "abstains_unanswerable", "wrong_on_answerable",
           "tokens_per_question", "latency_p50_s")  # fmt: skip


def abstain_p(record: dict[str, Any]) -> float | None:
    """The last gate decision's first-token probability of "I don't know" (None if unreported)."""
    values = [g.get("abstain_p") for g in record["telemetry"]["gate"] if g.get("abstain_p") is not None]
    return values[-1] if values else None


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def guessed(record: dict[str, Any], cut: float | None) -> bool:
    """An answer the guessed-answer rule would withdraw: its last answer-span confidence is below `cut`."""
    if cut is None or record["abstained"]:
        return False
    confidence = record["telemetry"]["gate"][-1].get("answer_confidence")
    return confidence is not None and confidence < cut


def reread_paid(record: dict[str, Any], cap: float | None) -> bool:
    """Whether `second_reading=withdraw` with relevance cap `cap` would have read this record again (None:
    no replay, the record as run; a one-passage context is never read again)."""
    if cap is None:
        return "second_reading" in record["tokens"].get("by_stage", {})
    if not record["telemetry"]["gate"] or len(record["telemetry"]["context_ids"]) < 2:
        return False
    return float(record["telemetry"]["gate"][0].get("top_relevance") or 0.0) < cap


def tokens(record: dict[str, Any], cap: float | None) -> int:
    """The record's tokens, less the second reading's when the replayed setting would not pay for it."""
    spent = record["tokens"]["total"]
    if reread_paid(record, cap):
        return int(spent)
    stage = record["tokens"].get("by_stage", {}).get("second_reading", {})
    return int(spent - stage.get("prompt", 0) - stage.get("completion", 0))


def reread_inconsistent(record: dict[str, Any], cap: float | None) -> bool:
    """An answer `second_reading=withdraw` would withdraw: its last gate entry says a second reading of the
    passages in reverse order did not give it again (records written with `second_reading=record`)."""
    if cap is None or record["abstained"] or not reread_paid(record, cap):
        return False
    reading = record["telemetry"].get("second_reading")
    if reading and reading.get("answer") == (record["telemetry"].get("draft_structure") or {}).get("answer"):
        # agreement measured again with today's `answers_agree` (a run may predate a change to it)
        return not answers_agree(reading["answer"], reading["second"], record["question"])
    return bool(record["telemetry"]["gate"][-1].get("answer_inconsistent"))


def operating_point(
    records: list[dict[str, Any]], threshold: float = 1.0, guess: float | None = None, reread: float | None = None
) -> dict[str, Any]:
    """F1/EM (all questions with gold), CRAG, answer and abstention rates, wrong answers, cost."""

    def withdrawn(r: dict[str, Any]) -> bool:
        return guessed(r, guess) or reread_inconsistent(r, reread)

    def abstains(r: dict[str, Any]) -> bool:
        p = abstain_p(r)
        return bool(r["abstained"]) or (p is not None and p > threshold) or withdrawn(r)

    answerable = [r for r in records if r["answerable"]]
    unanswerable = [r for r in records if not r["answerable"]]
    kept = [r for r in answerable if not abstains(r)]
    scored = [r for r in records if r.get("f1") is not None]
    return {
        "n": len(records),
        "f1": _mean([0.0 if abstains(r) else float(r["f1"]) for r in scored]),
        "em": _mean([0.0 if abstains(r) else float(r.get("em") or 0.0) for r in scored]),
        "crag": _mean([0.0 if withdrawn(r) else float(r["crag_score"]) for r in records
                       if r.get("crag_score") is not None]),  # fmt: skip
        "answers_answerable": _rate(len(kept), len(answerable)),
        "abstains_unanswerable": _rate(sum(abstains(r) for r in unanswerable), len(unanswerable)),
        "wrong_on_answerable": sum(bool(r.get("wrong_on_answerable")) for r in kept),
        "tokens_per_question": round(sum(tokens(r, reread) for r in records) / len(records), 1),
        "latency_p50_s": round(statistics.median(r["latency_s"] for r in records), 2),
    }


def halves(records: list[dict[str, Any]], tune: int) -> dict[str, list[dict[str, Any]]]:
    """{"tuned (first N)": …, "held out (next M)": …} (held out omitted when empty)."""
    split = {f"tuned (first {min(tune, len(records))})": records[:tune]} if tune > 0 else {}
    if records[tune:]:
        split[f"held out (next {len(records) - tune})"] = records[tune:]
    return split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, nargs="+", help="<preset>.jsonl files of one run")
    parser.add_argument("--tune", type=int, default=80, help="questions the settings were chosen on")
    parser.add_argument("--abstain-p", action="store_true", help="sweep the abstain_p_max rule too")
    parser.add_argument("--guess", type=float, default=None, help="replay the guessed-answer rule at this cut")
    parser.add_argument("--reread", type=float, nargs="?", const=1.0, default=None, metavar="CAP",
                        help="replay second_reading=withdraw (relevance cap CAP) on record-mode runs")  # fmt: skip
    parser.add_argument("--markdown", action="store_true", help="one Markdown table")
    args = parser.parse_args()
    rows = []
    for path in args.records:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        for name, part in halves(records, args.tune).items():
            for threshold in THRESHOLDS if args.abstain_p else (1.0,):
                label = f"{name}, abstain_p_max {threshold}" if args.abstain_p else name
                if args.guess is not None:
                    label = f"{label}, guesses withdrawn (< {args.guess})"
                if args.reread == 0:
                    label = f"{label}, second reading off"
                elif args.reread is not None:
                    label = f"{label}, answers read differently withdrawn (relevance < {args.reread})"
                point = operating_point(part, threshold, args.guess, args.reread)
                rows.append({"preset": path.stem, "split": label, **point})
    if not args.markdown:
        for row in rows:
            print(json.dumps(row))
        return
    print("| preset | split | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for row in rows:
        print(f"| {row['preset']} | {row['split']} | " + " | ".join(str(row[c]) for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()

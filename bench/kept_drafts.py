"""What the two answer-stage changes of 2026-11-26 did in `anchorgate eval` records of preset A.

    .venv/bin/python bench/kept_drafts.py A.jsonl [--baseline baseline.jsonl] [--name "FacQA 151–250"]

- **Kept drafts** (`agents/generator.py`): how many passes kept the reader's draft instead of asking
  the same prompt again, the generate calls and tokens per question, and an estimate of the tokens
  without keeping (one more call of the first draft's size per kept draft: the kept draft is the
  reply that call would have returned). With `--baseline` (records of the same questions, matched
  by id) the ratios to baseline's tokens.
- **Quotes matched to their whole sentence** (`tools/answer/quoted_draft.py`): the answers whose
  grounding is higher against the whole sentence than against the quote's own text (the head the
  grammar allowed), with their decision and F1.

Prints one markdown table row and the grounded answers; no model is run.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from anchorgate.tools.answer.citations import overlap_words
from anchorgate.tools.answer.quoted_draft import YES_NO


def load(path: Path) -> list[dict[str, Any]]:
    """The records of one file, in file order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def kept_drafts(records: list[dict[str, Any]]) -> dict[str, float]:
    """Kept drafts, generate calls and tokens per question, and the tokens without keeping."""
    kept = extra = 0
    for record in records:
        count = int(record["telemetry"].get("drafts_reused") or 0)
        first = next(c for c in record["telemetry"]["calls"] if c["stage"] == "generate") if count else None
        kept += count
        extra += count * (first["prompt"] + first["completion"]) if first else 0
    n = len(records)
    tokens = sum(r["tokens"]["total"] for r in records) / n
    calls = sum(r["tokens"]["by_stage"].get("generate", {}).get("calls", 0) for r in records) / n
    return {"n": n, "kept": kept, "calls": calls, "tokens": tokens, "without_keeping": tokens + extra / n}


def head_grounding(structure: dict[str, Any]) -> float | None:
    """The answer's grounding against its quotes' own text (what it was before the whole-sentence match)."""
    words = overlap_words(structure.get("clipped_answer") or structure.get("answer", "")) - YES_NO
    quotes = [q for q in structure.get("quotes", []) if q["status"] != "absent"]
    if structure.get("status") != "quoted" or not words:
        return None
    if not quotes:
        return 0.0
    return round(len(words & overlap_words(" ".join(q["text"] for q in quotes))) / len(words), 4)


def grounded_by_whole_sentence(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers whose grounding rose when their quote was matched to its whole sentence."""
    rows = []
    for record in records:
        structure = record["telemetry"].get("draft_structure") or {}
        before = head_grounding(structure)
        if before is not None and before < float(structure.get("grounding", 0.0)):
            answer = structure.get("answer", "")
            rows.append({"id": record["id"], "reason": record["reason"], "f1": record["f1"],
                         "head": before, "whole": structure["grounding"], "answer": answer})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", type=Path, help="preset A's records (A.jsonl)")
    parser.add_argument("--baseline", type=Path, default=None, help="baseline's records of the same questions")
    parser.add_argument("--name", default="", help="the set's name for the table row")
    args = parser.parse_args()
    records = load(args.records)
    spend = kept_drafts(records)
    baseline_tokens = None
    if args.baseline:
        by_id = {r["id"]: r for r in load(args.baseline)}
        matched = [by_id[r["id"]] for r in records if r["id"] in by_id]
        baseline_tokens = sum(r["tokens"]["total"] for r in matched) / len(matched) if matched else None

    def with_ratio(tokens: float) -> str:
        return f"{tokens:.0f} ({tokens / baseline_tokens:.2f}×)" if baseline_tokens else f"{tokens:.0f}"

    base = f"{baseline_tokens:.0f}" if baseline_tokens else "–"
    print(f"| {args.name or args.records.parent.name} | {spend['kept']:.0f} of {spend['n']:.0f} | {spend['calls']:.2f} "
          f"| {with_ratio(spend['tokens'])} | {with_ratio(spend['without_keeping'])} | {base} |")  # fmt: skip
    grounded = grounded_by_whole_sentence(records)
    stops = [g for g in grounded if g["reason"].startswith("STOP")]
    right = [g for g in stops if (g["f1"] or 0) >= 0.5]
    print(f"grounding rose on {len(grounded)} answers; {len(stops)} stopped, {len(right)} of them with F1 >= 0.5")
    for row in grounded:
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()

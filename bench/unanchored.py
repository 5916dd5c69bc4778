"""What `abstain_unanchored_answers` withdrew, from `anchorgate eval` records (no model is run).

    .venv/bin/python bench/unanchored.py RECORDS.jsonl [--dataset PATH [--format F] [--language L]]

Records written with the rule carry the `answer_unanchored` signal and the reasons
ABSTAIN_UNANCHORED_ANSWER / RETRIEVE_UNANCHORED_ANSWER: each withdrawn answer is listed with its
draft, whether its question was answerable, and the draft's token F1 against the gold answers.

Records written before the rule (a STOP it would have withdrawn) need `--dataset`, the dataset they
were run on (its `run.json` gives limit, skip and language): the signal is then recomputed from the
draft's citations over the whole passages the context chunks come from, an estimate (the gate reads
the chunks themselves). A record is "right" at F1 ≥ 0.5 on an answerable question, "wrong" below it,
and "unanswerable" when the dataset says no answer is in the passages.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from anchorgate.eval.datasets import load_dataset
from anchorgate.eval.scoring.metrics import best_over_aliases, token_f1
from anchorgate.tools.answer.answer_links import NAMED_KINDS, answer_unanchored
from anchorgate.tools.answer.text import strip_citations
from anchorgate.tools.question.anchors import extract_anchors


def load(path: Path) -> list[dict[str, Any]]:
    """The records of one file, in file order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def withdrawn_draft(record: dict[str, Any]) -> str:
    """The answer the gate measured: the draft (after citation repair; records since 2026-11-26
    keep it), else the quoted draft's answer line, else the answer given."""
    structure = record["telemetry"].get("draft_structure") or {}
    return str(record["telemetry"].get("draft") or structure.get("raw") or record["prediction"])


def outcome(record: dict[str, Any], draft: str) -> tuple[str, float | None]:
    """right / wrong / unanswerable, and the draft's token F1 over the gold answers."""
    if record.get("answerable") is False:
        return "unanswerable", None
    structure = record["telemetry"].get("draft_structure") or {}
    short = structure.get("answer") if structure.get("status") == "quoted" else strip_citations(draft)
    f1 = best_over_aliases(short or "", record.get("gold") or [], token_f1)
    if f1 is None:
        return "answerable, no gold", None
    return ("right" if f1 >= 0.5 else "wrong"), round(f1, 3)


def fired_in_records(record: dict[str, Any]) -> bool:
    return any(g.get("answer_unanchored") for g in record["telemetry"]["gate"])  # records flatten the signals


def passage_lookup(records_path: Path, dataset: str, fmt: str, language: str | None) -> dict[str, Any]:
    """Passage id -> passage, for the questions of the run that wrote the records."""
    run = json.loads((records_path.parent / "run.json").read_text(encoding="utf-8"))
    data = load_dataset(
        dataset, fmt, limit=run.get("limit"), language=language or run.get("language"), skip=run.get("skip") or 0
    )
    passages = {p.id: p for item in data.items for p in item.passages}
    passages.update({p.id: p for p in data.corpus or ()})
    return passages


def recomputed(record: dict[str, Any], passages: dict[str, Any]) -> bool:
    """The signal over whole passages, for a STOP record written before the rule."""
    if record["decision"] != "STOP":
        return False
    named = [a for a in extract_anchors(record["question"]) if a.kind in NAMED_KINDS and not a.inferred]
    return answer_unanchored(named, withdrawn_draft(record), _context(record, passages))


def _context(record: dict[str, Any], passages: dict[str, Any]) -> list[dict[str, Any]]:
    """The numbered context passages of a record, whole (records keep only the chunk ids)."""
    context = []
    for entry in record["telemetry"].get("context", []):
        passage = passages.get(entry["id"].rsplit("#", 1)[0])
        if passage is not None:
            context.append({"n": entry["n"], "title": passage.title, "text": passage.text})
    if not context:  # records keep only chunk ids in `context_ids`
        for n, chunk_id in enumerate(record["telemetry"].get("context_ids", []), start=1):
            passage = passages.get(chunk_id.rsplit("#", 1)[0])
            if passage is not None:
                context.append({"n": n, "title": passage.title, "text": passage.text})
    return context


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", type=Path)
    parser.add_argument("--dataset", help="recompute the signal for records written before the rule")
    parser.add_argument("--format", default="auto")
    parser.add_argument("--language")
    args = parser.parse_args()
    records = load(args.records)
    passages = passage_lookup(args.records, args.dataset, args.format, args.language) if args.dataset else None
    tally: Counter[str] = Counter()
    for record in records:
        fired = recomputed(record, passages) if passages is not None else fired_in_records(record)
        if not fired:
            continue
        draft = withdrawn_draft(record)
        kind, f1 = outcome(record, draft)
        tally[kind] += 1
        question = record["question"][:70]
        print(f"- {record['id']} · {kind} (F1 {f1}) · {record['reason']} · {question!r} → {draft[:70]!r}")
    decided = Counter(r["reason"] for r in records)
    print(
        f"{args.records}: {len(records)} questions; the rule "
        f"{'would withdraw' if passages is not None else 'fired on'} "
        f"{sum(tally.values())}: {dict(tally)}; "
        f"ABSTAIN_UNANCHORED_ANSWER {decided['ABSTAIN_UNANCHORED_ANSWER']}"
    )


if __name__ == "__main__":
    main()

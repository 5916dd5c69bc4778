"""B's second reading at a relevance cap, replayed from two runs of B: one without the second reading
(as shipped) and one that read every quoted answer twice (`--set gate.second_reading_below_relevance=1`).

    .venv/bin/python bench/reread_cap_replay.py <baseline>.jsonl <B as shipped>.jsonl <B read twice>.jsonl

For each cap, a question whose round-1 context has its best relevance at or above the cap keeps the
as-shipped record, the others the read-twice one. That is exact for round 1; a round-2 context below
the cap would have been read again too, which the replay leaves out. Prints wrong answers on answerable
questions, right answers, abstentions and tokens per question (and their ratio to baseline's) per cap
(docs/benchmark-log.md, 2026-11-27: B with the second reading on MiniLM indexes).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

CAPS = (0.0, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 1.0)


def _records(path: Path) -> dict[str, dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, filter(None, lines))}


def first_relevance(record: dict[str, Any]) -> float:
    """The best passage relevance the first gate decision measured (0 when none was made)."""
    gates = record["telemetry"]["gate"]
    return float(gates[0].get("top_relevance") or 0.0) if gates else 0.0


def replay(shipped: dict[str, dict[str, Any]], twice: dict[str, dict[str, Any]], cap: float) -> list[dict[str, Any]]:
    """The records B would have written with the second reading paid only below `cap` (round 1)."""
    return [twice[i] if first_relevance(twice[i]) < cap else shipped[i] for i in twice]


def summary(records: list[dict[str, Any]], baseline_tokens: float) -> dict[str, Any]:
    tokens = sum(r["tokens"]["total"] for r in records) / len(records)
    return {
        "wrong_on_answerable": sum(bool(r["wrong_on_answerable"]) for r in records),
        "right": sum(bool(r["correct"]) for r in records),
        "abstained": sum(bool(r["abstained"]) for r in records),
        "tokens_per_question": round(tokens, 1),
        "tokens_vs_baseline": round(tokens / baseline_tokens, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("baseline", type=Path)
    parser.add_argument("shipped", type=Path)
    parser.add_argument("twice", type=Path)
    args = parser.parse_args()
    base, shipped, twice = _records(args.baseline), _records(args.shipped), _records(args.twice)
    baseline_tokens = sum(base[i]["tokens"]["total"] for i in twice) / len(twice)
    for cap in CAPS:
        print(json.dumps({"cap": cap, **summary(replay(shipped, twice, cap), baseline_tokens)}))


if __name__ == "__main__":
    main()

"""Issue 4: abstention on ClapNQ — unanswerable questions (one passage that lacks the answer).

    .venv/bin/python bench/abstention.py [--per-side 40] [--presets baseline,A]

Each question is asked over its own passage (per-question index, real MiniLM, real local LLM).
Reports, per preset, the abstention rate on unanswerable questions and the answer rate on
answerable ones, tokens per question and the stop-reason histogram. Results are appended per
question to bench/results/abstention.jsonl (a killed run resumes) and summarised in
bench/results/abstention.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATASETS, RESULTS, write_result  # noqa: E402

from anchorgate.api import aask, resolve_config  # noqa: E402
from anchorgate.eval.datasets import load_dataset  # noqa: E402
from anchorgate.tools.services import register_services, services_for_passages  # noqa: E402


async def run_one(item: Any, preset: str, checkpoint: str) -> dict[str, Any]:
    config = resolve_config(preset)
    services_id = register_services(services_for_passages(list(item.passages), config))
    result = await aask(
        item.question,
        preset=preset,
        overrides={"resources.services_id": services_id, "resources.checkpoint_db": checkpoint},
    )
    return {
        "id": item.id,
        "preset": preset,
        "answerable": item.answerable,
        "decision": result["decision"],
        "reason": result["reason"],
        "tokens": result["tokens"]["total"],
        "answer": result["answer"][:300],
        "overlap": result["telemetry"].get("support_overlap"),
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    unanswerable = [r for r in rows if not r["answerable"]]
    answerable = [r for r in rows if r["answerable"]]
    return {
        "unanswerable": len(unanswerable),
        "answerable": len(answerable),
        "abstain_rate_unanswerable": round(
            sum(r["decision"] == "ABSTAIN" for r in unanswerable) / max(len(unanswerable), 1), 3
        ),
        "answer_rate_answerable": round(sum(r["decision"] == "STOP" for r in answerable) / max(len(answerable), 1), 3),
        "tokens_per_question_mean": round(sum(r["tokens"] for r in rows) / max(len(rows), 1), 1),
        "reasons": dict(Counter(r["reason"] for r in rows).most_common()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-side", type=int, default=40)
    parser.add_argument("--presets", default="baseline,A")
    args = parser.parse_args()
    data = load_dataset(DATASETS / "clapnq", limit=2 * args.per_side)  # interleaved answerable/unanswerable
    log = RESULTS / "abstention.jsonl"
    RESULTS.mkdir(parents=True, exist_ok=True)
    done = {(r["preset"], r["id"]): r for r in map(json.loads, log.read_text().splitlines())} if log.exists() else {}
    summary: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for preset in args.presets.split(","):
            for item in data.items:
                if (preset, item.id) not in done:
                    row = asyncio.run(run_one(item, preset, f"{tmp}/c.sqlite"))
                    done[(preset, item.id)] = row
                    with log.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row) + "\n")
            ids = {item.id for item in data.items}
            summary[preset] = summarize([r for (p, i), r in done.items() if p == preset and i in ids])
            print(preset, summary[preset], flush=True)
    command = f"python bench/abstention.py --per-side {args.per_side} --presets {args.presets}"
    print(write_result("abstention", {"command": command, "results": summary}))


if __name__ == "__main__":
    main()

"""Does the relevance floor separate ClapNQ's answerable from unanswerable questions?

For each question, the best hybrid relevance (the score the floor gates on, preset A's settings)
of its own passage's chunks; then, per candidate floor, the share of answerable questions that
keep evidence and the share of unanswerable ones left with none (which the gate turns into
ABSTAIN_NO_EVIDENCE).

Usage: .venv/bin/python bench/clapnq_relevance_probe.py [--limit 80]
Writes bench/results/clapnq_relevance_probe.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATASETS  # noqa: E402

from anchorgate.api import resolve_config  # noqa: E402
from anchorgate.tools.datasets import load_dataset  # noqa: E402
from anchorgate.tools.hybrid import HybridSearcher  # noqa: E402
from anchorgate.tools.services import services_for_passages  # noqa: E402

FLOORS = (0.2, 0.25, 0.3, 0.35, 0.4)


def best_relevance(limit: int) -> list[tuple[bool, float]]:
    """(answerable, best gated relevance of the question's own passage) per question."""
    dataset = load_dataset(DATASETS / "clapnq", limit=limit)
    config = resolve_config("A")
    rows = []
    for item in dataset.items:
        services = services_for_passages(list(item.passages), config, name=f"{dataset.name}:{item.id}")
        vector = services.embeddings.embed_query(item.question)
        found = HybridSearcher.for_index(services.index).search(
            item.question, vector, pool_k=config.retrieval_pool_k, mode="hybrid", relevance_floor=0.0
        )
        rows.append((item.answerable, max((f.relevance for f in found), default=0.0)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=80)
    args = parser.parse_args()
    rows = best_relevance(args.limit)
    answerable = [score for ok, score in rows if ok]
    unanswerable = [score for ok, score in rows if not ok]
    table = [
        {
            "floor": floor,
            "answerable_keep_evidence": round(sum(s >= floor for s in answerable) / len(answerable), 3),
            "unanswerable_left_without": round(sum(s < floor for s in unanswerable) / len(unanswerable), 3),
        }
        for floor in FLOORS
    ]
    out = Path("bench/results/clapnq_relevance_probe.json")
    out.write_text(json.dumps({"limit": args.limit, "floors": table, "scores": rows}, indent=1) + "\n")
    for row in table:
        print(row)


if __name__ == "__main__":
    main()

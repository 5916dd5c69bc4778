"""Does the relevance floor separate answerable from unanswerable questions (ClapNQ, NoMIRACL)?

For each question, the best hybrid relevance (the score the floor gates on, preset A's settings)
of its own passage's chunks; then, per candidate floor, the share of answerable questions that
keep evidence and the share of unanswerable ones left with none (which the gate turns into
ABSTAIN_NO_EVIDENCE).

Usage: .venv/bin/python bench/relevance_probe.py [--dataset clapnq] [--language en] [--limit 80]
Writes bench/results/relevance_probe_<dataset>[_<language>].json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATASETS  # noqa: E402

from anchorgate.api import resolve_config  # noqa: E402
from anchorgate.eval.datasets import load_dataset  # noqa: E402
from anchorgate.tools.retrieval.hybrid import HybridSearcher  # noqa: E402
from anchorgate.tools.services import services_for_passages  # noqa: E402

FLOORS = (0.2, 0.25, 0.3, 0.35, 0.4)


def best_relevance(name: str, language: str | None, limit: int) -> list[tuple[bool, float]]:
    """(answerable, best gated relevance of the question's own passages) per question."""
    dataset = load_dataset(DATASETS / name, limit=limit, language=language)
    config = resolve_config("A")
    rows = []
    for item in dataset.items:
        services = services_for_passages(list(item.passages), config, name=f"{dataset.name}:{item.id}")
        vector = services.embeddings.embed_query(item.question)
        found = HybridSearcher.for_index(services.index).search(
            item.question, vector, pool_k=config.retrieval.pool_k, mode="hybrid", relevance_floor=0.0
        )
        rows.append((item.answerable, max((f.relevance for f in found), default=0.0)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="clapnq", help="a folder of ../shared/datasets with per-question passages")
    parser.add_argument("--language", default=None)
    parser.add_argument("--limit", type=int, default=80)
    args = parser.parse_args()
    rows = best_relevance(args.dataset, args.language, args.limit)
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
    suffix = f"_{args.language}" if args.language else ""
    out = Path(f"bench/results/relevance_probe_{args.dataset}{suffix}.json")
    payload = {"dataset": args.dataset, "language": args.language, "limit": args.limit, "floors": table, "scores": rows}
    out.write_text(json.dumps(payload, indent=1) + "\n")
    for row in table:
        print(row)


if __name__ == "__main__":
    main()

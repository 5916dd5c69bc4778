"""Issue 4: does preset A hand the generator both gold passages of a HotpotQA question?

    .venv/bin/python bench/anchor_recall.py [--limit 100] [--set key=value ...] [--name anchor_recall]

Runs the graph's own retrieval nodes (anchor predictor → one retriever worker per query →
fuse and select) on the pooled 994-passage corpus, no LLM needed, and compares the share of
questions whose generator context holds BOTH gold passages with plain dense top-8 and a plain
dense+BM25 reciprocal-rank fusion top-8. Results: bench/results/anchor_recall.json.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATASETS, percentile, write_result  # noqa: E402

from anchorgate.agents.anchor_predictor import predict_anchors  # noqa: E402
from anchorgate.agents.fuse_and_select import fuse_and_select  # noqa: E402
from anchorgate.agents.retriever_worker import retrieve  # noqa: E402
from anchorgate.eval.datasets import load_dataset  # noqa: E402
from anchorgate.graph.config import parse_assignments  # noqa: E402
from anchorgate.graph.presets import load_preset  # noqa: E402
from anchorgate.graph.state import merge_evidence  # noqa: E402
from anchorgate.tools.retrieval.hybrid import HybridSearcher  # noqa: E402
from anchorgate.tools.services import register_services, services_for_passages  # noqa: E402


class _Runtime:
    """The one attribute nodes read from LangGraph's Runtime."""

    def __init__(self, context: Any) -> None:
        self.context = context


async def preset_selection(question: str, config: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Preset A's own path without the LLM: anchor predictor → one retriever worker per query →
    fuse and select. The packed context, every chunk the workers found, and how many workers ran."""
    runtime = _Runtime(config)
    state: dict[str, Any] = {"question": question}
    state.update(await predict_anchors(state, runtime))  # type: ignore[arg-type]
    evidence: list[dict[str, Any]] = []
    for query in state["pending_queries"]:
        worker = {"question": question, "pass_no": 1, **query}
        evidence = merge_evidence(evidence, (await retrieve(worker, runtime))["evidence"])  # type: ignore[arg-type]
    state["evidence"] = evidence
    selected = await fuse_and_select(state, runtime)  # type: ignore[arg-type]
    return selected["context"], evidence, len(state["pending_queries"])


async def preset_context(question: str, config: Any) -> tuple[list[str], int, set[str]]:
    """Doc ids of the context the generator would see, how many workers ran, and every doc id
    the workers found (before selection)."""
    context, evidence, workers = await preset_selection(question, config)
    return [p["doc_id"] for p in context], workers, {e["doc_id"] for e in evidence}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--name", default="anchor_recall", help="result file name under bench/results")
    args = parser.parse_args()
    data = load_dataset(DATASETS / "hotpotqa_sample", limit=args.limit)
    overrides = parse_assignments(args.overrides)
    config = load_preset("A", {"resources.chunk_tokens": 256, "chunk_overlap_tokens": 32, **overrides})
    services = services_for_passages(list(data.corpus or []), config, name="hotpotqa", progress=True)
    config = config.replace(**{"resources.services_id": register_services(services)})
    searcher = HybridSearcher.for_index(services.index)
    both = {"preset_A": 0, "dense_top8": 0, "rrf_top8": 0, "workers_union": 0}
    workers, seconds = [], []
    for item in data.items:
        gold = set(item.gold_passage_ids)
        started = time.perf_counter()
        docs, n_workers, found = asyncio.run(preset_context(item.question, config))
        seconds.append(time.perf_counter() - started)
        workers.append(n_workers)
        vector = services.embeddings.embed_query(item.question)
        dense = [services.index.chunks[row].doc_id for row, _ in services.index.search(vector, 8)]
        rrf = [h.chunk.doc_id for h in searcher.search(item.question, vector, pool_k=8, mode="hybrid")]
        both["preset_A"] += gold <= set(docs)
        both["workers_union"] += gold <= found
        both["dense_top8"] += gold <= set(dense)
        both["rrf_top8"] += gold <= set(rrf)
    n = len(data.items)
    results = {
        "overrides": overrides,
        "questions": n,
        "both_gold_in_context": {k: round(v / n, 3) for k, v in both.items()},
        "workers_per_question_mean": round(sum(workers) / n, 2),
        "retrieval_seconds_p50": round(percentile(seconds, 50), 3),
    }
    print(results)
    print(
        write_result(
            args.name, {"command": " ".join(["python bench/anchor_recall.py", *sys.argv[1:]]), "results": results}
        )
    )


if __name__ == "__main__":
    main()

"""Retrieval Recall@8 with all-MiniLM-L6-v2 vs multilingual-e5-small on Indonesian data (issue 15).

    python bench/multilingual_retrieval.py [--squad N] [--nomiracl N] [--out bench/results/multilingual_retrieval.json]

Data (read-only, `<repo>/../shared/datasets` or $ANCHORGATE_DATASETS):

* SQuAD2-id pooled: every answerable question of the translated SQuAD 2.0 dev sample (first N)
  against the whole pool of its 1,202 paragraphs; gold = the question's own paragraph.
* NoMIRACL-id: the first N relevant and N non-relevant queries; their passages (10 each) form one
  pool and the relevant queries are asked against it. NoMIRACL labels no passage, only the set
  ("at least one of these 10 answers"), so gold = the query's own 10 candidate passages and the
  numbers are own-candidate hit@8 (any of them in the top 8) and recall@8 (|own ∩ top 8| / 8).

Each pool is indexed with each model through the product's own path (`build_or_load`, 256-token
chunks so a passage stays whole where it fits; cache $ANCHORGATE_CACHE/bench_multilingual); chunks
map back to passages and a passage counts once, at its best chunk. Rows: dense (the model alone)
and hybrid (dense + BM25, RRF, as preset A retrieves; BM25 tokens are the same for both models).
Nothing is tuned here; each set is also reported by halves (first / second) to show the spread.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from anchorgate.eval.datasets import load_dataset
from anchorgate.eval.retrieval_metrics import dedupe
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.index.embeddings import E5, MINILM, embedding_choice, load_embeddings
from anchorgate.tools.retrieval.hybrid import HybridSearcher

REPO = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("ANCHORGATE_DATASETS", REPO.parent / "shared" / "datasets"))
CACHE = Path(os.environ.get("ANCHORGATE_CACHE", Path.home() / ".cache" / "anchorgate")) / "bench_multilingual"
CHUNKING = ChunkingSettings(chunk_tokens=256, overlap_tokens=32)
K, FETCH = 8, 40
Query = tuple[str, set[str]]  # question, gold passage ids


def squad_queries(limit: int) -> tuple[list[Passage], list[Query]]:
    """The SQuAD2-id pool and its first `limit` answerable questions with their gold paragraph."""
    dataset = load_dataset(DATASETS / "squad2_id_translated")
    items = [item for item in dataset.items if item.answerable and item.gold_passage_ids][:limit]
    return list(dataset.corpus or ()), [(item.question, set(item.gold_passage_ids)) for item in items]


def nomiracl_queries(limit: int) -> tuple[list[Passage], list[Query]]:
    """A pool of the passages of `limit` relevant + `limit` non-relevant NoMIRACL-id queries, and the
    relevant queries with their own candidate passages as gold."""
    items = load_dataset(DATASETS / "nomiracl", language="id").items
    relevant = [item for item in items if item.answerable][:limit]
    other = [item for item in items if not item.answerable][:limit]
    pool: dict[str, Passage] = {}
    for item in [*relevant, *other]:
        for passage in item.passages:
            pool.setdefault(passage.id, passage)
    return list(pool.values()), [(item.question, {p.id for p in item.passages}) for item in relevant]


def ranked_passages(searcher: HybridSearcher, question: str, vector: list[float], mode: str) -> list[str]:
    """Passage ids in rank order (a passage once, at its best chunk)."""
    if mode == "dense":
        chunks = [chunk for chunk, _ in searcher.dense(vector, FETCH)]
    else:
        chunks = [hit.chunk for hit in searcher.search(question, vector, pool_k=FETCH, mode="hybrid")]
    return dedupe([chunk.doc_id for chunk in chunks])


def measure(name: str, pool: list[Passage], queries: list[Query], model: str) -> dict[str, Any]:
    """Hit@8 and recall@8 (over min(8, |gold|)) of `queries` against `pool` indexed with `model`."""
    embeddings = load_embeddings("" if model == MINILM else model)
    started = time.perf_counter()
    index = build_or_load(pool, embeddings, embedding_choice(model).fingerprint, CHUNKING, CACHE, name=name)
    built = time.perf_counter() - started
    searcher = HybridSearcher.for_index(index)
    vectors = [embeddings.embed_query(question) for question, _ in queries]
    rows: dict[str, Any] = {"model": model, "passages": len(pool), "chunks": len(index.chunks)}
    rows["index_seconds"] = round(built, 1) if index.fresh else None
    for mode in ("dense", "hybrid"):
        hits, recalls = [], []
        for (question, gold), vector in zip(queries, vectors, strict=True):
            ranked = ranked_passages(searcher, question, vector, mode)
            hits.append(float(bool(gold & set(ranked[:K]))))
            recalls.append(len(gold & set(ranked[:K])) / min(K, len(gold)))
        rows[mode] = _summary(hits, recalls)
    return rows


def _summary(hits: Sequence[float], recalls: Sequence[float]) -> dict[str, Any]:
    half = len(hits) // 2

    def mean(values: Sequence[float]) -> float:
        return round(sum(values) / len(values), 4) if values else 0.0

    return {
        "questions": len(hits),
        "hit@8": mean(hits),
        "recall@8": mean(recalls),
        "recall@8 first half": mean(recalls[:half]),
        "recall@8 second half": mean(recalls[half:]),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", type=int, default=1000, help="answerable SQuAD2-id questions (default 1000)")
    parser.add_argument("--nomiracl", type=int, default=100, help="relevant (and as many non-relevant) queries")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "multilingual_retrieval.json"))
    args = parser.parse_args(argv)
    sets = {"squad2_id_pooled": squad_queries(args.squad), "nomiracl_id_pooled": nomiracl_queries(args.nomiracl)}
    results: dict[str, Any] = {"k": K, "chunking": CHUNKING.__dict__, "sets": {}}
    for name, (pool, queries) in sets.items():
        results["sets"][name] = [measure(name, pool, queries, model) for model in (MINILM, E5)]
        for row in results["sets"][name]:
            print(name, row["model"], "dense", row["dense"], "hybrid", row["hybrid"], file=sys.stderr)
    Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


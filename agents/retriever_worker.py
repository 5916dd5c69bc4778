"""Retriever worker: one query (the question, one anchor, an anchor retry or HyDE), sent with `Send`.

Dense mode is plain FAISS top-k (the baseline), one chunk per distinct text; hybrid mode fuses
FAISS and BM25 and applies the relevance floor, so an irrelevant chunk never enters the pool
however authoritative it looks. `vector_store` picks the store (tools/retrieval/vector_backend.py): the
local FAISS + BM25 index, or PostgreSQL (pgvector + full-text search) with the same fusion and gate.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import WorkerState
from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.index.embeddings import on_e5_scale
from anchorgate.tools.retrieval.evidence import to_evidence
from anchorgate.tools.retrieval.selection import unique_by_content
from anchorgate.tools.retrieval.vector_backend import dense_hits, searcher_for
from anchorgate.tools.services import Services, aservices_for


def relevance_floor(config: Config, services: Services) -> float:
    """The floor for this index's embedding scale: multilingual-e5 scores passages on its own scale."""
    return config.scaled("retrieval.relevance_floor", on_e5_scale(services.embeddings))


async def retrieve(state: WorkerState, runtime: Runtime[Config]) -> dict[str, Any]:
    """This worker's candidates as evidence records (ranked, scored, tagged with the pass)."""
    config = runtime.context
    started = time.perf_counter()
    services = await aservices_for(config)
    vector = await services.embeddings.aembed_query(state["dense_query"])
    if config.retrieval.mode == "dense":
        # Twice k fetched so that k remain once copies of one text in two documents are dropped.
        found_dense = await asyncio.to_thread(dense_hits, config, services, vector, 2 * config.retrieval.k)
        unique, _ = unique_by_content(found_dense, lambda hit: hit[0].text)
        hits: list[tuple[Chunk, float, float | None, float | None]] = [
            (chunk, score, score, None) for chunk, score in unique[: config.retrieval.k]
        ]
    else:
        searcher = await asyncio.to_thread(searcher_for, config, services)  # the first call builds or syncs it
        found = await asyncio.to_thread(
            searcher.search,
            state["query"],
            vector,
            pool_k=config.retrieval.pool_k,
            mode="hybrid",
            fusion=config.retrieval.fusion,
            relevance_floor=relevance_floor(config, services),
            dense_weight=config.retrieval.dense_weight,
        )
        # rank = position in the worker's fused list; score = gated relevance x prior, on [0, 1]
        hits = [(s.chunk, s.relevance * s.prior, s.dense, s.sparse) for s in found]
    evidence = [
        to_evidence(
            chunk, score, pass_no=state["pass_no"], worker=state["worker"], rank=rank, dense=dense, sparse=sparse
        )
        for rank, (chunk, score, dense, sparse) in enumerate(hits, start=1)
    ]
    return {"evidence": evidence, "latency": {"retriever_worker": time.perf_counter() - started}}

"""Retriever worker: one query (the question, one anchor, an anchor retry or HyDE), sent with `Send`.

Dense mode is plain FAISS top-k (the baseline); hybrid mode fuses FAISS and BM25 and applies the
relevance floor, so an irrelevant chunk never enters the pool however authoritative it looks.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import WorkerState
from anchorgate.tools.evidence import to_evidence
from anchorgate.tools.hybrid import HybridSearcher
from anchorgate.tools.services import aservices_for


async def retrieve(state: WorkerState, runtime: Runtime[Config]) -> dict[str, Any]:
    """This worker's candidates as evidence records (ranked, scored, tagged with the pass)."""
    config = runtime.context
    started = time.perf_counter()
    services = await aservices_for(config)
    vector = await services.embeddings.aembed_query(state["dense_query"])
    if config.retrieval_mode == "dense":
        rows = services.index.search(vector, config.retrieval_k)
        hits = [(services.index.chunks[row], score, score, None) for row, score in rows]
    else:
        searcher = HybridSearcher.for_index(services.index)
        found = searcher.search(
            state["query"],
            vector,
            pool_k=config.retrieval_pool_k,
            mode="hybrid",
            fusion=config.fusion,
            relevance_floor=config.relevance_floor,
            dense_weight=config.dense_weight,
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

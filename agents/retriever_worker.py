"""Retriever worker: dense top-k for one query (the full question, or later one anchor each)."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.tools.evidence import to_evidence
from anchorgate.tools.services import services_for


async def dense_retrieve(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Baseline retrieval: the question's k nearest chunks by cosine similarity (FAISS)."""
    config = runtime.context
    started = time.perf_counter()
    services = services_for(config)
    query_vector = await services.embeddings.aembed_query(state["question"])
    hits = services.index.search(query_vector, config.retrieval_k)
    round_no = state.get("round", 0) + 1
    evidence = [
        to_evidence(services.index.chunks[row], score, round_no=round_no, worker="question", rank=rank)
        for rank, (row, score) in enumerate(hits, start=1)
    ]
    return {
        "round": round_no,
        "evidence": evidence,
        "latency": {"retrieve": time.perf_counter() - started},
    }

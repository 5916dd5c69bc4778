"""Fuse and select: merge every worker's candidates, pick the evidence, prune it, pack it.

Baseline (no anchors, MMR 0): the question worker's top-k by cosine. Otherwise: reciprocal rank
fusion across workers builds the pool (each worker's list counts equally, so an anchor's best
chunk is not drowned by the question's), then selection (MMR, anchor bonus, source caps, list
handling; tools/retrieval/selection.py) keeps `retrieval_k`, then optional sentence pruning, then the
token-capped packer. Later rounds use the smaller round-2 cap so the worst case stays bounded.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from anchorgate.agents.retriever_worker import relevance_floor
from anchorgate.graph.config import Config
from anchorgate.graph.state import Evidence, State, merge_evidence
from anchorgate.tools.corpus.documents import Chunk, ScoredChunk
from anchorgate.tools.llm.faults import classify_fault, fault_record, with_client_limits
from anchorgate.tools.llm.usage import totals
from anchorgate.tools.retrieval.bridges import bridge_rows, mention_name, title_rows
from anchorgate.tools.retrieval.evidence import to_chunk, to_evidence
from anchorgate.tools.retrieval.fusion import reciprocal_rank_fusion
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.retrieval.packing import pack_context
from anchorgate.tools.retrieval.pruning import PruningSettings, prune_chunks
from anchorgate.tools.retrieval.rerank import (
    PairwiseLLMReranker,
    PointwiseEmbeddingReranker,
    Reranker,
    SequentialReranker,
)
from anchorgate.tools.retrieval.selection import SelectionSettings, select, unique_by_content
from anchorgate.tools.services import Services, aservices_for

PRP_COMPLETION_TOKENS = 8
GENERATION_OVERHEAD = 120  # system prompt, question and template tokens around the evidence
RANK_FUSION_WEIGHT = 0.7  # selection relevance = w * fused-rank score + (1 - w) * gated relevance
RERANK_COMPARISONS = 8  # pairwise LLM comparisons per question (preset C)
RERANK_TOKEN_CAP = 700  # tokens the pairwise reranker may spend per question


def bridge_evidence(state: State, config: Config, services: Services, evidence: list[Evidence]) -> list[Evidence]:
    """Passages the best hits link to by title (multi-hop bridge), as a "bridge" worker's ranking."""
    if config.retrieval.bridge_links <= 0:
        return []
    best = sorted((rank, e["id"]) for e in evidence for w, rank in e.get("ranks", {}).items() if rank <= 2)
    by_id = {e["id"]: e for e in evidence}
    sources = [by_id[cid] for _, cid in dict.fromkeys(best)]
    table = title_rows(str(services.index.path), services.index.chunks)
    rows = bridge_rows(
        [e["text"] for e in sources],
        {mention_name(e["title"]) for e in sources},
        table,
        state["question"],
        config.retrieval.bridge_links,
    )
    if not rows:
        return []
    question_vector = np.asarray(services.embeddings.embed_query(state["question"]), dtype="float32")
    vectors = HybridSearcher.for_index(services.index).vectors(rows)
    return [
        to_evidence(
            services.index.chunks[row],
            max(0.0, float(vec @ question_vector)),
            pass_no=state.get("pass_no", 1),
            worker="bridge",
            rank=rank,
            dense=float(vec @ question_vector),
        )
        for rank, (row, vec) in enumerate(zip(rows, vectors, strict=True), start=1)
    ]


def selection_scores(pool: Sequence[Evidence], config: Config) -> list[float]:
    """Relevance for selection: fused-rank position (how many workers rank it high) blended with relevance."""
    n = max(len(pool), 1)
    weight = RANK_FUSION_WEIGHT
    return [weight * (1.0 - i / n) + (1.0 - weight) * float(e["score"]) for i, e in enumerate(pool)]


def fused_pool(evidence: Sequence[Evidence], pool_k: int, bridge_weight: float = 1.0) -> list[Evidence]:
    """The pool: RRF over each worker's ranking (stable ties by chunk id); the bridge hop's
    ranking counts `bridge_weight` times (it is one worker, but it follows the best hits' links).
    Of chunks with the same text (in different documents) only the best-fused one is kept."""
    rankings: dict[str, list[tuple[int, str]]] = {}
    for item in evidence:
        for worker, rank in item.get("ranks", {}).items():
            rankings.setdefault(worker, []).append((rank, item["id"]))
    workers = sorted(rankings)
    ordered = [[cid for _, cid in sorted(rankings[w])] for w in workers]
    fused = reciprocal_rank_fusion(ordered, weights=[bridge_weight if w == "bridge" else 1.0 for w in workers])
    by_id = {e["id"]: e for e in evidence}
    # One copy per content: a section two documents share (pydoc's "customization" inside
    # "specialnames") would otherwise take two of the kept slots; the better-fused copy stays.
    unique, _ = unique_by_content([by_id[cid] for cid, _ in fused], lambda e: str(e["text"]))
    return unique[:pool_k]


def selection_settings(config: Config, floor: float) -> SelectionSettings:
    """Selection knobs from the run config; `floor` is the index's relevance floor (`relevance_floor`)."""
    return SelectionSettings(
        pool_k=config.retrieval.pool_k,
        keep_k=config.retrieval.k,
        mmr_diversity=config.retrieval.mmr_diversity,
        adaptive_diversity=True,
        anchor_bonus=config.retrieval.anchor_bonus,
        relevance_floor=floor,
        per_source_cap=config.retrieval.per_source_cap,
        reserve_main=config.retrieval.list_reserve[0],
        reserve_extra=config.retrieval.list_reserve[1],
    )


def _select(state: State, config: Config, services: Services) -> tuple[list[Evidence], dict[str, Any]]:
    """The kept evidence and the reranker's spend record ({} when no reranker ran)."""
    evidence = state.get("evidence", [])
    if not config.retrieval.use_anchors and config.retrieval.mmr_diversity == 0 and config.retrieval.mode == "dense":
        current = [e for e in evidence if e["pass"] == state.get("pass_no", 1)]
        return sorted(current, key=lambda e: (-e["score"], e["id"]))[: config.retrieval.k], {}
    evidence = merge_evidence(evidence, bridge_evidence(state, config, services, evidence))
    pool = fused_pool(evidence, config.retrieval.pool_k, config.retrieval.bridge_weight)
    candidates = [
        ScoredChunk(_per_document_source(to_chunk(e)), score, e.get("dense"), e.get("sparse"), i)
        for i, (e, score) in enumerate(zip(pool, selection_scores(pool, config), strict=True), start=1)
    ]
    candidates, spend = rerank_candidates(state, config, services, candidates)
    vectors = HybridSearcher.for_index(services.index).vectors([c.chunk.id for c in candidates])
    anchors = [a["text"] for a in state.get("anchors", []) if a.get("essential")]
    settings = selection_settings(config, relevance_floor(config, services))
    result = select(state["question"], candidates, np.asarray(vectors), anchors, settings)
    by_id = {e["id"]: e for e in pool}
    return [by_id[s.chunk.id] for s in result.selected], spend


def rerank_candidates(
    state: State, config: Config, services: Services, candidates: list[ScoredChunk]
) -> tuple[list[ScoredChunk], dict[str, Any]]:
    """Preset C: pointwise embedding rerank, then (pairwise) bounded PRP comparisons by the LLM."""
    if config.retrieval.reranker == "none" or not candidates:
        return candidates, {}
    stages: list[Reranker] = [PointwiseEmbeddingReranker(services.embeddings)]
    if config.retrieval.reranker == "pairwise":
        # Whatever the reranker spends, the generator's worst case must still fit after it.
        generation_reserve = config.budget.max_context_tokens + config.budget.max_output_tokens + GENERATION_OVERHEAD
        left = config.budget.token_budget - totals(state.get("usage", {}))["total"] - generation_reserve
        left = max(0, min(left, RERANK_TOKEN_CAP))
        # The completion is capped at the reserve the budget check counts, so the ceiling holds.
        # Bounded like every LLM call: the run's timeout; the client's own retries are llm.max_retries.
        bounded = with_client_limits(services.llm, config.llm.timeout_s, config.llm.max_retries)
        capped = bounded.model_copy(update={"max_tokens": PRP_COMPLETION_TOKENS})
        stages.append(
            PairwiseLLMReranker(
                capped,
                max_comparisons=RERANK_COMPARISONS,
                completion_reserve=PRP_COMPLETION_TOKENS,
                token_budget=left,
                prompt_overrides=config.llm.prompt_overrides,
            )
        )
    try:
        result = SequentialReranker(stages).rerank(state["question"], candidates)
    except Exception as exc:  # noqa: BLE001 — a failed LLM comparison is a recorded fault the router ends the run on
        fault = classify_fault(exc)
        if not fault.provider:
            raise
        return candidates, fault_record("rerank", fault, attempts=None, calls=1)
    record = {
        "stage": "rerank",
        "prompt": result.prompt_tokens,
        "completion": result.completion_tokens,
        "calls": result.llm_calls,
        "skipped_comparisons": result.skipped,
    }
    return list(result.candidates), record


def _per_document_source(chunk: Chunk) -> Chunk:
    """Source caps apply per document unless the chunk names a domain (a CRAG page's site)."""
    if chunk.metadata.get("domain"):
        return chunk
    return Chunk(chunk.id, chunk.doc_id, chunk.title, chunk.text, chunk.doc_id, chunk.position, chunk.metadata)


def _prune(
    question: str, chosen: list[Evidence], config: Config, services: Services
) -> tuple[list[Chunk], dict[str, Any]]:
    chunks = [to_chunk(e) for e in chosen]
    if config.retrieval.pruning_threshold <= 0 or not chunks:
        return chunks, {}
    settings = PruningSettings().with_threshold(config.retrieval.pruning_threshold)
    result = prune_chunks(question, chunks, services.embeddings, settings)
    kept = [
        Chunk(p.chunk.id, p.chunk.doc_id, p.chunk.title, p.text, p.chunk.source, p.chunk.position, p.chunk.metadata)
        for p in result.chunks
        if not p.dropped
    ]
    before = sum(p.tokens_before for p in result.chunks)
    after = sum(p.tokens_after for p in result.chunks if not p.dropped)
    highlights = {p.chunk.id: [s.text for s in p.sentences if s.kept] for p in result.chunks}
    return kept, {
        "tokens_before": before,
        "tokens_after": after,
        "ratio": round(1 - after / before, 4) if before else 0.0,
        "highlights": highlights,
    }


async def fuse_and_select(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The numbered context for the generator, never over the round's token cap."""
    config = runtime.context
    started = time.perf_counter()
    services = await aservices_for(config)
    chosen, rerank_spend = await asyncio.to_thread(_select, state, config, services)
    chunks, pruning = _prune(state["question"], chosen, config, services)
    cap = config.budget.max_context_tokens if state.get("round", 1) <= 1 else config.budget.round2_context_tokens
    packed = pack_context(chunks, cap)
    by_id = {e["id"]: e for e in chosen}
    text_of = {c.id: c.text for c in chunks}
    context = [{**by_id[cid], "text": text_of[cid], "n": n} for cid, n in packed.passages]
    update: dict[str, Any] = {}
    if rerank_spend.get("calls"):
        update = {
            "usage": {
                "rerank": {
                    "prompt": rerank_spend["prompt"],
                    "completion": rerank_spend["completion"],
                    "calls": rerank_spend["calls"],
                }
            },
            "calls": [rerank_spend],
        }
    return {
        **update,
        "context": context,
        "context_text": packed.text,
        "context_tokens": packed.tokens,
        "pruning": pruning,
        "latency": {"fuse_and_select": time.perf_counter() - started},
    }

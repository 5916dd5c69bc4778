"""Hybrid retrieval over one persisted index: FAISS (dense) + BM25 (sparse), fused, then gated.

`HybridSearcher.for_index(index)` builds a BM25 index over the same chunk texts the dense index
embedded (title + "\\n" + text, `index.embedding_text`) once per index and caches it per index
path, so every retriever worker of every question shares it. `search` then (steps 2-4 are
`fuse_and_gate`, which the PostgreSQL store, `tools/postgres/search.py`, runs on its own candidates):

1. fetches max(2·pool_k, 50) candidates from FAISS and from BM25 (one list in "dense"/"bm25" mode);
2. fuses them: "rrf" = reciprocal rank fusion (k = 60) of the two rank lists; "weighted" =
   0.5/0.5 min-max fusion of cosine and BM25 over the union, with the *real* cosine and BM25 score
   of every candidate (a chunk only one retriever returned is not scored 0 by the other);
3. gates (seed 004, `tools/gating`): relevance = 0.5·max(cosine, 0) + 0.5·keyword, keyword =
   idf-weighted share of the query's BM25 terms in the chunk; a chunk below `relevance_floor`
   never enters the pool, and metadata priors only *multiply* the ranking value of kept chunks;
4. keeps one hit per distinct chunk text (a section two documents share is one hit, the
   better-ranked copy; `tools.retrieval.selection.unique_by_content`).

Returned hits (`HybridHit`, a `ScoredChunk`): `.score` = ranking value × prior factor, where the
ranking value is the cosine ("dense"), the BM25 score ("bm25"), the RRF score ("hybrid"/"rrf") or
the weighted fusion score ("hybrid"/"weighted"); `.rank` = 1-based position in the fused list
before gating; `.dense` = cosine; `.sparse` = BM25 score; `.relevance` = the gate's relevance in
[0, 1] (the scale `tools/selection` expects). Order: score desc, rank asc,
chunk id asc, so the same call always gives the same list.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator

from anchorgate.tools.corpus.documents import Chunk, ScoredChunk
from anchorgate.tools.index.build import DenseIndex, embedding_text
from anchorgate.tools.index.store_view import StoreIndex
from anchorgate.tools.retrieval.bm25 import BM25Index
from anchorgate.tools.retrieval.fusion import dense_sparse_fusion, reciprocal_rank_fusion
from anchorgate.tools.retrieval.gating import GateSettings, gate, keyword_coverage, priors_from_metadata
from anchorgate.tools.retrieval.searcher import Candidates, Fusion, HybridHit, Mode, Searcher
from anchorgate.tools.retrieval.selection import unique_by_content

RRF_K = 60
MIN_FETCH = 50
_CACHE_SIZE = 8  # a process rarely holds more than a couple of indexes; bounds memory anyway

_SEARCHERS: OrderedDict[tuple[str, str, int], HybridSearcher] = OrderedDict()
_SEARCHERS_LOCK = threading.Lock()


@dataclass(frozen=True)
class _Candidate:
    """One fused candidate before gating."""

    row: int
    fused: float
    rank: int


class HybridSearcher(Searcher):
    """Dense + BM25 search over one `DenseIndex`; read-only after construction, so thread-safe."""

    def __init__(self, index: DenseIndex, bm25: BM25Index) -> None:
        self.index = index
        self.bm25 = bm25
        self._rows = {chunk.id: row for row, chunk in enumerate(index.chunks)}

    @classmethod
    def for_index(cls, index: DenseIndex | StoreIndex) -> Searcher:
        """The shared searcher of `index`, building its BM25 side on first use (once per index). An index a
        server store holds (`StoreIndex`: vector_store=postgresql://…) is searched there, by its own searcher."""
        if isinstance(index, StoreIndex):
            return index.searcher
        key = (str(index.path), str(index.manifest.get("corpus_sha256", "")), len(index.chunks))
        with _SEARCHERS_LOCK:
            searcher = _SEARCHERS.get(key)
            # The path is a content hash (corpus, model, chunking), so the key identifies the chunks.
            if searcher is None:
                bm25 = BM25Index.build([embedding_text(chunk) for chunk in index.chunks], language="auto")
                searcher = cls(index, bm25)
                _SEARCHERS[key] = searcher
            _SEARCHERS.move_to_end(key)
            while len(_SEARCHERS) > _CACHE_SIZE:
                _SEARCHERS.popitem(last=False)
            return searcher

    def search(
        self,
        query: str,
        query_vector: Sequence[float],
        *,
        pool_k: int = 24,
        mode: Mode = "hybrid",
        fusion: Fusion = "rrf",
        relevance_floor: float = 0.0,
        dense_weight: float = 0.5,
    ) -> list[HybridHit]:
        """At most `pool_k` gated hits for `query` (see the module docstring for every score).

        `dense_weight` is the dense retriever's share in either fusion (BM25 gets the rest).
        """
        if pool_k <= 0 or not self.index.chunks:
            return []
        qvec = checked_query(query_vector, self.index.vectors.d, dense_weight)
        found = self._candidates(query, qvec, fetch_size(pool_k), mode)
        return fuse_and_gate(found, mode=mode, fusion=fusion, relevance_floor=relevance_floor,
                             dense_weight=dense_weight)[:pool_k]  # fmt: skip

    def _candidates(self, query: str, qvec: np.ndarray, fetch: int, mode: Mode) -> Candidates:
        """FAISS and BM25 top-`fetch`, with both scores of every candidate."""
        sparse = self.bm25.scores(query)
        dense_hits = self.index.search(qvec, fetch) if mode != "bm25" else []
        sparse_hits = _top_k(sparse, fetch) if mode != "dense" else []
        cosine = dict(dense_hits)
        for row, _ in sparse_hits:
            if row not in cosine:
                cosine[row] = float(np.dot(self.index.vector(row), qvec))
        terms = sorted(set(self.bm25.tokenize(query)))
        return Candidates(
            dense=dense_hits,
            sparse=sparse_hits,
            cosine=cosine,
            keyword_score={row: float(sparse[row]) for row in cosine},
            chunks={row: self.index.chunks[row] for row in cosine},
            doc_terms={row: self.bm25.corpus_tokens[row] for row in cosine},
            query_terms=terms,
            idf={term: self.bm25.idf(term) for term in terms},
        )

    def dense(self, query_vector: Sequence[float], k: int) -> list[tuple[Chunk, float]]:
        """FAISS top-k: (chunk, cosine), best first, ties by row."""
        return [(self.index.chunks[row], score) for row, score in self.index.search(query_vector, k)]

    def vectors(self, items: Sequence[int | str]) -> np.ndarray:
        """Stored (normalized) vectors of chunks given by row or chunk id, shape (len(items), dim)."""
        rows = [item if isinstance(item, int) else self._rows[item] for item in items]
        if not rows:
            return np.zeros((0, self.index.vectors.d), dtype="float32")
        return np.stack([self.index.vector(row) for row in rows])


def fetch_size(pool_k: int) -> int:
    """How many candidates each retriever fetches for a pool of `pool_k`."""
    return max(2 * pool_k, MIN_FETCH)


def checked_query(query_vector: Sequence[float], dimension: int, dense_weight: float) -> np.ndarray:
    """The query vector normalized; a wrong shape or a dense share outside [0, 1] is a ValueError."""
    if not 0.0 <= dense_weight <= 1.0:
        raise ValueError(f"dense_weight must be in [0, 1], got {dense_weight}")
    qvec = _normalized(np.asarray(query_vector, dtype="float32"))
    if qvec.shape != (dimension,):
        raise ValueError(f"query vector has shape {qvec.shape}, the index expects ({dimension},)")
    return qvec


def fuse_and_gate(
    found: Candidates, *, mode: Mode = "hybrid", fusion: Fusion = "rrf", relevance_floor: float = 0.0,
    dense_weight: float = 0.5,
) -> list[HybridHit]:  # fmt: skip
    """Fuse the candidates, drop those below the relevance floor, order the rest (every store runs this).

    Priors multiply the fused value of kept chunks; chunks of different documents with the same text
    are one hit, the better-ranked copy.
    """
    candidates = _fuse(found.dense, found.sparse, found.cosine, found.keyword_score, mode, fusion, dense_weight)
    semantic = [found.cosine[c.row] for c in candidates]
    idf = found.idf.__getitem__
    keyword = [keyword_coverage(found.query_terms, found.doc_terms[c.row], idf) for c in candidates]
    priors = [priors_from_metadata(found.chunks[c.row].metadata) for c in candidates]
    hits: list[HybridHit] = []
    for result in gate(semantic, keyword, priors, GateSettings(floor=relevance_floor)):
        if not result.kept:
            continue
        c = candidates[result.index]
        hits.append(
            HybridHit(
                chunk=found.chunks[c.row],
                score=c.fused * result.factor,
                dense=semantic[result.index],
                sparse=float(found.keyword_score[c.row]),
                rank=c.rank,
                row=c.row,
                relevance=result.relevance,
                keyword=keyword[result.index],
                prior=result.factor,
            )
        )
    ordered = sorted(hits, key=lambda h: (-h.score, h.rank, h.chunk.id))
    return unique_by_content(ordered, lambda h: h.chunk.text)[0]


class HybridRetriever(BaseRetriever):
    """LangChain `BaseRetriever` over a `Searcher` (FAISS or PostgreSQL): any LangChain chain can use it, and a
    deployment can swap in another vector store's retriever behind the same interface."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    searcher: Searcher
    embeddings: Embeddings
    search_kwargs: dict[str, object] = Field(default_factory=dict)

    @field_validator("search_kwargs")
    @classmethod
    def _known_kwargs(cls, value: dict[str, object]) -> dict[str, object]:
        unknown = sorted(set(value) - SEARCH_KWARGS)
        if unknown:
            raise ValueError(f"unknown search_kwargs {unknown}; allowed: {sorted(SEARCH_KWARGS)}")
        return value

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self.searcher.search(query, self.embeddings.embed_query(query), **self.search_kwargs)  # type: ignore[arg-type]
        return [hit_to_document(hit) for hit in hits]


SEARCH_KWARGS = frozenset({"pool_k", "mode", "fusion", "relevance_floor", "dense_weight"})


def as_langchain_retriever(searcher: Searcher, embeddings: Embeddings, **search_kwargs: object) -> BaseRetriever:
    """A LangChain retriever: query → `embeddings.embed_query` → `searcher.search(**search_kwargs)`."""
    return HybridRetriever(searcher=searcher, embeddings=embeddings, search_kwargs=search_kwargs)


def hit_to_document(hit: ScoredChunk) -> Document:
    """A LangChain `Document` of a hit: chunk text, metadata id/doc_id/title/source and the scores."""
    chunk = hit.chunk
    metadata = {
        "id": chunk.id,
        "doc_id": chunk.doc_id,
        "title": chunk.title,
        "source": chunk.source,
        "score": hit.score,
        "dense": hit.dense,
        "sparse": hit.sparse,
        "rank": hit.rank,
    }
    return Document(page_content=chunk.text, metadata=metadata, id=chunk.id)


def _normalized(vector: np.ndarray) -> np.ndarray:
    """`vector` scaled to unit length, so FAISS inner products are cosines."""
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def _top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(row, score) of the k best positive scores; ties by row, whatever argpartition picks."""
    positive = np.flatnonzero(scores > 0.0)
    if positive.size > k:
        # Everything tied with the k-th best is kept before the stable sort, so ties stay by row.
        threshold = np.partition(scores[positive], positive.size - k)[positive.size - k]
        positive = positive[scores[positive] >= threshold]
    order = positive[np.lexsort((positive, -scores[positive]))][:k]
    return [(int(row), float(scores[row])) for row in order]


def _fuse(
    dense_hits: list[tuple[int, float]],
    sparse_hits: list[tuple[int, float]],
    cosine: Mapping[int, float],
    sparse: Mapping[int, float],
    mode: Mode,
    fusion: Fusion,
    dense_weight: float = 0.5,
) -> list[_Candidate]:
    """Fused candidates in fused order (rank = 1-based position) with their fused value."""
    weights = (2 * dense_weight, 2 * (1.0 - dense_weight))  # 0.5 → (1, 1): plain RRF / 0.5-0.5
    if mode == "dense":
        fused = [(row, score) for row, score in dense_hits]
    elif mode == "bm25":
        fused = [(row, score) for row, score in sparse_hits]
    elif fusion == "rrf":
        rankings = [[r for r, _ in dense_hits], [r for r, _ in sparse_hits]]
        fused = reciprocal_rank_fusion(rankings, k=RRF_K, weights=weights)
    else:
        union = sorted(cosine)
        fused = dense_sparse_fusion({r: cosine[r] for r in union}, {r: float(sparse[r]) for r in union}, *weights)
    return [_Candidate(row, float(value), rank) for rank, (row, value) in enumerate(fused, start=1)]

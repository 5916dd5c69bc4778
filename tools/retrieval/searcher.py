"""What every store's search returns and offers: the `Searcher` interface, its hits and its candidates.

The local index (`tools/retrieval/hybrid.py`) and the PostgreSQL store (`tools/postgres/search.py`)
both implement `Searcher`; a `StoreIndex` (`tools/index/store_view.py`) carries one. The types sit
here, apart from either implementation, so the index and store modules need not import the
searcher that builds on them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from anchorgate.tools.corpus.documents import Chunk, ScoredChunk

Mode = Literal["dense", "bm25", "hybrid"]
Fusion = Literal["rrf", "weighted"]


@dataclass(frozen=True)
class HybridHit(ScoredChunk):
    """A `ScoredChunk` plus what the gate measured: relevance in [0, 1], keyword part, prior factor."""

    row: int = -1
    relevance: float = 0.0
    keyword: float = 0.0
    prior: float = 1.0


@dataclass(frozen=True)
class Candidates:
    """What one store found for one query, before fusion: the same inputs whichever store answered.

    Rows are the store's chunk numbers (FAISS row, or the PostgreSQL `ord`, the same number for
    the same corpus), so ties break the same way in both.
    """

    dense: list[tuple[int, float]]
    """(row, cosine) of the dense top-k, best first (ties by row)."""
    sparse: list[tuple[int, float]]
    """(row, score) of the sparse top-k with score > 0, best first (ties by row)."""
    cosine: Mapping[int, float]
    """Cosine of every candidate (dense or sparse)."""
    keyword_score: Mapping[int, float]
    """Sparse score of every candidate (0 when it holds no query term)."""
    chunks: Mapping[int, Chunk]
    doc_terms: Mapping[int, Collection[str]]
    """The BM25 terms of every candidate (the gate's keyword coverage reads them)."""
    query_terms: list[str]
    """The query's distinct BM25 terms, sorted."""
    idf: Mapping[str, float]
    """Lucene idf of each query term (the gate weighs coverage by it)."""


class Searcher(ABC):
    """What the graph retrieves through: gated hybrid search, plain dense top-k and stored vectors."""

    @abstractmethod
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
        """At most `pool_k` gated hits for `query` (see the module docstring for every score)."""

    @abstractmethod
    def dense(self, query_vector: Sequence[float], k: int) -> list[tuple[Chunk, float]]:
        """The k nearest chunks and their cosines, best first (ties by row): the baseline's retrieval."""

    @abstractmethod
    def vectors(self, items: Sequence[int | str]) -> np.ndarray:
        """Stored (normalized) vectors of chunks given by row or chunk id, shape (len(items), dim)."""

"""A corpus index held by a server store (PostgreSQL): what a run reads in place of a local index.

`Services.index` is a local `DenseIndex` (FAISS + docstore + BM25 files) or, with
`vector_store=postgresql://…`, a `StoreIndex` (tools/postgres/corpus.py): nothing of the corpus is
loaded into the process. It offers what the graph reads of an index — `path` (where, for
messages and cache keys), `manifest` (model, chunking, corpus hash), `chunks` (read from the
store by row, the store's `ord`) — and its `searcher` answers every search and stored-vector
lookup (`HybridSearcher.for_index` hands it out instead of building a BM25 index).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.retrieval.searcher import Searcher


@dataclass
class StoreIndex:
    """A collection of a server store seen as a corpus index (read-only; the store may change under it)."""

    path: str
    """Where it is, without credentials: `postgresql://host:port/database#collection`."""
    manifest: dict[str, Any]
    """What the collection records: embedding model and id, chunking, chunker fingerprint, corpus hash, counts."""
    chunks: Sequence[Chunk]
    """The collection's chunks by row (`ord`), read from the store when asked for."""
    searcher: Searcher
    fresh: bool = False
    """True when opening it wrote to the store (the corpus had changed since it was indexed)."""
    choice: str = ""
    """How its embedding model was chosen (languages → model, or the collection's own model)."""

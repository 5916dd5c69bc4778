"""Which store a run retrieves from: the in-process FAISS + BM25 index, or PostgreSQL (`vector_store`).

`vector_store = "faiss"` (the default) searches the services bundle's local index, as before.
`vector_store = "postgresql://…"` searches a collection of the PostgreSQL store (pgvector + BM25
in SQL, `tools/postgres/search.py`) with the same fusion and gate. Its name is `vector_collection`, or
by default one derived from the corpus identity and chunking (`anchorgate index` and a run over the
same corpus pick the same one).

A bundle built from the configuration (`services_for`) then holds no local index at all: its
index is the collection (`tools/postgres/corpus.py`, a `StoreIndex`), made current when the bundle is
built, and everything reads through it. A bundle an application registered with its own local
index (`register_services`) is mirrored instead: on first use in a process the collection is
made to match that index with the index's own vectors (`tools/postgres/index.py: sync`; nothing is
embedded, and a collection `anchorgate index` already filled from the same corpus is left as it is).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.corpus.load import LoadedCorpus, load_corpus
from anchorgate.tools.errors import ConfigError
from anchorgate.tools.index.store import DenseIndex
from anchorgate.tools.index.store_view import StoreIndex
from anchorgate.tools.paths import cache_root
from anchorgate.tools.postgres.corpus import FAISS, collection_name, server_url
from anchorgate.tools.postgres.index import SyncResult, embedder, index_vectors, snapshot_of, snapshot_of_index, sync
from anchorgate.tools.postgres.search import PgSearcher
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.retrieval.searcher import Searcher
from anchorgate.tools.services import Services, choose_model
from anchorgate.tools.settings import ServiceSettings, StoreSettings

__all__ = ["FAISS", "collection_name", "dense_hits", "index_corpus", "searcher_for", "server_url"]
_CACHE_SIZE = 8
_SEARCHERS: OrderedDict[tuple[str, str, str, str], PgSearcher] = OrderedDict()
_LOCK = threading.Lock()


def dense_hits(
    config: StoreSettings, services: Services, query_vector: Sequence[float], k: int
) -> list[tuple[Chunk, float]]:
    """The k nearest chunks (cosine), best first: the baseline's plain dense retrieval."""
    index = services.index
    if isinstance(index, StoreIndex):  # the bundle is a collection: it answers
        return index.searcher.dense(query_vector, k)
    url = server_url(config)
    if url is None:  # no BM25 side is built for the baseline
        return [(index.chunks[row], score) for row, score in index.search(query_vector, k)]
    return _pg_searcher(url, config, index).dense(query_vector, k)


def searcher_for(config: StoreSettings, services: Services) -> Searcher:
    """The hybrid searcher of the configured store over the bundle's corpus."""
    index = services.index
    if isinstance(index, StoreIndex):
        return index.searcher
    url = server_url(config)
    if url is None:
        return HybridSearcher.for_index(index)
    return _pg_searcher(url, config, index)


def index_identity(index: DenseIndex) -> str:
    """The corpus identity an index was built for: its source (`pydoc`, a path), else its content."""
    return str(index.manifest.get("source") or f"content:{index.manifest['corpus_sha256']}")


def index_corpus(config: ServiceSettings, progress: bool = True) -> tuple[SyncResult, LoadedCorpus, str]:
    """`anchorgate index` into PostgreSQL: chunk the corpus, embed only texts the collection lacks.

    The embedding model is the one the local index of this corpus would get (`choose_model`: by
    `embedding_model`, else by the corpus's languages), so runs that mirror a local index find the
    same collection. Returns the sync result, the corpus and the model decision's summary line.
    """
    from anchorgate.tools.index.embeddings import MINILM, load_embeddings

    url = server_url(config)
    if url is None:
        raise ConfigError("index_corpus needs vector_store to be a PostgreSQL URL")
    corpus = load_corpus(config.resources.corpus)
    settings = ChunkingSettings(config.resources.chunk_tokens, config.resources.chunk_overlap_tokens)
    root = cache_root(config.resources.cache_dir) / "indexes"
    decision = choose_model(corpus.passages, config, root, settings, corpus.identity, building=True)
    snapshot = snapshot_of(corpus.passages, decision.model.fingerprint, settings)
    embeddings = load_embeddings(decision.model.name if decision.model.name != MINILM else "")
    result = sync(url, collection_name(config, corpus.identity), snapshot, embedder(embeddings, progress))
    return result, corpus, decision.summary()


def _pg_searcher(url: str, config: StoreSettings, index: DenseIndex) -> PgSearcher:
    """The cached searcher of a registered local index's collection, synced with the index once per process
    and generation."""
    name = collection_name(config, index_identity(index))
    key = (url, name, str(index.path), str(index.manifest.get("corpus_sha256", "")))
    with _LOCK:  # held while syncing: concurrent workers of one run wait for the first one's sync
        searcher = _SEARCHERS.get(key)
        if searcher is None:
            sync(url, name, snapshot_of_index(index), index_vectors(index))
            searcher = _SEARCHERS[key] = PgSearcher(url, name)
        _SEARCHERS.move_to_end(key)
        while len(_SEARCHERS) > _CACHE_SIZE:
            _SEARCHERS.popitem(last=False)[1].close()
        return searcher

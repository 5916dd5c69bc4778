"""A run's corpus served by the PostgreSQL store: no local FAISS or BM25 index is built or loaded.

With `vector_store=postgresql://…` the services bundle (tools/services.py) opens the corpus's
collection instead of a local index. On first use in a process it is made current the way
`anchorgate index` makes it (`tools/postgres/index.py: sync`): when the stored corpus hash, chunker and
model match, one row is read and nothing is chunked or embedded; otherwise only texts the
collection lacks are embedded. The bundle's index is then a `StoreIndex`: searches, stored vectors
(selection, the bridge hop) and chunks by row all come from PostgreSQL.

The embedding model: the `embedding_model` setting; with "auto", the model the collection was
indexed with (its `embedding_id`, turned back into a model by `tools.index.embeddings.model_for_id`,
so an e5 collection is queried with e5), or for a new collection the one the corpus's languages
choose (tools/index/model_choice.py). The query model is named by `tools.index.embeddings.embedding_id`, the
function the FAISS path's manifests use, so both stores name a model identically; a collection of
another model is refused before anything is written (`pg_rows.check_model`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import Any, overload

from langchain_core.embeddings import Embeddings

from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.errors import ConfigError
from anchorgate.tools.index.build import corpus_fingerprint, expected_for
from anchorgate.tools.index.embeddings import (
    AUTO,
    MINILM,
    embedding_choice,
    embedding_id,
    load_embeddings,
    model_for_id,
)
from anchorgate.tools.index.model_choice import ModelDecision, decide_model
from anchorgate.tools.index.store_view import StoreIndex
from anchorgate.tools.postgres.index import embedder, snapshot_of, sync
from anchorgate.tools.postgres.rows import collection_row
from anchorgate.tools.postgres.search import PgSearcher
from anchorgate.tools.postgres.store import (
    check_schema,
    connect,
    default_collection,
    is_server_store,
    schema_version,
    server_of,
    unreachable,
)
from anchorgate.tools.settings import StoreSettings
from anchorgate.tools.text.language import detect_languages, sample_texts

FAISS = "faiss"
_CACHE_SIZE = 8
_SEARCHERS: OrderedDict[tuple[str, str], PgSearcher] = OrderedDict()
_LOCK = threading.Lock()


def server_url(config: StoreSettings) -> str | None:
    """The PostgreSQL URL of `vector_store`, None for the local FAISS store; anything else is a ConfigError."""
    value = config.resources.vector_store.strip()
    if value in ("", FAISS):
        return None
    if not is_server_store(value):
        raise ConfigError(
            f"vector_store={value!r} is neither 'faiss' nor a PostgreSQL URL",
            "use faiss, or postgresql://user:password@host:5432/database",
        )
    return value


def collection_name(config: StoreSettings, identity: str) -> str:
    """`vector_collection`, or the default name for a corpus identity and this chunking."""
    settings = ChunkingSettings(config.resources.chunk_tokens, config.resources.chunk_overlap_tokens)
    return config.resources.vector_collection.strip() or default_collection(identity, asdict(settings))


class StoredChunks(Sequence[Chunk]):
    """A collection's chunks by row (`ord`, the corpus position), read from the store when asked for."""

    def __init__(self, searcher: PgSearcher, count: int) -> None:
        self._searcher = searcher
        self._count = count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, row: int) -> Chunk: ...
    @overload
    def __getitem__(self, row: slice) -> Sequence[Chunk]: ...
    def __getitem__(self, row: int | slice) -> Chunk | Sequence[Chunk]:
        if isinstance(row, slice):
            rows = list(range(self._count))[row]
            found = self._searcher.chunks_at(rows)
            return [found[r] for r in rows if r in found]
        position = row + self._count if row < 0 else row
        chunk = self._searcher.chunks_at([position]).get(position)
        if chunk is None:
            raise IndexError(f"collection {self._searcher.collection!r} has no chunk at row {row}")
        return chunk

    def __iter__(self) -> Iterator[Chunk]:
        return self._searcher.iter_chunks()


def open_store_index(
    url: str, passages: Sequence[Passage], config: StoreSettings, identity: str, *, progress: bool = True
) -> tuple[StoreIndex, Embeddings]:
    """The corpus `passages` (identity `identity`: a resolved path, `pydoc`, or `content:<hash>`) as a
    `StoreIndex` of its collection, made current first, and the embedding model its queries must use."""
    settings = ChunkingSettings(config.resources.chunk_tokens, config.resources.chunk_overlap_tokens)
    name = collection_name(config, identity)
    stored = stored_collection(url, name)
    decision = decide_model(config.resources.embedding_model, detect_languages(sample_texts(passages)))
    decision = follow_collection(decision, stored, name)
    embeddings = load_embeddings(decision.model.name if decision.model.name != MINILM else "")
    model_id = embedding_id(embeddings) or decision.model.fingerprint
    expected = expected_for(model_id, settings, passages)
    corpus_sha256 = corpus_fingerprint(passages)
    fresh = False
    if not _is_current(stored, expected.embedding_id, expected.chunker_fingerprint, expected.chunking, corpus_sha256):
        result = sync(url, name, snapshot_of(passages, model_id, settings), embedder(embeddings, progress))
        fresh = not result.up_to_date
    searcher = searcher_of(url, name)
    meta = searcher.info()  # after the sync: the current chunk count
    manifest = {
        **decision.manifest_fields(),
        **asdict(expected),
        "source": "" if identity.startswith("content:") else identity,
        "corpus_sha256": corpus_sha256,
        "passages": len(passages),
        "chunks": int(meta["n_chunks"]),
        "dimension": int(meta["dimension"]),
        "vector_store": server_of(url),
        "collection": name,
    }
    path = f"postgresql://{server_of(url)}#{name}"
    chunks = StoredChunks(searcher, int(meta["n_chunks"]))
    return StoreIndex(path, manifest, chunks, searcher, fresh, decision.summary()), embeddings


def follow_collection(decision: ModelDecision, stored: dict[str, Any] | None, name: str) -> ModelDecision:
    """With "auto", the model collection `name` was indexed with when it is a packaged one; else `decision`
    (a collection of another model is then refused by the sync, naming both)."""
    if stored is None or decision.requested != AUTO or stored["embedding_id"] == decision.model.fingerprint:
        return decision
    model = model_for_id(str(stored["embedding_id"]))
    if model is None:
        return decision
    why = f"the model collection {name} was indexed with"
    return ModelDecision(embedding_choice(model), decision.languages, AUTO, why)


def stored_collection(url: str, name: str) -> dict[str, Any] | None:
    """Collection `name`'s row, None when the store has no anchorgate tables or no such collection (read only)."""
    import psycopg

    conn = connect(url)
    try:
        if schema_version(conn) is None:
            return None
        check_schema(conn, url)  # tables of another version: refused, never altered
        return collection_row(conn, name)
    except psycopg.Error as exc:
        raise unreachable(url, exc) from exc
    finally:
        conn.close()


def searcher_of(url: str, name: str) -> PgSearcher:
    """The process's searcher of collection `name` (a few are kept; an evicted one only drops its idle connections)."""
    key = (url, name)
    with _LOCK:
        searcher = _SEARCHERS.get(key)
        if searcher is None:
            searcher = _SEARCHERS[key] = PgSearcher(url, name)
        _SEARCHERS.move_to_end(key)
        while len(_SEARCHERS) > _CACHE_SIZE:
            _SEARCHERS.popitem(last=False)[1].close()
        return searcher


def _is_current(
    row: dict[str, Any] | None, model_id: str, chunker: str, chunking: dict[str, int], corpus_sha256: str
) -> bool:
    """Whether the stored collection already holds this corpus, chunked and embedded this way."""
    return (
        row is not None
        and row["embedding_id"] == model_id
        and row["chunker_fingerprint"] == chunker
        and row["chunking"] == chunking
        and row["corpus_sha256"] == corpus_sha256
    )

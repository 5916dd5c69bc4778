"""The PostgreSQL store as a LangChain `VectorStore` (and retrievers), written directly over psycopg.

    store = PgVectorStore(url, "notes", embeddings)          # or PgVectorStore.from_texts(texts, embeddings, url=…)
    store.add_texts(["Owls hunt mice at night."], [{"title": "Owls"}], ids=["owls"])
    store.similarity_search("what do owls eat", k=4)        # dense (pgvector), Documents with id and metadata
    store.as_retriever(search_kwargs={"k": 4})               # LangChain's VectorStoreRetriever over it
    store.as_hybrid_retriever(pool_k=8, relevance_floor=0.3)  # pgvector + full-text, anchorgate's fusion and gate

Each text is one document and one chunk (id = the given id, else the sha256 of the text); metadata
`title` and `source` fill those fields, the rest is kept as chunk metadata. Adding an id again
replaces its row; a text the collection already holds (anywhere) is not embedded again. Why not
`langchain-postgres`' PGVector: its tables hold no term statistics, so the hybrid search and the
relevance gate could not run on them, and it would add SQLAlchemy for what is a few SQL statements.
A collection filled by `anchorgate index` is a corpus snapshot: the next `anchorgate index` puts
it back to the corpus, removing rows added here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import VectorStore

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.index.build import content_key, embedding_text
from anchorgate.tools.index.store import Expected
from anchorgate.tools.postgres.index import embedder
from anchorgate.tools.postgres.rows import (
    check_model,
    collection_row,
    copy_chunks,
    create_collection,
    delete_chunks,
    refresh_statistics,
    reuse_vectors,
    writing,
)
from anchorgate.tools.postgres.search import PgSearcher
from anchorgate.tools.retrieval.bm25 import LanguageOption, tokenize_corpus
from anchorgate.tools.retrieval.hybrid import as_langchain_retriever


class PgVectorStore(VectorStore):
    """A LangChain vector store over one collection of anchorgate's PostgreSQL store."""

    def __init__(self, url: str, collection: str, embedding: Embeddings, *, embedding_id: str = "") -> None:
        self.url = url
        self.collection = collection
        self.embedding = embedding
        # What the collection records as its model: vectors of another model are refused, not mixed.
        self.embedding_id = embedding_id or embedding_id_of(embedding)
        self._searcher: PgSearcher | None = None

    @property
    def embeddings(self) -> Embeddings:
        """The embedding model of queries and added texts."""
        return self.embedding

    def add_texts(
        self, texts: Iterable[str], metadatas: list[dict[Any, Any]] | None = None, *, ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:  # fmt: skip
        """Add (or replace, by id) one document per text; returns the ids."""
        chunks = _chunks(list(texts), metadatas, ids)
        if not chunks:
            return []
        with writing(self.url, self.collection) as conn:
            row = collection_row(conn, self.collection)
            if row is not None:
                check_model(row, self.embedding_id, self.url, self.collection)
            # the collection's language once it holds text (its stored terms were made with it)
            option: LanguageOption = row["language"] if row and row["n_chunks"] else "auto"
            language, tokens = tokenize_corpus([embedding_text(c) for c in chunks], option)
            expected = Expected(self.embedding_id, {}, "")  # no chunker: each text is one chunk
            cid = int(row["id"]) if row else create_collection(conn, self.collection, expected)
            vectors, _, _ = reuse_vectors(conn, cid, chunks, embedder(self.embedding, progress=False))
            if row is not None and row["n_chunks"]:
                check_model(row, self.embedding_id, self.url, self.collection, int(vectors.shape[1]))
            ids_ = [c.id for c in chunks]
            delete_chunks(conn, cid, "id", ids_)
            conn.execute("DELETE FROM anchorgate_documents WHERE collection = %s AND doc_id = ANY(%s)", (cid, ids_))
            start = conn.execute(
                "SELECT coalesce(max(ord) + 1, 0) FROM anchorgate_chunks WHERE collection = %s", (cid,)
            ).fetchone()[0]
            copy_chunks(conn, cid, [(start + i, c, tokens[i]) for i, c in enumerate(chunks)], vectors)
            conn.cursor().executemany(
                "INSERT INTO anchorgate_documents (collection, doc_id, sha256) VALUES (%s, %s, %s)",
                [(cid, c.id, content_key(c)) for c in chunks],
            )
            conn.execute(
                "UPDATE anchorgate_collections SET dimension = %s, corpus_sha256 = '' WHERE id = %s",
                (int(vectors.shape[1]), cid),
            )
            refresh_statistics(conn, cid, language)
        return [c.id for c in chunks]

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete documents by id (True when the call succeeded; `ids=None` deletes nothing)."""
        if not ids:
            return True
        with writing(self.url, self.collection) as conn:
            row = collection_row(conn, self.collection)
            if row is None:
                return True
            delete_chunks(conn, int(row["id"]), "id", ids)
            conn.execute(
                "DELETE FROM anchorgate_documents WHERE collection = %s AND doc_id = ANY(%s)", (row["id"], ids)
            )
            conn.execute("UPDATE anchorgate_collections SET corpus_sha256 = '' WHERE id = %s", (row["id"],))
            refresh_statistics(conn, int(row["id"]), str(row["language"]))
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The stored documents of these ids (unknown ids are left out), in the order asked."""
        found = {c.id: c for c in self.searcher().chunks(list(ids))}
        return [_document(found[i]) for i in ids if i in found]

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The k nearest documents to `query` (pgvector, exact inner product)."""
        return [doc for doc, _ in self.similarity_search_with_score(query, k, **kwargs)]

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        """(document, cosine) of the k nearest, best first."""
        return self._by_vector(self.embedding.embed_query(query), k)

    def similarity_search_by_vector(self, embedding: list[float], k: int = 4, **kwargs: Any) -> list[Document]:
        """The k nearest documents to a vector."""
        return [doc for doc, _ in self._by_vector(embedding, k)]

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        # scores are cosines of normalized vectors: relevance is the cosine, clipped to [0, 1]
        return lambda score: min(1.0, max(0.0, score))

    def as_hybrid_retriever(self, **search_kwargs: object) -> BaseRetriever:
        """anchorgate's hybrid retriever (pgvector + full-text search, fused and gated) over this collection."""
        return as_langchain_retriever(self.searcher(), self.embedding, **search_kwargs)

    def searcher(self) -> PgSearcher:
        """The collection's searcher (made on first use)."""
        if self._searcher is None:
            self._searcher = PgSearcher(self.url, self.collection)
        return self._searcher

    @classmethod
    def from_texts(
        cls, texts: list[str], embedding: Embeddings, metadatas: list[dict[Any, Any]] | None = None, *,
        ids: list[str] | None = None, url: str = "", collection: str = "langchain", **kwargs: Any,
    ) -> PgVectorStore:  # fmt: skip
        """A store over collection `collection` at `url` holding `texts`."""
        if not url:
            raise ValueError("PgVectorStore.from_texts needs url='postgresql://…'")
        store = cls(url, collection, embedding, embedding_id=str(kwargs.get("embedding_id", "")))
        store.add_texts(texts, metadatas, ids=ids)
        return store

    def _by_vector(self, vector: Sequence[float], k: int) -> list[tuple[Document, float]]:
        return [(_document(chunk), score) for chunk, score in self.searcher().dense(vector, k)]


def embedding_id_of(embedding: Embeddings) -> str:
    """The id a collection records for this model: the weights' fingerprint for a model anchorgate loads
    (what `anchorgate index` records), else the class name."""
    from anchorgate.tools.index.embeddings import embedding_id

    return embedding_id(embedding) or f"langchain:{type(embedding).__module__}.{type(embedding).__qualname__}"


def _chunks(texts: list[str], metadatas: list[dict[Any, Any]] | None, ids: list[str] | None) -> list[Chunk]:
    """One chunk per text; a missing id is the text's sha256 (so adding a text twice keeps one row)."""
    if metadatas is not None and len(metadatas) != len(texts):
        raise ValueError(f"{len(metadatas)} metadatas for {len(texts)} texts")
    if ids is not None and len(ids) != len(texts):
        raise ValueError(f"{len(ids)} ids for {len(texts)} texts")
    chunks: dict[str, Chunk] = {}
    for n, text in enumerate(texts):
        meta = dict((metadatas or [{}] * len(texts))[n] or {})
        cid = (ids[n] if ids else None) or hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        title, source = str(meta.pop("title", "")), str(meta.pop("source", ""))
        chunks[cid] = Chunk(cid, cid, title, text, source, 0, meta)  # a later duplicate id wins
    return list(chunks.values())


def _document(chunk: Chunk) -> Document:
    metadata = {**chunk.metadata, "id": chunk.id, "doc_id": chunk.doc_id, "title": chunk.title, "source": chunk.source}
    return Document(page_content=chunk.text, metadata=metadata, id=chunk.id)


"""Writing a corpus into the PostgreSQL store, idempotently: content hashes decide what is embedded.

`sync(url, name, snapshot, vectors_for)` makes collection `name` hold exactly `snapshot` (every
chunk of a corpus in corpus order, each document's sha256, the corpus hash) in one transaction,
under an advisory lock on the collection (two indexers of one corpus run one after the other;
readers see the old or the new collection, never a half-written one):

* the corpus hash and chunker are unchanged → nothing is read or written beyond one row (0 embeddings);
* otherwise only documents whose hash changed (or that are new) get new chunk rows; a chunk's vector
  is reused from any stored chunk with the same embedded text (sha256, `content_key`), and only
  texts the collection has never held are passed to `vectors_for` (the embedding model, or a local
  index's stored vectors); deleted documents' rows go; the others keep their rows (renumbered);
* the BM25 statistics (document frequencies, chunk count, mean length, language, keywords) are
  recomputed from the postings, so sparse scores equal `tools/retrieval/bm25.py`'s.

A collection made with another embedding model is refused before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from tqdm import tqdm

from anchorgate.tools.corpus.chunking import ChunkingSettings, chunk_passages
from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.errors import CorpusError, ModelUnavailableError
from anchorgate.tools.index.build import content_key, corpus_fingerprint, document_sha256, embedding_text, expected_for
from anchorgate.tools.index.store import DenseIndex, Expected
from anchorgate.tools.postgres.rows import (
    VectorsFor,
    check_model,
    collection_row,
    copy_chunks,
    create_collection,
    delete_chunks,
    refresh_statistics,
    reuse_vectors,
    writing,
)
from anchorgate.tools.retrieval.bm25 import tokenize_corpus

EMBED_BATCH = 64


@dataclass(frozen=True)
class Snapshot:
    """What a collection should hold: every chunk in corpus order, each document's hash, the corpus hash."""

    chunks: list[Chunk]
    documents: list[tuple[str, str]]
    corpus_sha256: str
    expected: Expected


@dataclass(frozen=True)
class SyncResult:
    """What one `sync` did."""

    collection: str
    chunks: int
    new_vectors: int
    """Vectors asked of `vectors_for`: texts the collection did not hold (embedded, for a corpus)."""
    reused: int
    """New chunk rows whose vector was already stored (same embedded text)."""
    documents: dict[str, int]
    up_to_date: bool
    seconds: float

    def summary(self) -> str:
        """One line for `anchorgate index`."""
        if self.up_to_date:
            return f"embedded 0 chunks, reused 0: collection {self.collection} is up to date ({self.chunks:,} chunks)"
        what = ", ".join(f"{self.documents.get(k, 0):,} {k}" for k in ("added", "changed", "deleted"))
        return (f"embedded {self.new_vectors:,} chunks, reused {self.reused:,} ({what} documents)"
                f" in {self.seconds:.1f} s")  # fmt: skip


def snapshot_of(passages: Sequence[Passage], embedding_id: str, settings: ChunkingSettings) -> Snapshot:
    """The snapshot of a corpus: chunked exactly as the local index chunks it."""
    if not passages:
        raise CorpusError("cannot index an empty corpus")
    chunks = chunk_passages(passages, settings)
    if not chunks:
        raise CorpusError("the corpus has no text to index", "its documents are empty or whitespace")
    documents = [(p.id, document_sha256(p)) for p in passages]
    return Snapshot(chunks, documents, corpus_fingerprint(passages), expected_for(embedding_id, settings, passages))


def snapshot_of_index(index: DenseIndex) -> Snapshot:
    """The snapshot of a local index generation (its chunks, rows, documents and model)."""
    manifest = index.manifest
    expected = Expected(str(manifest["embedding_id"]), dict(manifest["chunking"]), str(manifest["chunker_fingerprint"]))
    return Snapshot(list(index.chunks), list(index.documents), str(manifest["corpus_sha256"]), expected)


def embedder(embeddings: Embeddings, progress: bool = True) -> VectorsFor:
    """`vectors_for` that embeds the chunks' texts (title + text) in batches."""

    def embed(chunks: list[Chunk]) -> np.ndarray:
        texts = [embedding_text(chunk) for chunk in chunks]
        rows: list[list[float]] = []
        with tqdm(total=len(texts), desc="indexing", unit="chunk", disable=not progress, file=sys.stderr) as bar:
            for start in range(0, len(texts), EMBED_BATCH):
                rows.extend(embeddings.embed_documents(texts[start : start + EMBED_BATCH]))
                bar.update(min(EMBED_BATCH, len(texts) - start))
        matrix = np.asarray(rows, dtype="float32")
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise ModelUnavailableError(f"the embedding model returned shape {matrix.shape} for {len(texts)} texts")
        return matrix

    return embed


def index_vectors(index: DenseIndex) -> VectorsFor:
    """`vectors_for` that takes the vectors a local index already holds (nothing is embedded)."""
    rows = {key: row for row, key in enumerate(index.content_keys)}
    return lambda chunks: np.stack([index.vector(rows[content_key(chunk)]) for chunk in chunks])


def sync(url: str, name: str, snapshot: Snapshot, vectors_for: VectorsFor) -> SyncResult:
    """Make collection `name` hold `snapshot` (see the module docstring); one transaction."""
    started = time.perf_counter()
    with writing(url, name) as conn:
        result = _sync_locked(conn, url, name, snapshot, vectors_for)
    return SyncResult(**{**asdict(result), "seconds": time.perf_counter() - started})


def _sync_locked(conn: Any, url: str, name: str, snap: Snapshot, vectors_for: VectorsFor) -> SyncResult:
    row = collection_row(conn, name)
    expected = snap.expected
    current = False  # same chunker and chunking as the stored rows
    if row is not None:
        check_model(row, expected.embedding_id, url, name)
        current = row["chunker_fingerprint"] == expected.chunker_fingerprint and row["chunking"] == expected.chunking
        if current and row["corpus_sha256"] == snap.corpus_sha256:
            return SyncResult(name, int(row["n_chunks"]), 0, 0, {}, True, 0.0)
    cid = int(row["id"]) if row else create_collection(conn, name, expected)
    language, tokens = tokenize_corpus([embedding_text(chunk) for chunk in snap.chunks], "auto")
    rewrite = row is None or not current or row["language"] != language  # every row's terms change
    before = dict(conn.execute("SELECT doc_id, sha256 FROM anchorgate_documents WHERE collection = %s", (cid,)))
    after = _document_hashes(snap.documents)
    changed = {doc for doc, sha in after.items() if rewrite or before.get(doc) != sha}
    gone = sorted(set(before) - set(after))
    fresh = [i for i, chunk in enumerate(snap.chunks) if chunk.doc_id in changed]
    vectors, new_vectors, reused = reuse_vectors(conn, cid, [snap.chunks[i] for i in fresh], vectors_for)
    if vectors.shape[0] and row is not None and row["n_chunks"]:
        check_model(row, expected.embedding_id, url, name, int(vectors.shape[1]))
    dropped = sorted(changed | set(gone))
    delete_chunks(conn, cid, "doc_id", dropped)
    copy_chunks(conn, cid, [(i, snap.chunks[i], tokens[i]) for i in fresh], vectors)
    _renumber(conn, cid, [(i, c.id) for i, c in enumerate(snap.chunks) if c.doc_id not in changed])
    conn.execute("DELETE FROM anchorgate_documents WHERE collection = %s AND doc_id = ANY(%s)", (cid, dropped))
    conn.cursor().executemany(
        "INSERT INTO anchorgate_documents (collection, doc_id, sha256) VALUES (%s, %s, %s)",
        [(cid, doc, after[doc]) for doc in sorted(changed)],
    )
    dimension = int(vectors.shape[1]) if vectors.shape[0] else int(row["dimension"] if row else 0)
    refresh_statistics(conn, cid, language)
    conn.execute(
        "UPDATE anchorgate_collections SET corpus_sha256 = %s, chunking = %s, chunker_fingerprint = %s,"
        " dimension = %s WHERE id = %s",
        (snap.corpus_sha256, json.dumps(expected.chunking), expected.chunker_fingerprint, dimension, cid),
    )
    # fresh statistics for the planner: a bulk load would otherwise be planned as empty tables
    conn.execute("ANALYZE anchorgate_chunks, anchorgate_postings, anchorgate_terms")
    counts = _changes(before, after, changed)
    return SyncResult(name, len(snap.chunks), new_vectors, reused, counts, False, 0.0)


def _document_hashes(documents: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Hash per document id; passages sharing an id (a pooled corpus may have them) hash together."""
    grouped: dict[str, list[str]] = {}
    for doc_id, sha in documents:
        grouped.setdefault(doc_id, []).append(sha)
    return {doc: shas[0] if len(shas) == 1 else hashlib.sha256("".join(shas).encode()).hexdigest()
            for doc, shas in grouped.items()}  # fmt: skip


def _renumber(conn: Any, cid: int, kept: list[tuple[int, str]]) -> None:
    """Give kept rows their position in the new corpus order (ties in search break by it)."""
    if kept:
        conn.execute(
            "UPDATE anchorgate_chunks c SET ord = v.ord FROM unnest(%s::int[], %s::text[]) AS v(ord, id)"
            " WHERE c.collection = %s AND c.id = v.id AND c.ord <> v.ord",
            ([o for o, _ in kept], [i for _, i in kept], cid),
        )


def _changes(before: dict[str, str], after: dict[str, str], changed: set[str]) -> dict[str, int]:
    return {
        "added": sum(1 for doc in after if doc not in before),
        "changed": sum(1 for doc in changed if doc in before),
        "deleted": sum(1 for doc in before if doc not in after),
        "unchanged": sum(1 for doc in after if doc not in changed),
    }

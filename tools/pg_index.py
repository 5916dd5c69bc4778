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
  recomputed from the stored term frequencies, so sparse scores equal `tools/bm25.py`'s.

A collection made with another embedding model is refused before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from tqdm import tqdm

from anchorgate.tools.bm25 import MIN_KEYWORD_DF, MIN_KEYWORDS, tokenize_corpus
from anchorgate.tools.chunking import ChunkingSettings, chunk_passages
from anchorgate.tools.documents import Chunk, Passage
from anchorgate.tools.errors import CorpusError, ModelUnavailableError
from anchorgate.tools.index import content_key, corpus_fingerprint, document_sha256, embedding_text, expected_for
from anchorgate.tools.index_store import DenseIndex, Expected
from anchorgate.tools.pg_store import (
    VectorStoreDataError,
    connect,
    ensure_schema,
    parse_vector,
    server_of,
    unreachable,
    vector_literal,
)
from anchorgate.tools.stopwords import stopwords_for

EMBED_BATCH = 64
MAX_POSITION, MAX_POSITIONS = 16383, 256  # PostgreSQL's limits for tsvector positions
VectorsFor = Callable[[list[Chunk]], np.ndarray]
_COPY = (
    "COPY anchorgate_chunks (collection, id, ord, doc_id, title, content, source, pos, metadata, content_key,"
    " embedding, len, tf, tsv) FROM STDIN"
)


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
    return Snapshot(chunks, documents, corpus_fingerprint(passages), expected_for(embedding_id, settings))


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


@contextmanager
def writing(url: str, name: str) -> Iterator[Any]:
    """A connection in one transaction holding collection `name`'s advisory lock (committed on success,
    rolled back on any error, so a refused or failed write leaves nothing behind)."""
    import psycopg

    conn = connect(url)
    try:
        ensure_schema(conn, url)
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"anchorgate:{name}",))
            yield conn
    except psycopg.Error as exc:
        raise unreachable(url, exc) from exc
    finally:
        conn.close()


def collection_row(conn: Any, name: str) -> dict[str, Any] | None:
    """The collection's row as a dict, None when there is none."""
    cursor = conn.execute(
        "SELECT id, embedding_id, dimension, chunking, chunker_fingerprint, corpus_sha256, language, n_chunks"
        " FROM anchorgate_collections WHERE name = %s",
        (name,),
    )
    row = cursor.fetchone()
    return dict(zip([d.name for d in cursor.description], row, strict=True)) if row else None


def check_model(row: dict[str, Any], embedding_id: str, url: str, name: str, dimension: int = 0) -> None:
    """Refuse a collection whose vectors another embedding model (or dimension) made."""
    stored_dim = int(row["dimension"])
    if row["embedding_id"] != embedding_id or (dimension and stored_dim and dimension != stored_dim):
        raise VectorStoreDataError(
            f"collection {name!r} at {server_of(url)} was indexed with embedding model {row['embedding_id']}"
            f" ({stored_dim}-d vectors); this run uses {embedding_id}" + (f" ({dimension}-d)" if dimension else ""),
            "set embedding_model to the model it was built with, or index into another collection"
            " with --set vector_collection=NAME",
        )


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
    conn.execute("DELETE FROM anchorgate_chunks WHERE collection = %s AND doc_id = ANY(%s)", (cid, dropped))
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
    counts = _changes(before, after, changed)
    return SyncResult(name, len(snap.chunks), new_vectors, reused, counts, False, 0.0)


def create_collection(conn: Any, name: str, expected: Expected) -> int:
    cursor = conn.execute(
        "INSERT INTO anchorgate_collections (name, embedding_id, dimension, chunking, chunker_fingerprint)"
        " VALUES (%s, %s, 0, %s, %s) RETURNING id",
        (name, expected.embedding_id, json.dumps(expected.chunking), expected.chunker_fingerprint),
    )
    return int(cursor.fetchone()[0])


def _document_hashes(documents: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Hash per document id; passages sharing an id (a pooled corpus may have them) hash together."""
    grouped: dict[str, list[str]] = {}
    for doc_id, sha in documents:
        grouped.setdefault(doc_id, []).append(sha)
    return {doc: shas[0] if len(shas) == 1 else hashlib.sha256("".join(shas).encode()).hexdigest()
            for doc, shas in grouped.items()}  # fmt: skip


def reuse_vectors(conn: Any, cid: int, chunks: list[Chunk], vectors_for: VectorsFor) -> tuple[np.ndarray, int, int]:
    """(a vector per chunk, how many came from `vectors_for`, how many chunks reused a stored one)."""
    keys = [content_key(chunk) for chunk in chunks]
    stored = {
        key: np.asarray(parse_vector(text), dtype="float32")
        for key, text in conn.execute(
            "SELECT DISTINCT ON (content_key) content_key, embedding::text FROM anchorgate_chunks"
            " WHERE collection = %s AND content_key = ANY(%s)",
            (cid, sorted(set(keys))),
        )
    }
    missing: dict[str, Chunk] = {}  # first chunk of each text the store lacks, in corpus order
    for key, chunk in zip(keys, chunks, strict=True):
        if key not in stored and key not in missing:
            missing[key] = chunk
    if missing:
        stored.update(zip(missing, vectors_for(list(missing.values())), strict=True))
    if not chunks:
        return np.zeros((0, 0), dtype="float32"), 0, 0
    vectors = np.stack([stored[key] for key in keys]).astype("float32", copy=False)
    return vectors, len(missing), sum(1 for key in keys if key not in missing)


def copy_chunks(conn: Any, cid: int, rows: list[tuple[int, Chunk, list[str]]], vectors: np.ndarray) -> None:
    """Insert chunk rows with COPY: text, metadata, vector, term frequencies and tsvector."""
    with conn.cursor().copy(_COPY) as copy:
        for (ord_, chunk, tokens), vector in zip(rows, vectors, strict=True):
            copy.write_row((
                cid, chunk.id, ord_, chunk.doc_id, chunk.title, chunk.text, chunk.source, chunk.position,
                json.dumps(chunk.metadata, ensure_ascii=False, default=str), content_key(chunk),
                vector_literal(vector), len(tokens), json.dumps(Counter(tokens), ensure_ascii=False),
                tsvector_literal(tokens),
            ))  # fmt: skip


def _renumber(conn: Any, cid: int, kept: list[tuple[int, str]]) -> None:
    """Give kept rows their position in the new corpus order (ties in search break by it)."""
    if kept:
        conn.execute(
            "UPDATE anchorgate_chunks c SET ord = v.ord FROM unnest(%s::int[], %s::text[]) AS v(ord, id)"
            " WHERE c.collection = %s AND c.id = v.id AND c.ord <> v.ord",
            ([o for o, _ in kept], [i for _, i in kept], cid),
        )


def refresh_statistics(conn: Any, cid: int, language: str) -> None:
    """Document frequencies, chunk count, mean length and keywords, recomputed from the stored rows."""
    conn.execute("DELETE FROM anchorgate_terms WHERE collection = %s", (cid,))
    conn.execute(
        "INSERT INTO anchorgate_terms (collection, term, df) SELECT %s, k, count(*) FROM anchorgate_chunks c"
        " CROSS JOIN LATERAL jsonb_object_keys(c.tf) AS k WHERE c.collection = %s GROUP BY k",
        (cid, cid),
    )
    n, total = conn.execute(
        "SELECT count(*), coalesce(sum(len), 0) FROM anchorgate_chunks WHERE collection = %s", (cid,)
    ).fetchone()
    # The rule of tools/bm25.py: quoted stopwords become query keywords when the corpus has enough of them.
    quoted = [t for (t,) in conn.execute(
        "SELECT term FROM anchorgate_terms WHERE collection = %s AND df >= %s AND term = ANY(%s) ORDER BY term",
        (cid, MIN_KEYWORD_DF, sorted(stopwords_for(language))),
    )]  # fmt: skip
    keywords = quoted if len(quoted) >= MIN_KEYWORDS else []
    conn.execute(
        "UPDATE anchorgate_collections SET n_chunks = %s, avgdl = %s, language = %s, keywords = %s,"
        " generation = generation + 1, updated_at = now() WHERE id = %s",
        (int(n), float(total) / int(n) if n else 0.0, language, keywords, cid),
    )


def tsvector_literal(tokens: Sequence[str]) -> str:
    """The tsvector of a chunk's BM25 terms with their positions, taken literally (no dictionary)."""
    positions: dict[str, list[int]] = {}
    for position, token in enumerate(tokens, start=1):
        positions.setdefault(token, []).append(min(position, MAX_POSITION))
    parts = []
    for token, where in positions.items():
        lexeme = token.replace("\\", "\\\\").replace("'", "''")
        parts.append(f"'{lexeme}':" + ",".join(map(str, sorted(set(where))[:MAX_POSITIONS])))
    return " ".join(parts)


def _changes(before: dict[str, str], after: dict[str, str], changed: set[str]) -> dict[str, int]:
    return {
        "added": sum(1 for doc in after if doc not in before),
        "changed": sum(1 for doc in changed if doc in before),
        "deleted": sum(1 for doc in before if doc not in after),
        "unchanged": sum(1 for doc in after if doc not in changed),
    }

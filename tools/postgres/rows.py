"""Row-level reads and writes of the PostgreSQL store, shared by corpus sync and the LangChain store.

Every write runs inside `writing(url, name)`: one transaction holding the collection's advisory
lock, so a failed or refused write leaves nothing behind. A chunk row carries its text, metadata,
vector (pgvector) and tsvector; its BM25 postings go to `anchorgate_postings`; `refresh_statistics`
recomputes what BM25 needs from them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

import numpy as np

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.index.build import content_key
from anchorgate.tools.index.store import Expected
from anchorgate.tools.postgres.store import (
    VectorStoreDataError,
    connect,
    ensure_schema,
    parse_vector,
    server_of,
    unreachable,
    vector_literal,
)
from anchorgate.tools.retrieval.bm25 import MIN_KEYWORD_DF, MIN_KEYWORDS
from anchorgate.tools.text.stopwords import Language, stopwords_for

VectorsFor = Callable[[list[Chunk]], np.ndarray]
"""Vectors for chunks whose embedded text the collection does not hold (embedded, or read from an index)."""
MAX_POSITION, MAX_POSITIONS = 16383, 256  # PostgreSQL's limits for tsvector positions
_COPY = (
    "COPY anchorgate_chunks (collection, id, ord, doc_id, title, content, source, pos, metadata, content_key,"
    " embedding, len, tsv) FROM STDIN"
)
_COPY_POSTINGS = "COPY anchorgate_postings (collection, term, rid, tf, len) FROM STDIN"


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
        stored, used = model_label(str(row["embedding_id"])), model_label(embedding_id)
        raise VectorStoreDataError(
            f"collection {name!r} at {server_of(url)} was indexed with embedding model {stored}"
            f" ({stored_dim}-d vectors); this run uses {used}" + (f" ({dimension}-d)" if dimension else ""),
            "set embedding_model to the model it was built with, or index into another collection"
            " with --set resources.vector_collection=NAME",
        )


def model_label(embedding_id: str) -> str:
    """An embedding id as a message names it: "multilingual-e5-small (id …)" for a packaged model, else the id."""
    from anchorgate.tools.index.embeddings import model_for_id

    model = model_for_id(embedding_id)
    return f"{model} (id {embedding_id})" if model else embedding_id


def create_collection(conn: Any, name: str, expected: Expected) -> int:
    cursor = conn.execute(
        "INSERT INTO anchorgate_collections (name, embedding_id, dimension, chunking, chunker_fingerprint)"
        " VALUES (%s, %s, 0, %s, %s) RETURNING id",
        (name, expected.embedding_id, json.dumps(expected.chunking), expected.chunker_fingerprint),
    )
    return int(cursor.fetchone()[0])


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
    """Insert chunk rows (text, metadata, vector, tsvector) and their postings with COPY."""
    with conn.cursor().copy(_COPY) as copy:
        for (ord_, chunk, tokens), vector in zip(rows, vectors, strict=True):
            copy.write_row((
                cid, chunk.id, ord_, chunk.doc_id, chunk.title, chunk.text, chunk.source, chunk.position,
                json.dumps(chunk.metadata, ensure_ascii=False, default=str), content_key(chunk),
                vector_literal(vector), len(tokens), tsvector_literal(tokens),
            ))  # fmt: skip
    ids = [chunk.id for _, chunk, _ in rows]
    sql = "SELECT id, rid FROM anchorgate_chunks WHERE collection = %s AND id = ANY(%s)"
    rids = dict(conn.execute(sql, (cid, ids)))
    with conn.cursor().copy(_COPY_POSTINGS) as copy:
        for _, chunk, tokens in rows:
            for term, tf in sorted(Counter(tokens).items()):
                copy.write_row((cid, term, rids[chunk.id], tf, len(tokens)))


def delete_chunks(conn: Any, cid: int, column: str, values: Sequence[str]) -> None:
    """Delete the chunks whose `column` (doc_id or id) is one of `values`, and their postings."""
    if column not in ("doc_id", "id"):
        raise ValueError(f"cannot delete chunks by {column!r}")
    where = f"collection = %s AND {column} = ANY(%s)"
    conn.execute(
        f"DELETE FROM anchorgate_postings WHERE rid IN (SELECT rid FROM anchorgate_chunks WHERE {where})",
        (cid, list(values)),
    )
    conn.execute(f"DELETE FROM anchorgate_chunks WHERE {where}", (cid, list(values)))


def refresh_statistics(conn: Any, cid: int, language: str) -> None:
    """Document frequencies, chunk count, mean length and keywords, recomputed from the stored rows."""
    conn.execute("DELETE FROM anchorgate_terms WHERE collection = %s", (cid,))
    conn.execute(
        "INSERT INTO anchorgate_terms (collection, term, df) SELECT %s, term, count(*) FROM anchorgate_postings"
        " WHERE collection = %s GROUP BY term",
        (cid, cid),
    )
    n, total = conn.execute(
        "SELECT count(*), coalesce(sum(len), 0) FROM anchorgate_chunks WHERE collection = %s", (cid,)
    ).fetchone()
    # The rule of tools/retrieval/bm25.py: quoted stopwords become query keywords when the corpus has enough of them.
    quoted = [t for (t,) in conn.execute(
        "SELECT term FROM anchorgate_terms WHERE collection = %s AND df >= %s AND term = ANY(%s) ORDER BY term",
        (cid, MIN_KEYWORD_DF, sorted(stopwords_for(cast(Language, language)))),
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

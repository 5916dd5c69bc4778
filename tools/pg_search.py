"""Hybrid search in the PostgreSQL store: pgvector (dense) + full-text search (sparse), then the shared gate.

`PgSearcher.search` makes the same `Candidates` as the FAISS + BM25 searcher and hands them to
`tools.hybrid.fuse_and_gate`, so fusion, relevance floor, priors, de-duplication and ordering are
one piece of code for both stores. One SQL statement per query finds them:

* dense: `ORDER BY embedding <#> q, ord LIMIT fetch` — exact inner product over the collection's
  rows (no approximate index: results equal FAISS's flat index up to float rounding);
* sparse: chunks whose `tsv` matches the query's terms (`tsv @@ 't1' | 't2'`, GIN index), ranked
  by BM25 computed in SQL from the stored term frequencies with bm25s' Lucene formula (the same
  idf, k1 = 1.5, b = 0.75 and mean length as `tools/bm25.py`), or with `sparse="ts_rank"` by
  PostgreSQL's own `ts_rank` (for comparison: it ranks differently, see BENCHMARKS.md);
* for every candidate of either list: its cosine, its sparse score, its terms and its chunk.

Queries are tokenized as `tools/bm25.py` tokenizes them, with the collection's language and
keywords. Each search reads one snapshot (REPEATABLE READ), so a concurrent re-index is seen
entirely or not at all. Ties break by `ord`, the chunk's position in the corpus (FAISS's row).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, cast

import numpy as np

from anchorgate.tools.bm25 import terms as raw_terms
from anchorgate.tools.documents import Chunk
from anchorgate.tools.hybrid import Candidates, Fusion, HybridHit, Mode, Searcher, checked_query, fetch_size
from anchorgate.tools.hybrid import fuse_and_gate as shared_fuse_and_gate
from anchorgate.tools.pg_store import (
    VectorStoreDataError,
    check_schema,
    connect,
    parse_vector,
    server_of,
    unreachable,
    vector_literal,
)
from anchorgate.tools.stopwords import Language, stopwords_for

K1, B = 1.5, 0.75  # tools/bm25.py's defaults
Sparse = Literal["bm25", "ts_rank"]
_BM25 = (
    "coalesce((SELECT sum(q.n * (q.idf * ((c.tf ->> q.term)::float8 / (%(k1)s * ((1 - %(b)s) + %(b)s * c.len"
    " / %(avgdl)s) + (c.tf ->> q.term)::float8)))) FROM q WHERE c.tf ? q.term), 0)"
)
_TS_RANK = "coalesce(ts_rank(c.tsv, %(tsq)s::tsquery), 0)"
_SEARCH = """
WITH q AS (SELECT * FROM unnest(%(terms)s::text[], %(idf)s::float8[], %(counts)s::int[]) AS q(term, idf, n)),
dense AS (SELECT ord FROM anchorgate_chunks WHERE collection = %(cid)s
          ORDER BY embedding <#> %(qvec)s::vector, ord LIMIT %(dense_k)s),
sparse AS (SELECT c.ord FROM anchorgate_chunks c WHERE c.collection = %(cid)s AND c.tsv @@ %(tsq)s::tsquery
           ORDER BY {sparse} DESC, c.ord LIMIT %(sparse_k)s)
SELECT c.ord, c.id, c.doc_id, c.title, c.content, c.source, c.pos, c.metadata, c.tf,
       -(c.embedding <#> %(qvec)s::vector) AS cosine, {sparse} AS sparse,
       c.ord IN (SELECT ord FROM dense) AS in_dense, c.ord IN (SELECT ord FROM sparse) AS in_sparse
FROM anchorgate_chunks c
WHERE c.collection = %(cid)s AND (c.ord IN (SELECT ord FROM dense) OR c.ord IN (SELECT ord FROM sparse))
"""
_INFO = """
SELECT c.id, c.embedding_id, c.dimension, c.language, c.keywords, c.n_chunks, c.avgdl,
       (SELECT coalesce(jsonb_object_agg(t.term, t.df), '{}') FROM anchorgate_terms t
        WHERE t.collection = c.id AND t.term = ANY(%s))
FROM anchorgate_collections c WHERE c.name = %s
"""
_CHUNK_COLUMNS = "ord, id, doc_id, title, content, source, pos, metadata"


class PgSearcher(Searcher):
    """Search one collection of the PostgreSQL store; thread-safe (a small pool of connections)."""

    def __init__(self, url: str, collection: str, *, sparse: Sparse = "bm25") -> None:
        self.url = url.strip()
        self.collection = collection
        self.sparse = sparse
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        with self._connection() as conn:
            check_schema(conn, self.url)

    def info(self) -> dict[str, Any]:
        """The collection's row: id, embedding model id, dimension, language, chunk count."""
        with self._snapshot() as conn:
            return self._info(conn, [])

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
        """At most `pool_k` gated hits, scored and ordered exactly as `HybridSearcher.search` does."""
        if pool_k <= 0:
            return []
        with self._snapshot() as conn:
            info = self._info(conn, sorted(set(raw_terms(query))))
            if not info["n_chunks"]:
                return []
            qvec = checked_query(query_vector, int(info["dimension"]), dense_weight)
            found = self._candidates(conn, info, query, qvec, fetch_size(pool_k), mode)
        hits = shared_fuse_and_gate(found, mode=mode, fusion=fusion, relevance_floor=relevance_floor,
                                    dense_weight=dense_weight)  # fmt: skip
        return hits[:pool_k]

    def dense(self, query_vector: Sequence[float], k: int) -> list[tuple[Chunk, float]]:
        """The k nearest chunks by inner product: (chunk, cosine), best first, ties by `ord`."""
        with self._snapshot() as conn:
            info = self._info(conn, [])
            rows = conn.execute(
                f"SELECT {_CHUNK_COLUMNS}, -(embedding <#> %s::vector) FROM anchorgate_chunks WHERE collection = %s"
                " ORDER BY embedding <#> %s::vector, ord LIMIT %s",
                (vector_literal(query_vector), info["id"], vector_literal(query_vector), max(k, 0)),
            ).fetchall()
        # DenseIndex.search's order: cosine rounded to 1e-6 descending, then row
        hits = sorted(((float(r[8]), int(r[0]), _chunk(r)) for r in rows), key=lambda h: (-round(h[0], 6), h[1]))
        return [(chunk, score) for score, _, chunk in hits]

    def chunks(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks of these ids (unknown ids are left out), in `ord` order."""
        with self._snapshot() as conn:
            info = self._info(conn, [])
            rows = conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM anchorgate_chunks WHERE collection = %s AND id = ANY(%s) ORDER BY ord",
                (info["id"], list(ids)),
            ).fetchall()
        return [_chunk(row) for row in rows]

    def vectors(self, items: Sequence[int | str]) -> np.ndarray:
        """Stored vectors of chunks given by `ord` or chunk id, in the order given."""
        with self._snapshot() as conn:
            info = self._info(conn, [])
            ords = [item for item in items if isinstance(item, int)]
            ids = [item for item in items if isinstance(item, str)]
            found: dict[int | str, np.ndarray] = {}
            for ord_, cid, text in conn.execute(
                "SELECT ord, id, embedding::text FROM anchorgate_chunks WHERE collection = %s"
                " AND (ord = ANY(%s) OR id = ANY(%s))",
                (info["id"], ords, ids),
            ):
                found[ord_] = found[cid] = np.asarray(parse_vector(text), dtype="float32")
        missing = [item for item in items if item not in found]
        if missing:
            raise VectorStoreDataError(f"collection {self.collection!r} has no chunk {missing[0]!r}")
        return np.stack([found[item] for item in items]) if items else np.zeros((0, int(info["dimension"])), "float32")

    def close(self) -> None:
        """Close the pooled connections."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _info(self, conn: Any, terms: list[str]) -> dict[str, Any]:
        row = conn.execute(_INFO, (terms, self.collection)).fetchone()
        if row is None:
            raise VectorStoreDataError(
                f"the PostgreSQL vector store at {server_of(self.url)} has no collection {self.collection!r}",
                "index the corpus into it: anchorgate index PATH --set vector_store=URL",
            )
        keys = ("id", "embedding_id", "dimension", "language", "keywords", "n_chunks", "avgdl", "df")
        return dict(zip(keys, row, strict=True))

    def _candidates(
        self, conn: Any, info: dict[str, Any], query: str, qvec: np.ndarray, fetch: int, mode: Mode
    ) -> Candidates:
        """Dense and sparse top-`fetch` with both scores of every candidate (one statement)."""
        language = cast(Language, info["language"])
        stop = stopwords_for(language) - set(info["keywords"])
        tokens = [t for t in raw_terms(query) if t not in stop]  # as BM25Index.tokenize
        n, df = int(info["n_chunks"]), {t: int(v) for t, v in info["df"].items()}
        known = Counter(t for t in tokens if df.get(t, 0) > 0)
        terms = sorted(known)
        params = {
            "cid": info["id"], "qvec": vector_literal(qvec), "k1": K1, "b": B, "avgdl": float(info["avgdl"]),
            "terms": terms, "counts": [known[t] for t in terms],
            # bm25s' idf (math.log); the gate's idf below is tools/bm25.py's (log1p), as for FAISS
            "idf": [math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms],
            "tsq": " | ".join(_lexeme(t) for t in terms) or None,
            "dense_k": fetch if mode != "bm25" else 0, "sparse_k": fetch if mode != "dense" and terms else 0,
        }  # fmt: skip
        sql = _SEARCH.format(sparse=_BM25 if self.sparse == "bm25" else _TS_RANK)
        rows = conn.execute(sql, params).fetchall()
        dense = sorted(((int(r[0]), float(r[9])) for r in rows if r[11]), key=lambda h: (-round(h[1], 6), h[0]))
        sparse = sorted(((int(r[0]), float(r[10])) for r in rows if r[12] and r[10] > 0), key=lambda h: (-h[1], h[0]))
        query_terms = sorted(set(tokens))
        return Candidates(
            dense=dense,
            sparse=sparse,
            cosine={int(r[0]): float(r[9]) for r in rows},
            keyword_score={int(r[0]): float(r[10]) for r in rows},
            chunks={int(r[0]): _chunk(r) for r in rows},
            doc_terms={int(r[0]): list(r[8]) for r in rows},
            query_terms=query_terms,
            idf={t: float(np.log1p((n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))) for t in query_terms},
        )

    @contextmanager
    def _snapshot(self) -> Iterator[Any]:
        """A pooled connection inside a read-only REPEATABLE READ transaction (one consistent view)."""
        with self._connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield conn

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection from the pool (a new one when none is idle); a broken one is dropped."""
        import psycopg

        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None or conn.closed:
            conn = connect(self.url)
        try:
            yield conn
        except psycopg.Error as exc:
            conn.close()
            raise unreachable(self.url, exc) from exc
        except BaseException:
            conn.close()  # an error mid-transaction: the connection's state is unknown
            raise
        with self._lock:
            self._idle.append(conn)


def _lexeme(term: str) -> str:
    """A tsquery operand matching `term` literally."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _chunk(row: Sequence[Any]) -> Chunk:
    """A `Chunk` from the leading `_CHUNK_COLUMNS` of a row."""
    return Chunk(str(row[1]), str(row[2]), str(row[3]), str(row[4]), str(row[5]), int(row[6]), dict(row[7] or {}))

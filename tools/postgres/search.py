"""Hybrid search in the PostgreSQL store: pgvector (dense) + full-text search (sparse), then the shared gate.

`PgSearcher.search` makes the same `Candidates` as the FAISS + BM25 searcher and hands them to
`tools.retrieval.hybrid.fuse_and_gate`, so fusion, relevance floor, priors, de-duplication and ordering are
one piece of code for both stores. One SQL statement per query finds them:

* dense: `ORDER BY embedding <#> q, ord LIMIT fetch` — exact inner product over the collection's
  rows (no approximate index: results equal FAISS's flat index up to float rounding);
* sparse: BM25 computed in SQL over the inverted index `anchorgate_postings` (only the query terms'
  rows are read) with bm25s' Lucene formula — the same idf, k1 = 1.5, b = 0.75, mean length and
  tokens as `tools/retrieval/bm25.py` — or, with `sparse="ts_rank"`, PostgreSQL's full-text search: chunks
  whose `tsv` matches the terms (`tsv @@ 't1' | 't2'`, GIN) ranked by `ts_rank` (it ranks
  differently from BM25; docs/benchmark-log.md measures how much);
* for every candidate of either list: its cosine, its sparse score, its terms and its chunk.

Queries are tokenized as `tools/retrieval/bm25.py` tokenizes them, with the collection's language and
keywords. A search is one statement, so it reads one snapshot: a concurrent re-index is seen
entirely or not at all. Ties break by `ord`, the chunk's position in the corpus (FAISS's row).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, cast

import numpy as np

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.postgres.store import (
    VectorStoreDataError,
    check_schema,
    connect,
    parse_vector,
    server_of,
    unreachable,
    vector_literal,
)
from anchorgate.tools.retrieval.bm25 import terms as raw_terms
from anchorgate.tools.retrieval.hybrid import checked_query, fetch_size
from anchorgate.tools.retrieval.hybrid import fuse_and_gate as shared_fuse_and_gate
from anchorgate.tools.retrieval.searcher import Candidates, Fusion, HybridHit, Mode, Searcher
from anchorgate.tools.text.stopwords import Language, stopwords_for

K1, B = 1.5, 0.75  # tools/retrieval/bm25.py's defaults
Sparse = Literal["bm25", "ts_rank"]
# scored: every chunk holding a query term, with its sparse score (materialized once, read twice);
# present: the query terms each candidate holds (all the gate's keyword coverage needs)
_BM25 = """scored AS (
    SELECT p.rid, sum(q.n * (q.idf * (p.tf::float8
                  / (%(k1)s * ((1 - %(b)s) + %(b)s * p.len / (SELECT avgdl FROM meta)) + p.tf::float8)))) AS sparse
    FROM q JOIN anchorgate_postings p ON p.collection = %(cid)s AND p.term = q.term GROUP BY p.rid)"""
_BM25_PRESENT = """present AS (
    SELECT p.rid, array_agg(p.term) AS terms FROM q JOIN anchorgate_postings p
    ON p.collection = %(cid)s AND p.term = q.term AND p.rid = ANY(ARRAY(SELECT rid FROM cand)) GROUP BY p.rid)"""
_TS_RANK = """scored AS (
    SELECT c.rid, ts_rank(c.tsv, %(tsq)s::tsquery)::float8 AS sparse
    FROM anchorgate_chunks c WHERE c.collection = %(cid)s AND c.tsv @@ %(tsq)s::tsquery)"""
_TS_PRESENT = """present AS (
    SELECT c.rid, ARRAY(SELECT t FROM unnest(tsvector_to_array(c.tsv)) AS t WHERE t = ANY(%(terms)s::text[])) AS terms
    FROM anchorgate_chunks c WHERE c.rid IN (SELECT rid FROM cand))"""
_SEARCH = """
WITH meta AS (SELECT n_chunks, avgdl, generation FROM anchorgate_collections WHERE id = %(cid)s),
q AS (SELECT t.term, t.n, d.df, ln(1::float8 + (m.n_chunks - d.df + 0.5::float8) / (d.df + 0.5::float8)) AS idf
      FROM unnest(%(terms)s::text[], %(counts)s::int[]) AS t(term, n)
      JOIN anchorgate_terms d ON d.collection = %(cid)s AND d.term = t.term CROSS JOIN meta m),
dense AS (SELECT rid FROM anchorgate_chunks WHERE collection = %(cid)s
          ORDER BY embedding <#> %(qvec)s::vector, ord LIMIT %(dense_k)s),
{scored},
sparse AS (SELECT rid FROM scored ORDER BY sparse DESC FETCH FIRST %(sparse_k)s ROWS WITH TIES),
cand AS (SELECT rid FROM dense UNION SELECT rid FROM sparse),
{present}
SELECT c.ord, c.id, c.doc_id, c.title, c.content, c.source, c.pos, c.metadata,
       coalesce(pr.terms, ARRAY[]::text[]) AS present,
       -(c.embedding <#> %(qvec)s::vector) AS cosine, coalesce(s.sparse, 0) AS sparse,
       c.rid IN (SELECT rid FROM dense) AS in_dense, c.rid IN (SELECT rid FROM sparse) AS in_sparse,
       (SELECT generation FROM meta), (SELECT n_chunks FROM meta),
       (SELECT coalesce(jsonb_object_agg(term, df), '{{}}') FROM q) AS df
FROM cand JOIN anchorgate_chunks c ON c.rid = cand.rid
LEFT JOIN scored s ON s.rid = c.rid LEFT JOIN present pr ON pr.rid = c.rid
"""
_META = """
SELECT id, embedding_id, dimension, language, keywords, n_chunks, generation FROM anchorgate_collections WHERE name = %s
"""
_CHUNK_COLUMNS = "ord, id, doc_id, title, content, source, pos, metadata"


class PgSearcher(Searcher):
    """Search one collection of the PostgreSQL store; thread-safe (a small pool of connections).

    A search is one statement (one round trip, one snapshot). The collection's language, keywords
    and dimension, which tokenizing the query needs first, are kept from the last statement and
    checked by the collection's `generation`: a search that finds it changed (a re-index) reloads
    them and runs again.
    """

    def __init__(self, url: str, collection: str, *, sparse: Sparse = "bm25") -> None:
        self.url = url.strip()
        self.collection = collection
        self.sparse = sparse
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        with self._connection() as conn:
            check_schema(conn, self.url)
            self._meta = self._load_meta(conn)

    def info(self) -> dict[str, Any]:
        """The collection's row: id, embedding model id, dimension, language, keywords, chunk count, generation."""
        with self._connection() as conn:
            self._meta = self._load_meta(conn)
        return dict(self._meta)

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
        for _ in range(3):  # a re-index between two statements is rare; three in a row would be a bug
            meta = self._meta
            if not meta["n_chunks"]:  # empty when last read: it may have been filled since
                with self._connection() as conn:
                    meta = self._meta = self._load_meta(conn)
                if not meta["n_chunks"]:
                    return []
            qvec = checked_query(query_vector, int(meta["dimension"]), dense_weight)
            with self._connection() as conn:
                found = self._candidates(conn, meta, query, qvec, fetch_size(pool_k), mode)
                if found is None:
                    self._meta = self._load_meta(conn)
                    continue
            hits = shared_fuse_and_gate(found, mode=mode, fusion=fusion, relevance_floor=relevance_floor,
                                        dense_weight=dense_weight)  # fmt: skip
            return hits[:pool_k]
        raise VectorStoreDataError(f"collection {self.collection!r} changed during three searches in a row")

    def dense(self, query_vector: Sequence[float], k: int) -> list[tuple[Chunk, float]]:
        """The k nearest chunks by inner product: (chunk, cosine), best first, ties by `ord`."""
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_CHUNK_COLUMNS}, -(embedding <#> %s::vector) FROM anchorgate_chunks WHERE collection = %s"
                " ORDER BY embedding <#> %s::vector, ord LIMIT %s",
                (vector_literal(query_vector), self._meta["id"], vector_literal(query_vector), max(k, 0)),
            ).fetchall()
        # DenseIndex.search's order: cosine rounded to 1e-6 descending, then row
        hits = sorted(((float(r[8]), int(r[0]), _chunk(r)) for r in rows), key=lambda h: (-round(h[0], 6), h[1]))
        return [(chunk, score) for score, _, chunk in hits]

    def chunks(self, ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks of these ids (unknown ids are left out), in `ord` order."""
        with self._connection() as conn:
            rows = conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM anchorgate_chunks WHERE collection = %s AND id = ANY(%s) ORDER BY ord",
                (self._meta["id"], list(ids)),
            ).fetchall()
        return [_chunk(row) for row in rows]

    def chunks_at(self, rows: Sequence[int]) -> dict[int, Chunk]:
        """The stored chunks at these rows (`ord`), by row; rows the collection lacks are left out."""
        with self._connection() as conn:
            found = conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM anchorgate_chunks WHERE collection = %s AND ord = ANY(%s)",
                (self._meta["id"], list(rows)),
            ).fetchall()
        return {int(row[0]): _chunk(row) for row in found}

    def iter_chunks(self, batch: int = 1000) -> Iterator[Chunk]:
        """Every stored chunk in `ord` order, read `batch` rows at a time (never all at once)."""
        after = -1
        while True:
            with self._connection() as conn:
                rows = conn.execute(
                    f"SELECT {_CHUNK_COLUMNS} FROM anchorgate_chunks WHERE collection = %s AND ord > %s"
                    " ORDER BY ord LIMIT %s",
                    (self._meta["id"], after, batch),
                ).fetchall()
            yield from (_chunk(row) for row in rows)
            if len(rows) < batch:
                return
            after = int(rows[-1][0])

    def vectors(self, items: Sequence[int | str]) -> np.ndarray:
        """Stored vectors of chunks given by `ord` or chunk id, in the order given."""
        ords = [item for item in items if isinstance(item, int)]
        ids = [item for item in items if isinstance(item, str)]
        found: dict[int | str, np.ndarray] = {}
        with self._connection() as conn:
            for ord_, cid, text in conn.execute(
                "SELECT ord, id, embedding::text FROM anchorgate_chunks WHERE collection = %s"
                " AND (ord = ANY(%s) OR id = ANY(%s))",
                (self._meta["id"], ords, ids),
            ):
                found[ord_] = found[cid] = np.asarray(parse_vector(text), dtype="float32")
        missing = [item for item in items if item not in found]
        if missing:
            raise VectorStoreDataError(f"collection {self.collection!r} has no chunk {missing[0]!r}")
        if not items:
            return np.zeros((0, int(self._meta["dimension"])), dtype="float32")
        return np.stack([found[item] for item in items])

    def close(self) -> None:
        """Close the pooled connections."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _load_meta(self, conn: Any) -> dict[str, Any]:
        row = conn.execute(_META, (self.collection,)).fetchone()
        if row is None:
            raise VectorStoreDataError(
                f"the PostgreSQL vector store at {server_of(self.url)} has no collection {self.collection!r}",
                "index the corpus into it: anchorgate index PATH --set resources.vector_store=URL",
            )
        keys = ("id", "embedding_id", "dimension", "language", "keywords", "n_chunks", "generation")
        return dict(zip(keys, row, strict=True))

    def _candidates(
        self, conn: Any, meta: dict[str, Any], query: str, qvec: np.ndarray, fetch: int, mode: Mode
    ) -> Candidates | None:
        """Dense and sparse top-`fetch` with both scores of every candidate (one statement); None when the
        collection's generation is not `meta`'s any more (its language or keywords may have changed)."""
        stop = stopwords_for(cast(Language, meta["language"])) - set(meta["keywords"])
        tokens = [t for t in raw_terms(query) if t not in stop]  # as BM25Index.tokenize
        counts = Counter(tokens)
        terms = sorted(counts)
        params = {
            "cid": meta["id"], "qvec": vector_literal(qvec), "k1": K1, "b": B, "terms": terms,
            "counts": [counts[t] for t in terms], "tsq": " | ".join(_lexeme(t) for t in terms) or None,
            "dense_k": fetch if mode != "bm25" else 0, "sparse_k": fetch if mode != "dense" and terms else 0,
        }  # fmt: skip
        bm25 = self.sparse == "bm25"
        sql = _SEARCH.format(scored=_BM25 if bm25 else _TS_RANK, present=_BM25_PRESENT if bm25 else _TS_PRESENT)
        rows = conn.execute(sql, params).fetchall()
        if rows and rows[0][13] != meta["generation"]:
            return None
        n, df = (int(rows[0][14]), {t: int(v) for t, v in rows[0][15].items()}) if rows else (0, {})
        dense = sorted(((int(r[0]), float(r[9])) for r in rows if r[11]), key=lambda h: (-round(h[1], 6), h[0]))
        # the SQL kept every chunk tied with the last one; ties break by ord here, as bm25s' by row
        ranked = sorted(((int(r[0]), float(r[10])) for r in rows if r[12] and r[10] > 0), key=lambda h: (-h[1], h[0]))
        sparse = ranked[:fetch]
        kept = {row for row, _ in dense} | {row for row, _ in sparse}
        rows = [r for r in rows if int(r[0]) in kept]  # tied rows past the cut are no candidates
        query_terms = sorted(set(tokens))
        return Candidates(
            dense=dense,
            sparse=sparse,
            cosine={int(r[0]): float(r[9]) for r in rows},
            keyword_score={int(r[0]): float(r[10]) for r in rows},
            chunks={int(r[0]): _chunk(r) for r in rows},
            doc_terms={int(r[0]): list(r[8]) for r in rows},  # the query terms it holds: all coverage needs
            query_terms=query_terms,
            # tools/retrieval/bm25.py's idf (log1p), as the FAISS path's gate uses; BM25 itself used bm25s' (SQL ln)
            idf={t: float(np.log1p((n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))) for t in query_terms},
        )

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
            conn.close()  # an error mid-statement: the connection's state is unknown
            raise
        with self._lock:
            self._idle.append(conn)


def _lexeme(term: str) -> str:
    """A tsquery operand matching `term` literally."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _chunk(row: Sequence[Any]) -> Chunk:
    """A `Chunk` from the leading `_CHUNK_COLUMNS` of a row."""
    return Chunk(str(row[1]), str(row[2]), str(row[3]), str(row[4]), str(row[5]), int(row[6]), dict(row[7] or {}))

"""The PostgreSQL retrieval store: connection, tables, errors, collection names.

A `vector_store=postgresql://…` setting keeps chunks in one database, which may be the one the
PostgreSQL checkpointer uses (its tables are `checkpoint*`; ours are `anchorgate_*`):

* `anchorgate_meta` — the schema version; tables of another version are refused, never altered;
* `anchorgate_collections` — one row per indexed corpus: embedding model id and dimension, chunking
  and chunker fingerprint, corpus hash, and the BM25 statistics (chunk count, mean length,
  language, keywords) the sparse search needs;
* `anchorgate_documents` — (collection, document id, content hash): what an update compares;
* `anchorgate_chunks` — text, metadata, `embedding vector` (pgvector; stored inline, `STORAGE MAIN`,
  so an exact scan reads no TOAST) and `tsv tsvector` (the BM25 terms with positions, GIN-indexed:
  PostgreSQL's full-text search, for `ts_rank`); `rid` never changes, `ord` is the corpus position;
* `anchorgate_postings` — the inverted index BM25 is computed from: (term, chunk rid, term frequency,
  chunk length); a query reads only its terms' rows;
* `anchorgate_terms` — document frequency of each term per collection.

Every failure is one `error:` line: an unreachable server, a wrong password or a missing pgvector
extension is a `VectorStoreError` (exit 69); tables of another version, a collection made with
another embedding model, or one that does not exist is a `VectorStoreDataError` (exit 65).
Passwords never appear in messages (`server_of`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from anchorgate.tools.errors import EX_DATAERR, EX_UNAVAILABLE, AnchorgateError

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SCHEMA_VERSION = 1
_SCHEMA_LOCK = 0x616E63686F72  # "anchor": serialises concurrent first-time set-ups of one database
_DDL = """
CREATE TABLE IF NOT EXISTS anchorgate_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS anchorgate_collections (
    id serial PRIMARY KEY, name text UNIQUE NOT NULL, embedding_id text NOT NULL, dimension int NOT NULL,
    chunking jsonb NOT NULL, chunker_fingerprint text NOT NULL, corpus_sha256 text NOT NULL DEFAULT '',
    language text NOT NULL DEFAULT 'en', keywords text[] NOT NULL DEFAULT '{}', n_chunks int NOT NULL DEFAULT 0,
    avgdl float8 NOT NULL DEFAULT 0, generation int NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS anchorgate_documents (
    collection int NOT NULL REFERENCES anchorgate_collections (id) ON DELETE CASCADE,
    doc_id text NOT NULL, sha256 text NOT NULL, PRIMARY KEY (collection, doc_id));
CREATE TABLE IF NOT EXISTS anchorgate_chunks (
    collection int NOT NULL REFERENCES anchorgate_collections (id) ON DELETE CASCADE,
    id text NOT NULL, rid bigint GENERATED ALWAYS AS IDENTITY UNIQUE, ord int NOT NULL, doc_id text NOT NULL,
    title text NOT NULL, content text NOT NULL, source text NOT NULL, pos int NOT NULL, metadata jsonb NOT NULL,
    content_key text NOT NULL, embedding vector NOT NULL, len int NOT NULL, tsv tsvector NOT NULL,
    PRIMARY KEY (collection, id));
ALTER TABLE anchorgate_chunks ALTER COLUMN embedding SET STORAGE MAIN;
CREATE INDEX IF NOT EXISTS anchorgate_chunks_ord ON anchorgate_chunks (collection, ord);
CREATE INDEX IF NOT EXISTS anchorgate_chunks_doc ON anchorgate_chunks (collection, doc_id);
CREATE INDEX IF NOT EXISTS anchorgate_chunks_key ON anchorgate_chunks (collection, content_key);
CREATE INDEX IF NOT EXISTS anchorgate_chunks_tsv ON anchorgate_chunks USING gin (tsv);
CREATE TABLE IF NOT EXISTS anchorgate_postings (
    collection int NOT NULL, term text NOT NULL, rid bigint NOT NULL, tf int NOT NULL, len int NOT NULL,
    PRIMARY KEY (collection, term, rid));
CREATE INDEX IF NOT EXISTS anchorgate_postings_rid ON anchorgate_postings (rid);
CREATE TABLE IF NOT EXISTS anchorgate_terms (
    collection int NOT NULL REFERENCES anchorgate_collections (id) ON DELETE CASCADE,
    term text NOT NULL, df int NOT NULL, PRIMARY KEY (collection, term));
"""


class VectorStoreError(AnchorgateError):
    """The PostgreSQL vector store cannot be reached, logged into or set up (no pgvector)."""

    exit_code = EX_UNAVAILABLE


class VectorStoreDataError(AnchorgateError):
    """The store holds something this run cannot use: other-version tables, another model's vectors, no collection."""

    exit_code = EX_DATAERR


def is_server_store(value: str) -> bool:
    """True when `value` (a `vector_store` setting) names a PostgreSQL server."""
    return value.strip().lower().startswith(POSTGRES_SCHEMES)


def server_of(url: str) -> str:
    """`host:port/database` of a PostgreSQL URL, without user or password (safe to print)."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname or "localhost", parts.port
    except ValueError:
        return "<unparsable URL>"
    return f"{host}:{port or 5432}{parts.path or '/'}"


def default_collection(identity: str, chunking: dict[str, int]) -> str:
    """`<name>-<hash>`: one collection per corpus identity (`pydoc`, a resolved path) and chunking."""
    material = json.dumps([SCHEMA_VERSION, identity, chunking], sort_keys=True)
    label = "passages" if identity.startswith("content:") else Path(identity).name or identity
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._-")[:40] or "corpus"
    return f"{slug}-{hashlib.sha256(material.encode()).hexdigest()[:12]}"


def connect(url: str) -> Any:
    """A psycopg connection in autocommit mode (writes use `conn.transaction()` blocks); any failure to
    connect is a one-line `VectorStoreError`."""
    try:
        import psycopg
    except ImportError as exc:
        raise VectorStoreError(
            "vector_store is a PostgreSQL URL but psycopg is not installed", "pip install -e '.[postgres]'"
        ) from exc
    try:
        return psycopg.connect(url.strip(), connect_timeout=10, autocommit=True)
    except psycopg.Error as exc:
        raise unreachable(url, exc) from exc


def unreachable(url: str, exc: BaseException) -> VectorStoreError:
    """The error for a server that refused us: where (never the password), what it said, what to do."""
    import psycopg

    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        hint = "grant the vector_store user the rights to create and write tables in that database"
    elif isinstance(exc, psycopg.OperationalError):
        hint = "check that the server runs and that the user, password and database in vector_store are right"
    else:
        hint = "the anchorgate_* tables may have been changed by hand; index into another database to check"
    return VectorStoreError(f"cannot use the PostgreSQL vector store at {server_of(url)}: {first_line(exc)}", hint)


def first_line(exc: BaseException) -> str:
    """The first meaningful line of a driver error, whitespace collapsed."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join((lines[0] if lines else type(exc).__name__).split())


def ensure_schema(conn: Any, url: str) -> None:
    """Create the extension and tables on first use; refuse tables of another version (nothing written)."""
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            version = schema_version(conn)
            if version is not None and version != SCHEMA_VERSION:
                raise other_version(url, version)
            if version == SCHEMA_VERSION:
                return
            _create_extension(conn, url)
            conn.execute(_DDL)
            conn.execute("INSERT INTO anchorgate_meta VALUES ('schema_version', %s)", (str(SCHEMA_VERSION),))
    except psycopg.Error as exc:
        raise unreachable(url, exc) from exc


def check_schema(conn: Any, url: str) -> None:
    """For readers: the tables exist and have this code's version (nothing is created)."""
    version = schema_version(conn)
    if version is None:
        raise VectorStoreDataError(
            f"the PostgreSQL vector store at {server_of(url)} has no anchorgate tables yet",
            "index a corpus into it first: anchorgate index PATH --set resources.vector_store=URL",
        )
    if version != SCHEMA_VERSION:
        raise other_version(url, version)


def schema_version(conn: Any) -> int | None:
    """The version in `anchorgate_meta`, None when the table does not exist."""
    if conn.execute("SELECT to_regclass('anchorgate_meta')").fetchone()[0] is None:
        return None
    row = conn.execute("SELECT value FROM anchorgate_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row and str(row[0]).isdigit() else -1


def other_version(url: str, version: int) -> VectorStoreDataError:
    """Tables made by another anchorgate version: refused, never migrated behind the user's back."""
    return VectorStoreDataError(
        f"the anchorgate tables at {server_of(url)} have schema version {version}; this anchorgate uses "
        f"{SCHEMA_VERSION}",
        "use another database, or drop the anchorgate_* tables there and index again",
    )


def _create_extension(conn: Any, url: str) -> None:
    """pgvector, created if the server has it and we may; otherwise say which and what to do."""
    import psycopg

    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return
    available = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if not available:
        raise VectorStoreError(
            f"the PostgreSQL server at {server_of(url)} has no pgvector extension",
            "install pgvector (0.5 or later) on the server, e.g. the postgresql-NN-pgvector package",
        )
    try:
        with conn.transaction():  # a savepoint: the outer transaction stays usable for the error
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege as exc:
        raise VectorStoreError(
            f"the PostgreSQL user may not create the pgvector extension at {server_of(url)}: {first_line(exc)}",
            "ask the database owner to run CREATE EXTENSION vector; in that database",
        ) from exc


def vector_literal(vector: Iterable[float]) -> str:
    """pgvector's text form; repr keeps every float32 exactly (the server parses it back bit for bit)."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def parse_vector(text: str) -> list[float]:
    """A pgvector value in text form as floats."""
    return [float(x) for x in text.strip("[]").split(",")] if text.strip("[]") else []

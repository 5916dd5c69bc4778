"""One index generation on disk and its checks: FAISS native file, SQLite docstore, BM25 tokens, manifest.

No pickle anywhere: vectors go through `faiss.write_index`/`read_index`, chunks and documents into
SQLite, BM25 tokens and the manifest into JSON. `load_index` trusts nothing: the manifest's
checksums, every field (format version, dimension, counts, embedding model and chunker
fingerprints) and the id sets of FAISS, docstore and BM25 are compared before an index is used; a
mismatch is an `IndexCorruptError` naming the field and the remedy, never a crash or wrong results.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn

import faiss
import numpy as np

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.errors import IndexCorruptError
from anchorgate.tools.retrieval.bm25 import BM25Index, Language, read_payload, save_tokens

# Bump whenever the same inputs would give other chunks, vectors or files (chunking, chunk titles,
# `embedding_text`, this layout): slot names hold it, so an index built by older code is never read.
# 4: slots with published generations, BM25 tokens and a documents table, incremental builds.
FORMAT_VERSION = 4
FAISS_FILE, DOCSTORE_FILE, BM25_FILE, MANIFEST_FILE = "vectors.faiss", "docstore.sqlite", "bm25.json", "manifest.json"
DATA_FILES = (FAISS_FILE, DOCSTORE_FILE, BM25_FILE)
_INT_FIELDS = ("format_version", "passages", "chunks", "dimension", "embedded", "reused")
_STR_FIELDS = ("corpus_sha256", "embedding_id", "chunker_fingerprint", "source")


@dataclass(frozen=True)
class Expected:
    """What the caller's code and model make; a manifest saying otherwise was not built for them."""

    embedding_id: str
    chunking: dict[str, int]
    chunker_fingerprint: str


@dataclass
class DenseIndex:
    """FAISS inner-product index over normalised vectors plus the chunk docstore."""

    path: Path
    vectors: Any  # faiss.Index
    chunks: list[Chunk]
    manifest: dict[str, Any]
    content_keys: list[str] = field(default_factory=list)
    """sha256 of each chunk's embedded text, by row: what an incremental build reuses vectors by."""
    documents: list[tuple[str, str]] = field(default_factory=list)
    """(document id, content sha256) of every passage indexed, in corpus order."""
    fresh: bool = False
    """True when this call built the index (False when it was loaded as it was)."""
    choice: str = ""
    """How its embedding model was chosen, for `anchorgate index` (languages → model; tools/services)."""

    def search(self, query_vector: Sequence[float] | np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row, cosine) of the k nearest chunks; ties broken by row for determinism."""
        k = min(k, len(self.chunks))
        if k <= 0:
            return []
        query = np.asarray([query_vector], dtype="float32")
        scores, rows = self.vectors.search(query, k)
        hits = [(int(r), float(s)) for r, s in zip(rows[0], scores[0], strict=True) if r >= 0]
        return sorted(hits, key=lambda hit: (-round(hit[1], 6), hit[0]))

    def vector(self, row: int) -> np.ndarray:
        """The stored vector of chunk `row` (for MMR and novelty)."""
        return np.asarray(self.vectors.reconstruct(row), dtype="float32")

    @cached_property
    def bm25(self) -> BM25Index:
        """The persisted BM25 index over the same chunks (title + text), row for row."""
        return BM25Index.load(self.path / BM25_FILE)


def write_generation(
    folder: Path,
    chunks: Sequence[Chunk],
    content_keys: Sequence[str],
    vectors: np.ndarray,
    documents: Sequence[tuple[str, str]],
    bm25: tuple[Language, list[list[str]]],
    manifest: dict[str, Any],
) -> dict[str, Any]:
    """Write every file of one generation into `folder` (fsynced; manifest last) and return the manifest."""
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    faiss.write_index(index, str(folder / FAISS_FILE))
    _write_docstore(folder / DOCSTORE_FILE, chunks, content_keys, documents)
    save_tokens(folder / BM25_FILE, bm25[0], bm25[1], [c.id for c in chunks])
    full = {
        **manifest,
        "format_version": FORMAT_VERSION,
        "passages": len(documents),
        "chunks": len(chunks),
        "dimension": int(vectors.shape[1]),
        "files": {name: file_sha256(folder / name) for name in DATA_FILES},
    }
    (folder / MANIFEST_FILE).write_text(json.dumps(full, indent=2, sort_keys=True), encoding="utf-8")
    for name in (*DATA_FILES, MANIFEST_FILE):
        fsync_path(folder / name)
    fsync_path(folder)
    return full


def _write_docstore(
    path: Path, chunks: Sequence[Chunk], keys: Sequence[str], documents: Sequence[tuple[str, str]]
) -> None:
    db = sqlite3.connect(path)
    try:
        with db:  # commits
            db.execute(
                "CREATE TABLE chunks (row INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, doc_id TEXT NOT NULL,"
                " title TEXT, text TEXT NOT NULL, source TEXT, position INTEGER, metadata TEXT,"
                " content_sha TEXT NOT NULL)"
            )
            db.execute("CREATE TABLE documents (row INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, sha256 TEXT NOT NULL)")
            db.executemany(
                "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (row, c.id, c.doc_id, c.title, c.text, c.source, c.position, json.dumps(c.metadata), key)
                    for row, (c, key) in enumerate(zip(chunks, keys, strict=True))
                ],
            )
            db.executemany("INSERT INTO documents VALUES (?, ?, ?)", [(r, *d) for r, d in enumerate(documents)])
    finally:
        db.close()


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def fsync_path(path: Path) -> None:
    """Flush a file or folder to disk, so a rename never publishes data still in the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load_index(path: Path, expected: Expected | None = None, remedy: str = "") -> DenseIndex:
    """Open a persisted generation after checking its files and every manifest field.

    `remedy` is the hint of every error (how to rebuild); by default the manifest's own source.
    """
    # One OpenMP thread for single-query search: on 2 shared cores two threads measured 16 ms vs
    # 0.4 ms, and a fixed thread count keeps near-tie order identical from run to run.
    faiss.omp_set_num_threads(1)
    try:
        manifest = json.loads((path / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        hint = remedy or _default_remedy(path)
        raise IndexCorruptError(f"index at {path} cannot be read: manifest: {exc}", hint) from exc
    remedy = remedy or _default_remedy(path, manifest)
    check_manifest(manifest, path, expected, remedy)
    try:
        for name in DATA_FILES:
            if file_sha256(path / name) != manifest["files"].get(name):
                raise IndexCorruptError(f"index file {path / name} is corrupted (checksum mismatch)", remedy)
        vectors = faiss.read_index(str(path / FAISS_FILE))
        chunks, keys, documents = _read_docstore(path / DOCSTORE_FILE)
        bm25_ids = read_payload(path / BM25_FILE).get("ids")
    except IndexCorruptError:
        raise
    except (OSError, KeyError, TypeError, ValueError, RuntimeError, sqlite3.Error) as exc:
        raise IndexCorruptError(f"index at {path} cannot be read: {exc}", remedy) from exc
    check_contents(manifest, path, vectors, [c.id for c in chunks], len(documents), bm25_ids, remedy)
    return DenseIndex(path, vectors, chunks, manifest, keys, documents)


def _default_remedy(path: Path, manifest: Any = None) -> str:
    source = manifest.get("source") if isinstance(manifest, dict) else None
    if isinstance(source, str) and source:
        return f"run `anchorgate index {source}` to rebuild it"
    return f"delete {path.parent} and run again to rebuild it"


def check_manifest(manifest: Any, path: Path, expected: Expected | None, remedy: str) -> None:
    """Every field present with its type, the format this code reads, and the caller's model and chunker."""

    def fail(detail: str) -> NoReturn:
        raise IndexCorruptError(f"index at {path} does not match its manifest: {detail}", remedy)

    if not isinstance(manifest, dict):
        fail("the manifest is not a JSON object")
    for name in _INT_FIELDS:
        if type(manifest.get(name)) is not int or manifest[name] < 0:
            fail(f"field '{name}' is missing or not a non-negative integer")
    for name in _STR_FIELDS:
        if not isinstance(manifest.get(name), str):
            fail(f"field '{name}' is missing or not a string")
    if not isinstance(manifest.get("files"), dict) or not isinstance(manifest.get("chunking"), dict):
        fail("field 'files' or 'chunking' is missing or not an object")
    if manifest["format_version"] != FORMAT_VERSION:
        fail(f"'format_version' is {manifest['format_version']}, this anchorgate reads {FORMAT_VERSION}")
    if manifest["embedded"] + manifest["reused"] != manifest["chunks"]:
        total = manifest["embedded"] + manifest["reused"]
        fail(f"'embedded' + 'reused' = {total} but 'chunks' is {manifest['chunks']}")
    if expected is None:
        return
    if manifest["embedding_id"] != expected.embedding_id:
        fail(
            f"'embedding_id' is {manifest['embedding_id']!r} but the embedding model's fingerprint is"
            f" {expected.embedding_id!r}"
        )
    if manifest["chunking"] != expected.chunking:
        fail(f"'chunking' is {manifest['chunking']} but the settings are {expected.chunking}")
    if manifest["chunker_fingerprint"] != expected.chunker_fingerprint:
        fail(
            f"'chunker_fingerprint' is {manifest['chunker_fingerprint']!r} but this chunker's is"
            f" {expected.chunker_fingerprint!r}"
        )


def check_contents(
    manifest: dict[str, Any],
    path: Path,
    vectors: Any,
    chunk_ids: list[str],
    documents: int,
    bm25_ids: Any,
    remedy: str,
) -> None:
    """The manifest's dimension and counts against the FAISS index, the docstore and BM25, and their id sets."""

    def fail(detail: str) -> NoReturn:
        raise IndexCorruptError(f"index at {path} does not match its manifest: {detail}", remedy)

    if vectors.d != manifest["dimension"]:
        fail(f"'dimension' is {manifest['dimension']} but the FAISS index has d={vectors.d}")
    if vectors.metric_type != faiss.METRIC_INNER_PRODUCT:
        fail("the FAISS index does not use inner product (cosine over normalised vectors)")
    if vectors.ntotal != manifest["chunks"]:
        fail(f"'chunks' is {manifest['chunks']} but the FAISS index holds {vectors.ntotal} vectors")
    if len(chunk_ids) != manifest["chunks"]:
        fail(f"'chunks' is {manifest['chunks']} but the docstore holds {len(chunk_ids)} chunks")
    if documents != manifest["passages"]:
        fail(f"'passages' is {manifest['passages']} but the docstore lists {documents} documents")
    if not isinstance(bm25_ids, list) or len(bm25_ids) != manifest["chunks"]:
        size = len(bm25_ids) if isinstance(bm25_ids, list) else "no"
        fail(f"'chunks' is {manifest['chunks']} but the BM25 index holds {size} chunk ids")
    if bm25_ids != chunk_ids:
        row = next(i for i, (a, b) in enumerate(zip(bm25_ids, chunk_ids, strict=True)) if a != b)
        fail(f"the BM25 chunk ids differ from the FAISS/docstore ids (first at row {row})")


def _read_docstore(path: Path) -> tuple[list[Chunk], list[str], list[tuple[str, str]]]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT row, id, doc_id, title, text, source, position, metadata, content_sha FROM chunks ORDER BY row"
        ).fetchall()
        documents = db.execute("SELECT doc_id, sha256 FROM documents ORDER BY row").fetchall()
    finally:
        db.close()
    if [row[0] for row in rows] != list(range(len(rows))):
        raise ValueError("docstore rows are not contiguous")
    chunks = [Chunk(r[1], r[2], r[3], r[4], r[5], r[6], json.loads(r[7])) for r in rows]
    return chunks, [r[8] for r in rows], [(str(d), str(s)) for d, s in documents]

"""A persisted dense index: FAISS native file + SQLite docstore + JSON manifest. No pickle.

The cache folder name is a hash of (corpus content with titles, embedding model weights, chunking
settings, format version, chunker fingerprint), so a second run with the same inputs loads in
seconds, a changed corpus gets a new index, the same content is never indexed twice, and an index
built by code that chunked or titled differently is never reused. Builds happen in a temporary
folder that is renamed into place only when complete: a killed build leaves no half-written index.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from langchain_core.embeddings import Embeddings
from tqdm import tqdm

from anchorgate.tools.chunking import ChunkingSettings, chunk_passages
from anchorgate.tools.documents import Chunk, Passage
from anchorgate.tools.errors import CorpusError, IndexCorruptError, IndexWriteError

# Part of every cache key. Bump it whenever the same inputs would give other chunks or vectors
# (chunking, chunk titles, `embedding_text`), so an index built by older code is never reused.
# The key also holds `chunker_fingerprint`, which catches a chunking change nobody bumped for.
# 3: documents are cut at their section headings, chunk titles carry the section path.
FORMAT_VERSION = 3
FAISS_FILE, DOCSTORE_FILE, MANIFEST_FILE = "vectors.faiss", "docstore.sqlite", "manifest.json"
EMBED_BATCH = 64


def corpus_fingerprint(passages: Sequence[Passage]) -> str:
    """Content hash of a corpus: ids, titles and texts in order."""
    digest = hashlib.sha256()
    for passage in passages:
        for part in (passage.id, passage.title, passage.text):
            digest.update(part.encode("utf-8", errors="surrogatepass"))
            digest.update(b"\x1f")
    return digest.hexdigest()


# A small document with what the chunker treats specially: headings of three kinds and levels,
# quoted markup, paragraphs, lines and a sentence longer than any chunk.
_PROBE = Passage(
    "probe",
    'The "probe" document',
    'The "probe" document\n********************\n\nIntro paragraph.\n\nSection one\n===========\n\n'
    + "A sentence that goes on. " * 60
    + "\n\nSub\n---\n\nline one\nline two\n\n# Markdown heading\n\n```\n# code\n```\n\nEnd.",
)


@lru_cache(maxsize=32)
def chunker_fingerprint(settings: ChunkingSettings) -> str:
    """Hash of what this code makes of `_PROBE` (chunks, titles, embedded text) with `settings`."""
    chunks = chunk_passages([_PROBE], settings)
    material = json.dumps([[c.id, c.title, c.text, embedding_text(c)] for c in chunks], ensure_ascii=False)
    return hashlib.sha256(material.encode()).hexdigest()[:16]


def index_key(corpus_hash: str, embedding_id: str, settings: ChunkingSettings) -> str:
    """The cache key of an index built from these inputs (and this version of the chunking code)."""
    material = json.dumps(
        [FORMAT_VERSION, corpus_hash, embedding_id, asdict(settings), chunker_fingerprint(settings)], sort_keys=True
    )
    return hashlib.sha256(material.encode()).hexdigest()[:24]


def embedding_text(chunk: Chunk) -> str:
    """What is embedded (and BM25-indexed, tools/hybrid.py) for a chunk: title, then text. The title
    names the document and the section ("Special method names › With Statement Context Managers")."""
    return f"{chunk.title}\n{chunk.text}" if chunk.title else chunk.text


@dataclass
class DenseIndex:
    """FAISS inner-product index over normalised vectors plus the chunk docstore."""

    path: Path
    vectors: Any  # faiss.Index
    chunks: list[Chunk]
    manifest: dict[str, Any]

    def search(self, query_vector: Sequence[float], k: int) -> list[tuple[int, float]]:
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


def build_or_load(
    passages: Sequence[Passage],
    embeddings: Embeddings,
    embedding_id: str,
    settings: ChunkingSettings,
    root: Path,
    *,
    progress: bool = True,
) -> DenseIndex:
    """Load the index for these inputs from `root`, building it first when it is not there."""
    if not passages:
        raise CorpusError("cannot index an empty corpus")
    corpus_hash = corpus_fingerprint(passages)
    key = index_key(corpus_hash, embedding_id, settings)
    target = root / key
    if not (target / MANIFEST_FILE).is_file():
        _build(passages, embeddings, embedding_id, settings, corpus_hash, target, progress)
    return load_index(target)


def _build(
    passages: Sequence[Passage],
    embeddings: Embeddings,
    embedding_id: str,
    settings: ChunkingSettings,
    corpus_hash: str,
    target: Path,
    progress: bool,
) -> None:
    started = time.perf_counter()
    chunks = chunk_passages(passages, settings)
    vectors = _embed_all(chunks, embeddings, progress)
    temp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    try:
        temp.mkdir(parents=True, exist_ok=False)
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        faiss.write_index(index, str(temp / FAISS_FILE))
        _write_docstore(temp / DOCSTORE_FILE, chunks)
        manifest = {
            "format_version": FORMAT_VERSION,
            "corpus_sha256": corpus_hash,
            "embedding_id": embedding_id,
            "chunking": asdict(settings),
            "passages": len(passages),
            "chunks": len(chunks),
            "dimension": int(vectors.shape[1]),
            "files": {name: _file_sha256(temp / name) for name in (FAISS_FILE, DOCSTORE_FILE)},
            "build_seconds": round(time.perf_counter() - started, 3),
        }
        (temp / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        try:
            temp.rename(target)
        except OSError:
            if not (target / MANIFEST_FILE).is_file():  # not a concurrent twin build: a real failure
                raise
    except OSError as exc:
        raise IndexWriteError(f"cannot write index to {target.parent}: {exc}", "check the cache_dir") from exc
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _embed_all(chunks: Sequence[Chunk], embeddings: Embeddings, progress: bool) -> np.ndarray:
    texts = [embedding_text(chunk) for chunk in chunks]
    rows: list[list[float]] = []
    bar = tqdm(total=len(texts), desc="indexing", unit="chunk", disable=not progress, file=sys.stderr)
    with _all_cores():
        for start in range(0, len(texts), EMBED_BATCH):
            rows.extend(embeddings.embed_documents(texts[start : start + EMBED_BATCH]))
            bar.update(min(EMBED_BATCH, len(texts) - start))
    bar.close()
    return np.ascontiguousarray(np.asarray(rows, dtype="float32"))


@contextmanager
def _all_cores() -> Iterator[None]:
    """Batch embedding uses every core (queries run single-threaded; see tools/embeddings.py)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _write_docstore(path: Path, chunks: Sequence[Chunk]) -> None:
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE chunks (row INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, doc_id TEXT NOT NULL,"
            " title TEXT, text TEXT NOT NULL, source TEXT, position INTEGER, metadata TEXT)"
        )
        db.executemany(
            "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (row, c.id, c.doc_id, c.title, c.text, c.source, c.position, json.dumps(c.metadata))
                for row, c in enumerate(chunks)
            ],
        )
    # sqlite3's context manager commits but does not close.
    sqlite3.connect(path).close()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def load_index(path: Path) -> DenseIndex:
    """Open a persisted index, checking its files against the manifest first."""
    # One OpenMP thread for single-query search: on 2 shared cores two threads measured 16 ms vs
    # 0.4 ms, and a fixed thread count keeps near-tie order identical from run to run.
    faiss.omp_set_num_threads(1)
    hint = f"delete the folder and run again to rebuild it: rm -r {path}"
    try:
        manifest = json.loads((path / MANIFEST_FILE).read_text(encoding="utf-8"))
        for name, expected in manifest["files"].items():
            if _file_sha256(path / name) != expected:
                raise IndexCorruptError(f"index file {path / name} is corrupted (checksum mismatch)", hint)
        vectors = faiss.read_index(str(path / FAISS_FILE))
        chunks = _read_docstore(path / DOCSTORE_FILE)
    except IndexCorruptError:
        raise
    except (OSError, KeyError, ValueError, RuntimeError, sqlite3.Error) as exc:
        raise IndexCorruptError(f"index at {path} cannot be read: {exc}", hint) from exc
    if vectors.ntotal != len(chunks) or len(chunks) != manifest["chunks"]:
        raise IndexCorruptError(f"index at {path} is inconsistent (vectors != chunks)", hint)
    return DenseIndex(path, vectors, chunks, manifest)


def _read_docstore(path: Path) -> list[Chunk]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT row, id, doc_id, title, text, source, position, metadata FROM chunks ORDER BY row"
        ).fetchall()
    finally:
        db.close()
    if [row[0] for row in rows] != list(range(len(rows))):
        raise ValueError("docstore rows are not contiguous")
    return [Chunk(r[1], r[2], r[3], r[4], r[5], r[6], json.loads(r[7])) for r in rows]

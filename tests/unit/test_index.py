from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.errors import CorpusError, IndexCorruptError
from anchorgate.tools.index import build as index_module
from anchorgate.tools.index import store as index_store
from anchorgate.tools.index.build import build_or_load, embedding_text, load_index
from anchorgate.tools.index.slots import TEMP_PREFIX
from anchorgate.tools.retrieval.bm25 import BM25Index
from tests.fakes import BagOfWordsEmbeddings

PASSAGES = [
    Passage("owls", "Owls", "Owls are nocturnal birds of prey that hunt mice at night."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis."),
    Passage("rust", "Rust", "Rust is a systems programming language focused on memory safety."),
]
SETTINGS = ChunkingSettings(chunk_tokens=32, overlap_tokens=4)


def _build(root: Path, passages: list[Passage] = PASSAGES) -> index_module.DenseIndex:
    return build_or_load(passages, BagOfWordsEmbeddings(), "bow-64", SETTINGS, root, progress=False)


def _generations(root: Path) -> list[Path]:
    return sorted(p for slot in root.iterdir() for p in slot.iterdir() if p.is_dir())


def test_round_trip_and_search(tmp_path: Path) -> None:
    built = _build(tmp_path)
    loaded = load_index(built.path)
    assert loaded.chunks == built.chunks and loaded.vectors.ntotal == len(PASSAGES)
    query = BagOfWordsEmbeddings().embed_query("which birds hunt mice at night")
    row, score = loaded.search(query, 2)[0]
    assert loaded.chunks[row].doc_id == "owls" and score > 0.3
    assert built.fresh and not loaded.fresh
    assert built.manifest["embedded"] == 3 and built.manifest["reused"] == 0
    assert not [p for p in built.path.parent.iterdir() if p.name.startswith(TEMP_PREFIX)]


def test_second_run_loads_instead_of_rebuilding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _build(tmp_path)

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("an index that is current must be loaded, not rebuilt")

    monkeypatch.setattr(index_module, "_build", no_build)
    second = _build(tmp_path)
    assert second.path == first.path and not second.fresh and len(list(tmp_path.iterdir())) == 1


def test_changed_corpus_gets_a_new_index_and_same_content_no_duplicates(tmp_path: Path) -> None:
    # In-memory corpora (no source path) get a slot per content: each stays cached.
    first = _build(tmp_path)
    changed = [*PASSAGES[:2], Passage("rust", "Rust", "Rust is a reddish oxide of iron.")]
    second = _build(tmp_path, changed)
    assert second.path != first.path and first.path.is_dir()
    again = _build(tmp_path, list(PASSAGES))
    assert again.path == first.path and len(again.chunks) == len(first.chunks)
    assert len({c.id for c in again.chunks}) == len(again.chunks)


def test_corrupted_files_are_detected(tmp_path: Path) -> None:
    built = _build(tmp_path)
    vectors = built.path / index_module.FAISS_FILE
    data = bytearray(vectors.read_bytes())
    data[-5] ^= 0xFF
    vectors.write_bytes(bytes(data))
    with pytest.raises(IndexCorruptError, match="corrupted") as info:
        load_index(built.path)
    assert "delete" in info.value.hint and str(built.path.parent) in info.value.hint
    with pytest.raises(IndexCorruptError, match="corrupted"):
        _build(tmp_path)  # through build_or_load too: never a silent wrong index
    (built.path / index_module.MANIFEST_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexCorruptError, match="cannot be read"):
        load_index(built.path)


def test_failed_build_leaves_nothing_behind(tmp_path: Path) -> None:
    class Exploding(BagOfWordsEmbeddings):
        def embed_documents(self, texts):  # type: ignore[no-untyped-def,override]
            raise RuntimeError("killed mid-build")

    with pytest.raises(RuntimeError):
        build_or_load(PASSAGES, Exploding(), "bow-64", SETTINGS, tmp_path, progress=False)
    assert _generations(tmp_path) == []


def test_empty_corpus_and_empty_texts_are_errors(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="empty corpus"):
        _build(tmp_path, [])
    with pytest.raises(CorpusError, match="no text to index"):
        _build(tmp_path, [Passage("blank", "", "   \n ")])
    assert _generations(tmp_path) == []


def test_changed_titles_or_chunking_code_never_reuse_an_old_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _build(tmp_path)
    # A new title (pydoc topics now titled by their heading) is a new corpus: a new index.
    retitled = [Passage(p.id, f"{p.title} heading", p.text) for p in PASSAGES]
    assert _build(tmp_path, retitled).path != first.path
    # Chunking code that makes other chunks from the same corpus gets another slot too, even when
    # nobody bumped FORMAT_VERSION: the slot name holds a fingerprint of the chunker's output.
    original = index_module.chunk_passages

    def other_titles(passages, settings):  # type: ignore[no-untyped-def]
        return [replace(c, title=c.title.upper()) for c in original(passages, settings)]

    monkeypatch.setattr(index_module, "chunk_passages", other_titles)
    index_module.chunker_fingerprint.cache_clear()
    try:
        changed = _build(tmp_path)
        assert changed.path.parent != first.path.parent and {c.title for c in changed.chunks} == {"OWLS", "TEA", "RUST"}
        assert changed.manifest["reused"] == 0
    finally:
        monkeypatch.undo()
        index_module.chunker_fingerprint.cache_clear()
    assert _build(tmp_path).path == first.path  # the unchanged code finds its own index again
    monkeypatch.setattr(index_store, "FORMAT_VERSION", index_store.FORMAT_VERSION + 1)
    assert _build(tmp_path).path.parent != first.path.parent


def test_embedded_text_carries_the_title() -> None:
    chunk = Chunk("d#0:x", "d", "Special method names › With Statement Context Managers", "object.__enter__(self)")
    assert index_module.embedding_text(chunk) == (
        "Special method names › With Statement Context Managers\nobject.__enter__(self)"
    )
    assert index_module.embedding_text(replace(chunk, title="")) == "object.__enter__(self)"


def test_persisted_bm25_is_what_hybrid_builds_row_for_row(tmp_path: Path) -> None:
    built = _build(tmp_path)
    persisted = json.loads((built.path / index_store.BM25_FILE).read_text(encoding="utf-8"))
    assert persisted["ids"] == [c.id for c in built.chunks]  # plain JSON, no pickle
    fresh = BM25Index.build([embedding_text(c) for c in built.chunks], language="auto")
    assert built.bm25.corpus_tokens == fresh.corpus_tokens and built.bm25.language == fresh.language
    assert built.bm25.search("mice at night", 1) == fresh.search("mice at night", 1)

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from anchorgate.tools import index as index_module
from anchorgate.tools.chunking import ChunkingSettings
from anchorgate.tools.documents import Chunk, Passage
from anchorgate.tools.errors import IndexCorruptError
from anchorgate.tools.index import build_or_load, load_index
from tests.fakes import BagOfWordsEmbeddings

PASSAGES = [
    Passage("owls", "Owls", "Owls are nocturnal birds of prey that hunt mice at night."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis."),
    Passage("rust", "Rust", "Rust is a systems programming language focused on memory safety."),
]
SETTINGS = ChunkingSettings(chunk_tokens=32, overlap_tokens=4)


def _build(root: Path, passages: list[Passage] = PASSAGES) -> index_module.DenseIndex:
    return build_or_load(passages, BagOfWordsEmbeddings(), "bow-64", SETTINGS, root, progress=False)


def test_round_trip_and_search(tmp_path: Path) -> None:
    built = _build(tmp_path)
    loaded = load_index(built.path)
    assert loaded.chunks == built.chunks and loaded.vectors.ntotal == len(PASSAGES)
    query = BagOfWordsEmbeddings().embed_query("which birds hunt mice at night")
    row, score = loaded.search(query, 2)[0]
    assert loaded.chunks[row].doc_id == "owls" and score > 0.3
    assert not list(tmp_path.glob("*.tmp-*")), "no temporary folder may remain"


def test_second_run_loads_instead_of_rebuilding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _build(tmp_path)
    calls: list[int] = []
    monkeypatch.setattr(index_module, "_build", lambda *a, **k: calls.append(1))
    second = _build(tmp_path)
    assert calls == [] and second.path == first.path and len(list(tmp_path.iterdir())) == 1


def test_changed_corpus_gets_a_new_index_and_same_content_no_duplicates(tmp_path: Path) -> None:
    first = _build(tmp_path)
    changed = [*PASSAGES[:2], Passage("rust", "Rust", "Rust is a reddish oxide of iron.")]
    second = _build(tmp_path, changed)
    assert second.path != first.path
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
    assert "rm -r" in info.value.hint
    (built.path / index_module.MANIFEST_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexCorruptError, match="cannot be read"):
        load_index(built.path)


def test_failed_build_leaves_nothing_behind(tmp_path: Path) -> None:
    class Exploding(BagOfWordsEmbeddings):
        def embed_documents(self, texts):  # type: ignore[no-untyped-def,override]
            raise RuntimeError("killed mid-build")

    with pytest.raises(RuntimeError):
        build_or_load(PASSAGES, Exploding(), "bow-64", SETTINGS, tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_changed_titles_or_chunking_code_never_reuse_an_old_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _build(tmp_path)
    # A new title (pydoc topics now titled by their heading) is a new corpus: a new index.
    retitled = [Passage(p.id, f"{p.title} heading", p.text) for p in PASSAGES]
    assert _build(tmp_path, retitled).path != first.path
    # Chunking code that makes other chunks from the same corpus gets another key too, even when
    # nobody bumped FORMAT_VERSION: the key holds a fingerprint of the chunker's output.
    original = index_module.chunk_passages

    def other_titles(passages, settings):  # type: ignore[no-untyped-def]
        return [replace(c, title=c.title.upper()) for c in original(passages, settings)]

    monkeypatch.setattr(index_module, "chunk_passages", other_titles)
    index_module.chunker_fingerprint.cache_clear()
    try:
        changed = _build(tmp_path)
        assert changed.path != first.path and {c.title for c in changed.chunks} == {"OWLS", "TEA", "RUST"}
    finally:
        monkeypatch.undo()
        index_module.chunker_fingerprint.cache_clear()
    assert _build(tmp_path).path == first.path  # the unchanged code finds its own index again
    monkeypatch.setattr(index_module, "FORMAT_VERSION", index_module.FORMAT_VERSION + 1)
    assert _build(tmp_path).path != first.path


def test_embedded_text_carries_the_title() -> None:
    chunk = Chunk("d#0:x", "d", "Special method names › With Statement Context Managers", "object.__enter__(self)")
    assert index_module.embedding_text(chunk) == (
        "Special method names › With Statement Context Managers\nobject.__enter__(self)"
    )
    assert index_module.embedding_text(replace(chunk, title="")) == "object.__enter__(self)"

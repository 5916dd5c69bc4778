from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.tools import index as index_module
from anchorgate.tools.chunking import ChunkingSettings
from anchorgate.tools.documents import Passage
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

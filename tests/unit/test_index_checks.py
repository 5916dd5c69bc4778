"""Every manifest field and every file of an index is checked on load; `repair` (anchorgate index) rebuilds."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import faiss
import pytest

from anchorgate.tools.errors import IndexCorruptError
from anchorgate.tools.index import store as index_store
from anchorgate.tools.index.build import DenseIndex
from anchorgate.tools.index.slots import CURRENT_FILE
from tests.unit.index_helpers import CountingEmbeddings, generations, index_folder, write_corpus


def _manifest(index: DenseIndex) -> dict[str, Any]:
    return json.loads((index.path / index_store.MANIFEST_FILE).read_text(encoding="utf-8"))


def _save_manifest(index: DenseIndex, manifest: dict[str, Any]) -> None:
    (index.path / index_store.MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")


def _edit(**changes: Any) -> Callable[[DenseIndex], None]:
    def apply(index: DenseIndex) -> None:
        manifest = _manifest(index)
        for key, value in changes.items():
            if value is None:
                del manifest[key]
            else:
                manifest[key] = value(manifest[key]) if callable(value) else value
        _save_manifest(index, manifest)

    return apply


def _rewrite(name: str, change: Callable[[Path, DenseIndex], None]) -> Callable[[DenseIndex], None]:
    """Change a data file and record its new checksum, so only the consistency checks can catch it."""

    def apply(index: DenseIndex) -> None:
        change(index.path / name, index)
        manifest = _manifest(index)
        manifest["files"][name] = index_store.file_sha256(index.path / name)
        _save_manifest(index, manifest)

    return apply


def _bm25_ids(transform: Callable[[list[str]], list[str]]) -> Callable[[Path, DenseIndex], None]:
    def change(path: Path, index: DenseIndex) -> None:
        payload = json.loads(path.read_text(encoding="utf-8"))
        payload["ids"] = transform(payload["ids"])
        path.write_text(json.dumps(payload), encoding="utf-8")

    return change


def _drop_last_chunk(path: Path, index: DenseIndex) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM chunks WHERE row = (SELECT MAX(row) FROM chunks)")
    db.close()


def _fewer_vectors(path: Path, index: DenseIndex) -> None:
    smaller = faiss.IndexFlatIP(index.vectors.d)
    smaller.add(index.vectors.reconstruct_n(0, index.vectors.ntotal - 1))
    faiss.write_index(smaller, str(path))


CASES = {
    "dimension": (_edit(dimension=384), "'dimension' is 384 but the FAISS index has d=64"),
    "chunks": (_edit(chunks=lambda n: n + 1, embedded=lambda n: n + 1), "but the FAISS index holds"),
    "passages": (_edit(passages=lambda n: n + 1), "'passages' is 21 but the docstore lists 20 documents"),
    "format_version": (_edit(format_version=3), "'format_version' is 3, this anchorgate reads"),
    "embedding_id": (_edit(embedding_id="other-model"), "'embedding_id' is 'other-model'"),
    "chunker_fingerprint": (_edit(chunker_fingerprint="0" * 16), "'chunker_fingerprint' is '0000"),
    "chunking": (_edit(chunking={"resources.chunk_tokens": 64, "overlap_tokens": 4}), "'chunking' is"),
    "embedded": (_edit(embedded=lambda n: n - 1), "'embedded' + 'reused'"),
    "missing field": (_edit(corpus_sha256=None), "field 'corpus_sha256' is missing"),
    "wrong type": (_edit(dimension="64"), "field 'dimension' is missing or not a non-negative integer"),
    "checksum": (_edit(files=lambda f: {**f, "docstore.sqlite": "0" * 64}), "corrupted (checksum mismatch)"),
    "bm25 ids": (_rewrite("bm25.json", _bm25_ids(lambda ids: ids[::-1])), "BM25 chunk ids differ"),
    "bm25 size": (_rewrite("bm25.json", _bm25_ids(lambda ids: ids[:-1])), "the BM25 index holds"),
    "docstore size": (_rewrite("docstore.sqlite", _drop_last_chunk), "but the docstore holds"),
    "faiss size": (_rewrite("vectors.faiss", _fewer_vectors), "but the FAISS index holds"),
    "not json": (lambda index: (index.path / "manifest.json").write_text("{", encoding="utf-8"), "cannot be read"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_mismatch_is_an_error_naming_the_field_and_repair_rebuilds(tmp_path: Path, case: str) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    first = index_folder(folder, root)
    damage, message = CASES[case]
    damage(first)
    with pytest.raises(IndexCorruptError, match=re.escape(message)) as info:
        index_folder(folder, root)
    assert info.value.hint == f"run `anchorgate index {folder.resolve()}` to rebuild it"
    assert str(first.path) in info.value.message
    counting = CountingEmbeddings()
    repaired = index_folder(folder, root, counting, repair=True)
    assert repaired.fresh and repaired.manifest["reused"] == 0 and len(counting.texts) == len(repaired.chunks)
    assert str(first.path) in repaired.manifest["repaired"]
    assert generations(first.path.parent) == [repaired.path]  # the invalid generation is gone
    assert not index_folder(folder, root).fresh


def test_a_garbled_or_dangling_current_pointer(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs", count=3), tmp_path / "cache"
    first = index_folder(folder, root)
    pointer = first.path.parent / CURRENT_FILE
    pointer.write_text("../../etc\n", encoding="utf-8")
    with pytest.raises(IndexCorruptError, match="names no index generation") as info:
        index_folder(folder, root)
    assert "anchorgate index" in info.value.hint
    repaired = index_folder(folder, root, repair=True)
    assert repaired.fresh and pointer.read_text().strip() == repaired.path.name
    pointer.write_text("g000042-0123456789ab\n", encoding="utf-8")  # a folder someone deleted: build again
    assert index_folder(folder, root).fresh

"""Incremental builds: only changed chunks are embedded, the result equals a full rebuild, publishing is atomic."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from anchorgate.tools.index import build as index_module
from anchorgate.tools.index.build import build_summary, embedding_text, load_index
from anchorgate.tools.index.slots import CURRENT_FILE, TEMP_PREFIX, Slot
from tests.unit.index_helpers import CountingEmbeddings, document_text, generations, index_folder, write_corpus

REPO_ROOT = Path(__file__).resolve().parents[2]
QUERIES = ["river ferry grain", "honey jar market", "winter salt road", "bell tower clerk", "coin stone inn"]


def _texts_of(index: index_module.DenseIndex, doc_id: str) -> list[str]:
    return sorted(embedding_text(c) for c in index.chunks if c.doc_id == doc_id)


def test_a_changed_file_embeds_only_its_chunks(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    first = index_folder(folder, root)
    assert first.manifest["embedded"] == len(first.chunks) > 40 and first.manifest["reused"] == 0
    (folder / "doc07.txt").write_text(document_text(107), encoding="utf-8")
    counting = CountingEmbeddings()
    second = index_folder(folder, root, counting)
    changed = _texts_of(second, "doc07.txt")
    assert sorted(counting.texts) == changed  # exactly the new file's chunks, nothing else
    assert second.manifest["embedded"] == len(changed)
    assert second.manifest["reused"] == len(second.chunks) - len(changed)
    assert second.manifest["documents_changed"] == {"added": 0, "changed": 1, "deleted": 0, "unchanged": 19}
    assert second.path.parent == first.path.parent and not first.path.exists()
    assert generations(second.path.parent) == [second.path]


def test_an_edit_at_the_end_of_a_file_keeps_its_unchanged_chunks(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    first = index_folder(folder, root)
    path = folder / "doc03.txt"
    path.write_text(path.read_text(encoding="utf-8") + " A lantern was added at the end.", encoding="utf-8")
    counting = CountingEmbeddings()
    second = index_folder(folder, root, counting)
    kept = set(_texts_of(first, "doc03.txt")) & set(_texts_of(second, "doc03.txt"))
    assert kept and counting.texts and set(counting.texts) == set(_texts_of(second, "doc03.txt")) - kept


def test_added_and_deleted_files(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    index_folder(folder, root)
    (folder / "doc20.txt").write_text(document_text(20), encoding="utf-8")
    (folder / "doc03.txt").unlink()
    counting = CountingEmbeddings()
    second = index_folder(folder, root, counting)
    assert sorted(counting.texts) == _texts_of(second, "doc20.txt")
    assert "doc03.txt" not in {c.doc_id for c in second.chunks}
    assert second.manifest["documents_changed"] == {"added": 1, "changed": 0, "deleted": 1, "unchanged": 19}
    assert second.bm25.ids == [c.id for c in second.chunks] and second.vectors.ntotal == len(second.chunks)
    (folder / "doc05.txt").unlink()
    deleting = CountingEmbeddings()
    third = index_folder(folder, root, deleting)
    assert deleting.texts == [] and third.manifest["embedded"] == 0 and third.manifest["reused"] == len(third.chunks)
    assert "doc05.txt" not in {c.doc_id for c in third.chunks} and len(third.chunks) < len(second.chunks)


def test_an_incremental_update_equals_a_full_rebuild(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    index_folder(folder, root)
    (folder / "doc01.txt").write_text(document_text(101), encoding="utf-8")
    (folder / "doc11.txt").unlink()
    (folder / "doc30.txt").write_text(document_text(30), encoding="utf-8")
    incremental = index_folder(folder, root)
    full = index_folder(folder, tmp_path / "fresh-cache")
    assert 0 < incremental.manifest["embedded"] < full.manifest["embedded"] == len(full.chunks)
    assert incremental.chunks == full.chunks and incremental.content_keys == full.content_keys
    n = len(full.chunks)
    assert np.array_equal(incremental.vectors.reconstruct_n(0, n), full.vectors.reconstruct_n(0, n))
    assert incremental.bm25.corpus_tokens == full.bm25.corpus_tokens
    embed = CountingEmbeddings().embed_query
    for query in QUERIES:
        assert incremental.search(embed(query), 5) == full.search(embed(query), 5)


def test_the_old_generation_is_removed_only_after_the_new_one_is_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    first = index_folder(folder, root)
    current = first.path.parent / CURRENT_FILE
    seen: list[tuple[str, bool, str]] = []
    publish = Slot.publish

    def watched(self: Slot, temp: Path, name: str) -> Path:
        seen.append(("before", first.path.is_dir(), current.read_text().strip()))
        published = publish(self, temp, name)
        seen.append(("after", first.path.is_dir(), current.read_text().strip()))
        return published

    monkeypatch.setattr(Slot, "publish", watched)
    (folder / "doc02.txt").write_text(document_text(102), encoding="utf-8")
    second = index_folder(folder, root)
    assert seen == [("before", True, first.path.name), ("after", True, second.path.name)]
    assert not first.path.exists()


def test_a_failed_rebuild_keeps_the_old_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    first = index_folder(folder, root)
    original = (folder / "doc04.txt").read_text(encoding="utf-8")
    (folder / "doc04.txt").write_text(document_text(104), encoding="utf-8")
    write = index_module.write_generation

    def disk_full(temp: Path, *args: object, **kwargs: object) -> None:
        write(temp, *args, **kwargs)  # type: ignore[arg-type]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(index_module, "write_generation", disk_full)
    with pytest.raises(index_module.IndexWriteError, match="No space left"):
        index_folder(folder, root)
    monkeypatch.undo()
    assert generations(first.path.parent) == [first.path]  # no half-written folder, the old one stays
    (folder / "doc04.txt").write_text(original, encoding="utf-8")
    again = index_folder(folder, root)
    assert again.path == first.path and not again.fresh


def test_a_leftover_temp_folder_is_ignored_and_cleaned(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    first = index_folder(folder, root)
    slot = first.path.parent
    leftover = slot / f"{TEMP_PREFIX}99999-deadbeef"
    shutil.copytree(first.path, leftover)
    (leftover / "vectors.faiss").write_bytes(b"half written")
    orphan = slot / "g000009-0123456789ab"  # renamed by a build killed before it switched CURRENT
    shutil.copytree(first.path, orphan)
    again = index_folder(folder, root)
    assert again.path == first.path and not again.fresh
    assert generations(slot) == [first.path]


def test_a_killed_build_leaves_the_old_index_usable(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    first = index_folder(folder, root)
    (folder / "doc09.txt").write_text(document_text(109), encoding="utf-8")
    marker = tmp_path / "writing"
    child = subprocess.Popen(
        [sys.executable, "-c", _HANGING_BUILD, str(folder), str(root), str(marker)],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.exists(), child.stderr.read().decode() if child.stderr else "no marker"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    slot = first.path.parent
    assert sorted(p.name.startswith(TEMP_PREFIX) for p in generations(slot)) == [False, True]
    assert Slot(slot).current() == first.path and load_index(first.path).chunks == first.chunks
    counting = CountingEmbeddings()
    rebuilt = index_folder(folder, root, counting)
    assert sorted(counting.texts) == _texts_of(rebuilt, "doc09.txt") and generations(slot) == [rebuilt.path]


_HANGING_BUILD = """
import sys, time
from pathlib import Path
from anchorgate.tools.index import build as index
from tests.unit.index_helpers import index_folder

folder, root, marker = map(Path, sys.argv[1:4])

def hang(temp, *args, **kwargs):
    (temp / "vectors.faiss").write_bytes(b"partial")
    marker.write_text("writing")
    time.sleep(600)

index.write_generation = hang
index_folder(folder, root)
"""


def test_concurrent_builds_of_one_corpus_embed_once(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs"), tmp_path / "cache"
    counting = CountingEmbeddings(delay=0.3)
    results: list[index_module.DenseIndex] = []
    threads = [threading.Thread(target=lambda: results.append(index_folder(folder, root, counting))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 2 and results[0].path == results[1].path
    assert len(counting.texts) == len(results[0].chunks) and sum(r.fresh for r in results) == 1


def test_build_summary_says_what_was_embedded_and_reused(tmp_path: Path) -> None:
    folder, root = write_corpus(tmp_path / "docs", count=3), tmp_path / "cache"
    first = index_folder(folder, root)
    assert build_summary(first).startswith(f"embedded {len(first.chunks)} chunks, reused 0 (new index) in ")
    (folder / "doc01.txt").write_text(document_text(201), encoding="utf-8")
    second = index_folder(folder, root)
    embedded, reused = second.manifest["embedded"], second.manifest["reused"]
    assert build_summary(second).startswith(
        f"embedded {embedded} chunks, reused {reused} (1 changed, 0 added, 0 deleted documents) in "
    )
    assert build_summary(index_folder(folder, root)) == (
        f"embedded 0 chunks, reused 0: the index is up to date ({len(second.chunks)} chunks)"
    )

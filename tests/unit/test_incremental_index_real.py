"""`anchorgate index` through the real embedding model (all-MiniLM-L6-v2) on a small corpus."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from anchorgate.cli import run
from anchorgate.graph.config import Config
from anchorgate.tools.corpus import load as corpus_module
from anchorgate.tools.errors import IndexCorruptError
from anchorgate.tools.services import load_index_for

DOCS = {
    "ferries.txt": "The river ferry at Alder carries grain and wool each spring. It crosses twice a day.",
    "honey.md": "# Honey\n\nTraders from the hills bring honey in clay jars to the Saturday market.",
    "bells.txt": "The bell tower of the town hall rings at noon. A clerk winds its clock every Sunday.",
    "salt.txt": "Salt from the coast reaches the inland towns by cart along the old stone road.",
}
QUERIES = ["When does the ferry cross the river?", "Who winds the clock?", "How does salt travel inland?"]
SUMMARY = re.compile(r"embedded (\d+) chunks, reused (\d+) \((.*?)\) in [\d.]+ s")


def _index(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert run(argv) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_anchorgate_index_embeds_only_the_changed_file_with_the_real_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    argv = ["index", str(folder), "--set", f"resources.cache_dir={tmp_path / 'cache'}"]
    out, err = _index(argv, capsys)
    assert "indexed 4 documents as 4 chunks" in out
    assert SUMMARY.search(err) and SUMMARY.search(err).groups() == ("4", "0", "new index")  # type: ignore[union-attr]
    (folder / "bells.txt").write_text("The bell tower rings at noon. Its clock is wound on Sundays.", encoding="utf-8")
    _, err = _index(argv, capsys)
    found = SUMMARY.search(err)
    assert found and found.groups() == ("1", "3", "1 changed, 0 added, 0 deleted documents"), err
    config = Config().replace(**{"resources.corpus": str(folder), "resources.cache_dir": str(tmp_path / "cache")})
    incremental, embeddings, _ = load_index_for(config, progress=False)
    full, _, _ = load_index_for(config.replace(**{"resources.cache_dir": str(tmp_path / "full")}), progress=False)
    assert full.manifest["embedded"] == 4 and incremental.chunks == full.chunks
    for query in QUERIES:
        vector = embeddings.embed_query(query)
        ours, theirs = incremental.search(vector, 3), full.search(vector, 3)
        assert [row for row, _ in ours] == [row for row, _ in theirs], query
        assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], abs=1e-5)
    manifest_path = incremental.path / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest_path.write_text(json.dumps({**manifest, "dimension": 768}), encoding="utf-8")
    with pytest.raises(IndexCorruptError, match="'dimension' is 768 but the FAISS index has d=384") as info:
        load_index_for(config, progress=False)
    assert info.value.hint == f"run `anchorgate index {folder.resolve()}` to rebuild it"
    _, err = _index(argv, capsys)
    assert "embedded 4 chunks, reused 0 (new index)" in err and "rebuilt because" in err and "'dimension'" in err


def test_a_corpus_whose_only_file_is_too_large_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(corpus_module, "MAX_FILE_BYTES", 1024 * 1024)
    (tmp_path / "dump.txt").write_bytes(b"data" * (512 * 1024))
    assert run(["index", str(tmp_path), "--set", f"resources.cache_dir={tmp_path / 'cache'}"]) == 66
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: corpus") and "\n" not in err
    assert "; skipped dump.txt: too large (2.0 MiB, limit 1.0 MiB)" in err

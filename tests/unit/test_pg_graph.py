"""`vector_store=postgresql://…` end to end: `anchorgate index` into the store, and graph runs retrieving from it.

`anchorgate index` uses the real embeddings and never builds a local index; runs use a scripted
chat model. A run over PostgreSQL must put the same passages in front of the model as a run over
FAISS + BM25 (same fusion, gate and selection code), and a collection `anchorgate index` filled
from the same corpus is used as it is (nothing re-embedded or rewritten).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.cli import run
from anchorgate.graph.config import Config
from anchorgate.tools.postgres.store import VectorStoreDataError
from anchorgate.tools.services import Services, load_index_for, register_services, services_for
from tests.unit.pg_helpers import collection_rows, corpus_folder, fresh_database
from tests.unit.test_threads import _model as toy_model
from tests.unit.test_threads import _overrides as toy_overrides

DOCS = {
    "owls.txt": "Owls are nocturnal birds of prey. Owls hunt mice at night.",
    "barn_owls.txt": "Barn owls hunt voles and mice in open fields at night.",
    "tea.txt": "Green tea is brewed from the leaves of Camellia sinensis.",
}


def test_index_into_postgres_embeds_once_then_only_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs, url = corpus_folder(tmp_path, DOCS), fresh_database("cli")
    argv = [
        "index",
        str(docs),
        "--set",
        f"resources.vector_store={url}",
        "--set",
        f"resources.cache_dir={tmp_path / 'cache'}",
    ]
    assert run(argv) == 0
    out, err = capsys.readouterr()
    assert out.startswith("indexed 3 documents as 3 chunks → postgresql 127.0.0.1:") and " collection docs-" in out
    assert "embedded 3 chunks, reused 0 (3 added, 0 changed, 0 deleted documents)" in err
    assert run(argv) == 0
    assert "embedded 0 chunks, reused 0: collection docs-" in capsys.readouterr().err
    (docs / "tea.txt").write_text("Black tea is oxidised before drying.\n", encoding="utf-8")
    assert run(argv) == 0
    assert "embedded 1 chunks, reused 0 (0 added, 1 changed, 0 deleted documents)" in capsys.readouterr().err
    assert not (tmp_path / "cache" / "indexes").exists()  # no local index was built for a server store


@pytest.mark.parametrize("preset", ["baseline", "A", "B"])
async def test_a_run_over_postgres_sees_the_passages_a_faiss_run_sees(tmp_path: Path, preset: str) -> None:
    url = fresh_database("run")
    overrides = toy_overrides(tmp_path, toy_model())
    local = await aask("What do owls hunt?", preset=preset, overrides=overrides)
    served = await aask("What do owls hunt?", preset=preset, overrides={**overrides, "resources.vector_store": url})
    assert served["answer"] == local["answer"] and served["decision"] == local["decision"]
    assert [c["id"] for c in served["telemetry"]["context"]] == [c["id"] for c in local["telemetry"]["context"]]
    assert [c["score"] for c in served["telemetry"]["context"]] == pytest.approx(
        [c["score"] for c in local["telemetry"]["context"]], abs=1e-6
    )
    assert len(collection_rows(url)) == 1  # the bundle's index was mirrored into one collection


async def test_a_collection_indexed_by_the_cli_is_used_as_it_is(tmp_path: Path) -> None:
    docs, url = corpus_folder(tmp_path, DOCS), fresh_database("shared")
    cache = str(tmp_path / "cache")
    assert (
        run(["index", str(docs), "--set", f"resources.vector_store={url}", "--set", f"resources.cache_dir={cache}"])
        == 0
    )
    before = collection_rows(url)
    config = Config().replace(**{"resources.corpus": str(docs), "resources.cache_dir": cache})
    index, embeddings, _ = load_index_for(config, progress=False)  # the app's local bundle of the same corpus
    services_id = register_services(Services(index, embeddings, toy_model(), "docs"))
    overrides: dict[str, Any] = {
        "resources.services_id": services_id,
        "resources.vector_store": url,
        "resources.checkpoint_db": f"{cache}/c.sqlite",
    }
    result = await aask("What do owls hunt?", preset="A", overrides={**overrides, "resources.corpus": str(docs)})
    assert result["decision"] == "STOP" and result["telemetry"]["context"]
    assert collection_rows(url) == before  # found up to date: not rewritten, nothing embedded


async def test_a_run_against_a_collection_of_another_model_fails_with_its_error(tmp_path: Path) -> None:
    url = fresh_database("mismatch")
    overrides = toy_overrides(tmp_path, toy_model(), **{"resources.vector_collection": "docs"})
    await aask("What do owls hunt?", preset="A", overrides={**overrides, "resources.vector_store": url})  # bow vectors
    other = toy_overrides(tmp_path / "other", toy_model(), **{"resources.vector_collection": "docs"})
    index = services_for(Config().replace(**{"resources.services_id": other["resources.services_id"]})).index
    index.manifest["embedding_id"] = "another-model"  # the same corpus indexed with another model
    with pytest.raises(VectorStoreDataError, match="was indexed with embedding model bow"):
        await aask("What do owls hunt?", preset="A", overrides={**other, "resources.vector_store": url})

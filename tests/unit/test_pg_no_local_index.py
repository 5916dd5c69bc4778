"""`vector_store=postgresql://…` builds and loads no local index: the run reads the corpus from the store.

Real all-MiniLM-L6-v2, a real PostgreSQL 18 + pgvector server (tests/unit/pg_helpers.py) and the
real graph; only the chat model is scripted (chat_model_for is replaced, the one fake). A run over
PostgreSQL must put the same passages, with the same scores, in front of the model as a run over
the local FAISS + BM25 index of the same corpus, while its cache folder gets no `indexes` folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.cli import run
from anchorgate.graph.config import Config
from anchorgate.tools import services as services_module
from anchorgate.tools.index.build import build_summary
from anchorgate.tools.index.store_view import StoreIndex
from anchorgate.tools.postgres.search import PgSearcher
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.services import load_index_for, services_for
from tests.unit.pg_helpers import collection_rows, corpus_folder, fresh_database
from tests.unit.test_threads import _model as scripted_model

DOCS = {
    "owls.txt": "Owls are nocturnal birds of prey. Owls hunt mice at night.",
    "barn_owls.txt": "Barn Owls hunt voles and mice in open fields at night. The Tawny Owl nests in trees.",
    "tawny.txt": "The Tawny Owl is a stocky owl of European woodland. It eats rodents, frogs and beetles.",
    "tea.txt": "Green tea is brewed from the leaves of Camellia sinensis.",
}

WITH_CHUNKS = "name || ':' || generation || ':' || n_chunks"


@pytest.fixture(autouse=True)
def scripted_chat(monkeypatch: pytest.MonkeyPatch) -> None:
    model = scripted_model()
    monkeypatch.setattr(services_module, "chat_model_for", lambda config: model)


def _overrides(docs: Path, cache: Path, **extra: Any) -> dict[str, Any]:
    return {
        "resources.corpus": str(docs),
        "resources.cache_dir": str(cache),
        "resources.checkpoint_db": str(cache / "c.sqlite"),
        **extra,
    }


@pytest.mark.parametrize("preset", ["baseline", "A", "B"])
async def test_a_postgres_run_builds_no_local_index_and_sees_the_same_context(tmp_path: Path, preset: str) -> None:
    docs, url = corpus_folder(tmp_path, DOCS), fresh_database("nolocal")
    local = await aask("What do owls hunt?", preset=preset, overrides=_overrides(docs, tmp_path / "local"))
    served_cache = tmp_path / "served"
    served = await aask(
        "What do owls hunt?", preset=preset, overrides=_overrides(docs, served_cache, **{"resources.vector_store": url})
    )
    assert (tmp_path / "local" / "indexes").is_dir()  # the reference did build its local index
    assert not (served_cache / "indexes").exists()  # the PostgreSQL run built none
    assert served["decision"] == local["decision"] and served["answer"] == local["answer"]
    local_context, served_context = local["telemetry"]["context"], served["telemetry"]["context"]
    assert served_context and [c["id"] for c in served_context] == [c["id"] for c in local_context]
    assert [c["score"] for c in served_context] == pytest.approx([c["score"] for c in local_context], abs=1e-5)
    # written once, 4 chunks
    assert collection_rows(url, WITH_CHUNKS) == [f"{_collection_of(docs, served_cache, url)}:1:4"]


def _collection_of(docs: Path, cache: Path, url: str) -> str:
    index = services_for(
        Config().replace(
            **{"resources.corpus": str(docs), "resources.cache_dir": str(cache), "resources.vector_store": url}
        )
    ).index
    assert isinstance(index, StoreIndex)
    return str(index.manifest["collection"])


def test_the_bundle_reads_everything_from_the_store(tmp_path: Path) -> None:
    docs, url = corpus_folder(tmp_path, DOCS), fresh_database("bundle")
    config = Config().replace(
        **{"resources.corpus": str(docs), "resources.cache_dir": str(tmp_path / "cache"), "resources.vector_store": url}
    )
    index, embeddings, corpus = load_index_for(config, progress=False)
    assert isinstance(index, StoreIndex) and index.fresh
    assert not (tmp_path / "cache" / "indexes").exists()
    assert index.manifest["chunks"] == len(index.chunks) == 4 and index.manifest["passages"] == len(corpus.passages)
    assert index.manifest["embedding_model"] == "all-MiniLM-L6-v2" and index.path.startswith("postgresql://")
    assert build_summary(index).startswith(f"collection {index.manifest['collection']} at 127.0.0.1:")
    searcher = HybridSearcher.for_index(index)  # the graph's call: the store's searcher, no BM25 built
    assert isinstance(searcher, PgSearcher) and searcher is index.searcher
    by_row = list(index.chunks)  # rows are the store's corpus positions
    assert [index.chunks[row].id for row in range(len(by_row))] == [c.id for c in by_row]
    assert index.chunks[-1].id == by_row[-1].id and [c.id for c in index.chunks[1:3]] == [c.id for c in by_row[1:3]]
    with pytest.raises(IndexError):
        index.chunks[len(by_row)]
    hits = searcher.search("What do owls hunt?", embeddings.embed_query("What do owls hunt?"), pool_k=3)
    assert hits[0].chunk.doc_id.endswith("owls.txt")
    vectors = searcher.vectors([hits[0].chunk.id, 0])
    assert vectors.shape == (2, 384)
    again, _, _ = load_index_for(config, progress=False)  # up to date: one row read, nothing written
    assert isinstance(again, StoreIndex) and not again.fresh
    assert collection_rows(url, WITH_CHUNKS) == [f"{index.manifest['collection']}:1:4"]


async def test_a_collection_indexed_by_the_cli_is_used_without_a_local_index(tmp_path: Path) -> None:
    docs, url, cache = corpus_folder(tmp_path, DOCS), fresh_database("cli_then_run"), tmp_path / "cache"
    assert (
        run(["index", str(docs), "--set", f"resources.vector_store={url}", "--set", f"resources.cache_dir={cache}"])
        == 0
    )
    before = collection_rows(url, WITH_CHUNKS)
    result = await aask(
        "What do owls hunt?", preset="A", overrides=_overrides(docs, cache, **{"resources.vector_store": url})
    )
    assert result["decision"] == "STOP"
    assert result["telemetry"]["context"][0]["id"].split("#")[0] in ("owls.txt", "barn_owls.txt")
    assert collection_rows(url, WITH_CHUNKS) == before  # found current: not rewritten
    assert not (cache / "indexes").exists()

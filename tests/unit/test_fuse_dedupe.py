"""One copy per chunk text in what fuse_and_select and the dense retriever worker hand on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorgate.agents.fuse_and_select import fused_pool
from anchorgate.agents.retriever_worker import retrieve
from anchorgate.graph.presets import load_preset
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel

SHARED = "If a class does not define an __eq__() method it should not define a __hash__() operation either."


def _evidence(cid: str, doc: str, text: str, ranks: dict[str, int]) -> dict[str, Any]:
    return {"id": cid, "doc_id": doc, "title": doc, "text": text, "score": 0.5, "pass": 1, "ranks": ranks}


def test_fused_pool_keeps_the_better_fused_copy_of_a_shared_section() -> None:
    evidence = [
        _evidence("specialnames#35:fb303123fc", "specialnames", SHARED, {"question": 2, "anchor:hash": 3}),
        _evidence("customization#30:fb303123fc", "customization", SHARED, {"question": 1, "anchor:hash": 1}),
        _evidence("types#3:aaaa", "types", "Set types are unordered.", {"question": 3}),
    ]
    pool = fused_pool(evidence, pool_k=2)
    assert [e["id"] for e in pool] == ["customization#30:fb303123fc", "types#3:aaaa"]  # the copy uses no slot


async def test_dense_worker_returns_k_distinct_texts(tmp_path: Path) -> None:
    passages = [Passage(f"copy{i}", "Hashing", SHARED) for i in range(4)]
    passages += [Passage(f"p{i}", f"Topic {i}", f"Hash tables and __hash__ methods, part {i}.") for i in range(6)]
    embeddings = BagOfWordsEmbeddings(64)
    index = build_or_load(passages, embeddings, "bow64", ChunkingSettings(120, 20), tmp_path, progress=False)
    services_id = register_services(Services(index, embeddings, ScriptedChatModel(), "toy"))
    config = load_preset("baseline", {"resources.services_id": services_id, "retrieval.k": 4})

    class Runtime:
        context = config

    worker = {"question": "q", "worker": "question", "query": SHARED, "dense_query": SHARED, "pass_no": 1}
    evidence = (await retrieve(worker, Runtime()))["evidence"]  # type: ignore[arg-type]
    texts = [e["text"] for e in evidence]
    assert len(texts) == 4 and len(set(texts)) == 4 and texts.count(SHARED) == 1
    assert evidence[0]["doc_id"] == "copy0" and [e["ranks"]["question"] for e in evidence] == [1, 2, 3, 4]

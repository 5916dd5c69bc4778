"""HybridSearcher: dense + BM25 fusion, the relevance gate, determinism, caching, LangChain retriever."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import DenseIndex, build_or_load
from anchorgate.tools.retrieval import hybrid
from anchorgate.tools.retrieval.hybrid import HybridSearcher, as_langchain_retriever
from anchorgate.tools.retrieval.searcher import HybridHit

# Words mapped to shared "concept" dimensions: the embedding knows synonyms (car ~ automobile) that
# BM25 cannot match, and ignores rare codes ("zx81") that only BM25 can match.
CONCEPTS = {
    "car": 0, "automobile": 0, "vehicle": 0, "engine": 0,
    "tea": 1, "brewed": 1, "leaves": 1,
    "owls": 2, "birds": 2, "hunt": 2, "mice": 2, "nocturnal": 2,
    "radio": 3, "receiver": 3, "part": 3,
    "river": 4, "water": 4, "flows": 4,
    "piano": 5, "music": 5, "keys": 5,
}  # fmt: skip


class ConceptEmbeddings(Embeddings):
    """Deterministic toy embedding: normalized counts of known concept words; unknown words ignored."""

    def _vector(self, text: str) -> list[float]:
        vec = np.zeros(8, dtype="float32")
        for word in text.lower().replace(".", " ").replace(",", " ").split():
            if word in CONCEPTS:
                vec[CONCEPTS[word]] += 1.0
        norm = float(np.linalg.norm(vec))
        return (vec / norm if norm else vec).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


PASSAGES = [
    Passage("auto", "Automobile care", "Change the oil of an automobile engine every year.", "ds"),
    Passage("tea", "Tea", "Green tea is brewed from leaves.", "ds"),
    Passage("owls", "Owls", "Owls are nocturnal birds that hunt mice.", "ds"),
    Passage("river", "Rivers", "A river flows with fresh water to the sea.", "ds"),
    Passage("piano", "Piano", "The piano makes music with its keys.", "ds"),
    Passage("serial", "Spare parts", "Part zx81 fits the old radio receiver.", "ds"),
]
EMB = ConceptEmbeddings()


@pytest.fixture()
def index(tmp_path: Path) -> DenseIndex:
    return build_or_load(PASSAGES, EMB, "concepts-8", ChunkingSettings(32, 4), tmp_path, progress=False)


def _search(searcher: HybridSearcher, query: str, **kwargs: object) -> list[HybridHit]:
    return searcher.search(query, EMB.embed_query(query), **kwargs)


def _docs(hits: Sequence[HybridHit]) -> list[str]:
    return [hit.chunk.doc_id for hit in hits]


def test_hybrid_finds_what_either_retriever_alone_misses(index: DenseIndex) -> None:
    searcher = HybridSearcher.for_index(index)
    query = "zx81 for my car"  # "car" only matches "automobile" semantically; "zx81" only lexically
    dense = _docs(_search(searcher, query, pool_k=2, mode="dense"))
    sparse = _docs(_search(searcher, query, pool_k=2, mode="bm25"))
    assert dense[0] == "auto" and "serial" not in dense
    assert sparse == ["serial"]  # BM25 returns only chunks sharing a term
    for fusion in ("rrf", "weighted"):
        assert set(_docs(_search(searcher, query, pool_k=2, fusion=fusion))) == {"auto", "serial"}


def test_scores_are_documented_values(index: DenseIndex) -> None:
    searcher = HybridSearcher.for_index(index)
    query = "zx81 for my car"
    hits = _search(searcher, query, pool_k=6)
    by_doc = {hit.chunk.doc_id: hit for hit in hits}
    assert by_doc["auto"].dense == pytest.approx(1.0) and by_doc["auto"].sparse == 0.0
    assert by_doc["serial"].dense == pytest.approx(0.0) and by_doc["serial"].sparse > 0.0
    # RRF: 1 / (60 + rank) summed over the dense and BM25 lists; neutral priors multiply by 1.
    dense_rank = next(h.rank for h in _search(searcher, query, pool_k=6, mode="dense") if h.chunk.doc_id == "serial")
    assert by_doc["serial"].score == pytest.approx(1 / 61 + 1 / (60 + dense_rank))
    assert [hit.rank for hit in hits] == sorted(hit.rank for hit in hits)
    dense_only = _search(searcher, query, pool_k=1, mode="dense")[0]
    assert dense_only.score == pytest.approx(dense_only.dense)
    weighted = _search(searcher, query, pool_k=6, fusion="weighted")
    assert all(0.0 <= hit.score <= 1.0 + 1e-9 for hit in weighted)


def test_floor_drops_irrelevant_chunks_whatever_their_priors(tmp_path: Path) -> None:
    glossy = Passage("glossy", "Official", "The piano keys of the official register.", "ds",
                     {"authority": 1.0, "recency": 1.0, "completeness": 1.0, "source_rank": 1})  # fmt: skip
    built = build_or_load([*PASSAGES, glossy], EMB, "concepts-8", ChunkingSettings(32, 4), tmp_path, progress=False)
    searcher = HybridSearcher.for_index(built)
    unfiltered = _docs(_search(searcher, "owls hunt mice", pool_k=10))
    assert "glossy" in unfiltered and len(unfiltered) == 7  # without a floor every chunk is a candidate
    gated = _search(searcher, "owls hunt mice", pool_k=10, relevance_floor=0.2)
    assert _docs(gated) == ["owls"]
    assert gated[0].relevance >= 0.2 and gated[0].keyword == pytest.approx(1.0)


def test_same_call_twice_gives_the_same_list_in_a_total_order(index: DenseIndex) -> None:
    searcher = HybridSearcher.for_index(index)
    for mode in ("dense", "bm25", "hybrid"):
        first = _search(searcher, "zx81 radio for my car", pool_k=6, mode=mode)
        assert first == _search(searcher, "zx81 radio for my car", pool_k=6, mode=mode)
        keys = [(-hit.score, hit.rank, hit.chunk.id) for hit in first]
        assert keys == sorted(keys)


def test_bm25_is_built_once_per_index_even_from_many_threads(
    index: DenseIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[int] = []
    original = hybrid.BM25Index.build

    def counting_build(*args: object, **kwargs: object) -> hybrid.BM25Index:
        builds.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(hybrid.BM25Index, "build", counting_build)
    hybrid._SEARCHERS.clear()
    found: list[HybridSearcher] = []
    threads = [threading.Thread(target=lambda: found.append(HybridSearcher.for_index(index))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1 and len({id(s) for s in found}) == 1


def test_vectors_by_row_or_id(index: DenseIndex) -> None:
    searcher = HybridSearcher.for_index(index)
    ids = [chunk.id for chunk in index.chunks[:3]]
    by_id, by_row = searcher.vectors(ids), searcher.vectors([0, 1, 2])
    assert by_id.shape == (3, 8) and np.array_equal(by_id, by_row)
    assert searcher.vectors([]).shape == (0, 8)


def test_langchain_retriever_returns_documents(index: DenseIndex) -> None:
    retriever = as_langchain_retriever(HybridSearcher.for_index(index), EMB, pool_k=2, fusion="weighted")
    docs = retriever.invoke("zx81 for my car")
    assert docs and all(isinstance(doc, Document) for doc in docs)
    assert {doc.metadata["doc_id"] for doc in docs} == {"auto", "serial"}
    assert set(docs[0].metadata) >= {"id", "doc_id", "title", "source", "score"}
    with pytest.raises(ValueError, match="unknown search_kwargs"):
        as_langchain_retriever(HybridSearcher.for_index(index), EMB, k=3)


def test_wrong_query_dimension_is_a_clear_error(index: DenseIndex) -> None:
    with pytest.raises(ValueError, match="index expects"):
        HybridSearcher.for_index(index).search("owls", [1.0, 0.0, 0.0])


def test_dense_weight_tilts_the_fusion(index: DenseIndex) -> None:
    searcher = HybridSearcher.for_index(index)
    query = "zx81 for my car"  # dense prefers "auto", BM25 only knows "serial"
    dense_heavy = _docs(_search(searcher, query, pool_k=2, fusion="weighted", dense_weight=0.8))
    sparse_heavy = _docs(_search(searcher, query, pool_k=2, fusion="weighted", dense_weight=0.2))
    assert dense_heavy[0] == "auto" and sparse_heavy[0] == "serial"
    # RRF: the dense list's 1 / (60 + rank) terms count 2 * 0.8, BM25's 2 * 0.2
    rrf = {h.chunk.doc_id: h.score for h in _search(searcher, query, pool_k=6, dense_weight=0.8)}
    assert rrf["auto"] == pytest.approx(1.6 / 61)  # dense rank 1, no BM25 match
    # 0.5 is the unweighted fusion: plain RRF's documented scores
    assert [h.score for h in _search(searcher, query, pool_k=6, dense_weight=0.5)] == [
        h.score for h in _search(searcher, query, pool_k=6)
    ]
    with pytest.raises(ValueError, match="dense_weight"):
        _search(searcher, query, dense_weight=1.5)


def test_bm25_indexes_the_title_with_the_text(tmp_path: Path) -> None:
    # "managers" is only in the title: BM25 must see it (the dense side embeds title + text too).
    titled = Passage("cm", "With Statement Context Managers", "An object defines enter and exit methods.", "ds")
    built = build_or_load([*PASSAGES, titled], EMB, "concepts-8", ChunkingSettings(32, 4), tmp_path, progress=False)
    searcher = HybridSearcher.for_index(built)
    assert _docs(_search(searcher, "context managers", pool_k=3, mode="bm25")) == ["cm"]


def test_identical_texts_in_two_documents_are_one_hit_the_better_ranked(tmp_path: Path) -> None:
    shared = "Barn owls hunt voles near old farms."
    passages = [
        *PASSAGES,
        Passage("specialnames", "Barn owls", shared, "ds"),  # same title and text: an exact tie
        Passage("customization", "Barn owls", shared, "ds"),
        Passage("birds", "Birds of prey", shared, "ds"),  # same text, a title the query names
    ]
    built = build_or_load(passages, EMB, "concepts-8", ChunkingSettings(32, 4), tmp_path, progress=False)
    searcher = HybridSearcher.for_index(built)
    query = "prey barn owls voles"
    for mode in ("dense", "bm25", "hybrid"):
        texts = [h.chunk.text for h in _search(searcher, query, pool_k=10, mode=mode)]
        assert texts.count(shared) == 1, mode  # one hit per distinct text
    # BM25 ranks the copy whose title matches "prey" first: that copy is the one kept
    assert [h.chunk.doc_id for h in _search(searcher, query, pool_k=10, mode="bm25") if h.chunk.text == shared] == [
        "birds"
    ]
    # the dense side sees three identical vectors: the tie goes to the first row, every time
    for _ in range(2):
        dense = _search(searcher, query, pool_k=10, mode="dense")
        assert [h.chunk.doc_id for h in dense if h.chunk.text == shared] == ["specialnames"]

"""The PostgreSQL retrieval store against a real PostgreSQL 18 + pgvector server (tests/unit/pg_helpers.py).

The reference is the FAISS + BM25 searcher over a local index of the same corpus: every mode, fusion,
floor and dense share must give the same hits (ids, ranks, scores) from PostgreSQL. Indexing is
checked by counting what the embedding model is asked to embed.
"""

from __future__ import annotations

import hashlib
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import build_or_load, embedding_text
from anchorgate.tools.postgres.index import embedder, index_vectors, snapshot_of, snapshot_of_index, sync
from anchorgate.tools.postgres.search import PgSearcher
from anchorgate.tools.postgres.store import VectorStoreDataError
from anchorgate.tools.retrieval.bm25 import BM25Index
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.retrieval.searcher import HybridHit
from tests.fakes import normalize_words
from tests.unit.pg_helpers import fresh_database, pg_server

SETTINGS = ChunkingSettings(40, 8)
WORDS = [
    "owl", "mouse", "vole", "night", "forest", "hunt", "flight", "feather", "river", "trout", "bear", "salmon", "tea",
    "leaf", "kettle", "steam", "python", "class", "method", "decorator", "generator", "yield", "lambda", "scope",
    "module", "import",
]  # fmt: skip
QUERIES = [
    "What do owls hunt at night?", "how does a generator yield values", "difference between == and is",
    'the "with" statement', "bear salmon river", "x := 1 walrus", "tea kettle steam leaf",
    "zebra unicorn", "the of and", "", "Owl owl OWL feather flight", "module import scope lambda",
]  # fmt: skip
MODES = [
    {"mode": "dense"}, {"mode": "bm25"}, {"mode": "hybrid", "fusion": "rrf"},
    {"mode": "hybrid", "fusion": "weighted"}, {"mode": "hybrid", "fusion": "rrf", "relevance_floor": 0.3},
    {"mode": "hybrid", "fusion": "weighted", "dense_weight": 0.8, "relevance_floor": 0.2},
]  # fmt: skip


class WordVectors(Embeddings):
    """A fixed random vector per word, summed and normalized: similar texts are close, and unlike
    hashed bag-of-words counts, distinct texts practically never tie (FAISS breaks exact ties at its
    k-th place arbitrarily, PostgreSQL by row; with no ties both return the same set)."""

    def __init__(self, dim: int = 48) -> None:
        self.dim = dim
        self.embedded: list[str] = []

    def _vector(self, text: str) -> list[float]:
        total = np.zeros(self.dim)
        for word in normalize_words(text):
            seed = int(hashlib.md5(word.encode(), usedforsecurity=False).hexdigest()[:8], 16)
            total += np.random.default_rng(seed).standard_normal(self.dim)
        norm = float(np.linalg.norm(total))
        return (total / norm if norm else total).astype("float32").tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def corpus(n: int = 40, seed: int = 7) -> list[Passage]:
    """Random prose over a small vocabulary (many BM25 ties) plus the cases the tokenizer treats specially."""
    rng = random.Random(seed)
    passages = [
        Passage(f"d{i:02d}", f"Doc {i}", " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 70))) + ".",
                metadata={"source_rank": 1 + i % 5} if i % 3 == 0 else {})
        for i in range(n)
    ]  # fmt: skip
    passages += [
        Passage("ops", "Operators", "Use a == b to compare values; x := 1 assigns inside an expression."),
        Passage("with1", "With", 'The "with" statement and the "in" operator and the "or" keyword.'),
        Passage("with2", "With again", 'Write "with" blocks; test "in" membership; combine with "or".'),
        Passage("with3", "With thrice", 'A "with" statement closes files; "in" and "or" are keywords.'),
        Passage("copy1", "Copy one", "Owls hunt mice at night in the forest."),
        Passage("copy2", "Copy two", "Owls hunt mice at night in the forest."),
    ]
    return passages


def local_index(passages: list[Passage], root: Path, embeddings: Embeddings | None = None) -> HybridSearcher:
    index = build_or_load(passages, embeddings or WordVectors(), "bow64", SETTINGS, root, progress=False)
    return HybridSearcher.for_index(index)


def assert_same_hits(got: list[HybridHit], want: list[HybridHit]) -> None:
    assert [h.chunk.id for h in got] == [h.chunk.id for h in want]
    for a, b in zip(got, want, strict=True):
        assert a.chunk == b.chunk and a.rank == b.rank and a.row == b.row
        # cosines are float32 sums in both stores, in another order: equal to ~1e-7, so are fused scores
        assert a.score == pytest.approx(b.score, abs=1e-6) and a.sparse == pytest.approx(b.sparse, abs=1e-9)
        assert a.dense == pytest.approx(b.dense, abs=1e-6) and a.relevance == pytest.approx(b.relevance, abs=1e-6)


@pytest.fixture(scope="module")
def mirrored(tmp_path_factory: pytest.TempPathFactory) -> tuple[HybridSearcher, PgSearcher]:
    """A local index of `corpus()` and the same chunks and vectors in a PostgreSQL collection."""
    faiss = local_index(corpus(), tmp_path_factory.mktemp("pg_store"))
    url = fresh_database("mirror")
    result = sync(url, "mirror", snapshot_of_index(faiss.index), index_vectors(faiss.index))
    assert result.new_vectors == len(set(faiss.index.content_keys)) and not result.up_to_date
    return faiss, PgSearcher(url, "mirror")


@pytest.mark.parametrize("kwargs", MODES, ids=lambda k: "-".join(f"{v}" for v in k.values()))
def test_every_mode_returns_what_faiss_and_bm25_return(
    kwargs: dict[str, object], mirrored: tuple[HybridSearcher, PgSearcher]
) -> None:
    faiss, pg = mirrored
    embeddings = WordVectors()
    nonempty = 0
    for query in QUERIES:
        vector = embeddings.embed_query(query)
        want = faiss.search(query, vector, pool_k=12, **kwargs)  # type: ignore[arg-type]
        assert_same_hits(pg.search(query, vector, pool_k=12, **kwargs), want)  # type: ignore[arg-type]
        nonempty += bool(want)
    assert nonempty >= len(QUERIES) - 3  # the comparison is not vacuous


def test_sparse_scores_are_bm25s_scores_and_keywords_match(mirrored: tuple[HybridSearcher, PgSearcher]) -> None:
    faiss, pg = mirrored
    bm25 = BM25Index.build([embedding_text(c) for c in faiss.index.chunks], language="auto")
    assert bm25.keywords == {"in", "or", "with"}  # the quoted-stopword rule is active on this corpus
    for query in QUERIES:
        hits = pg.search(query, WordVectors().embed_query(query), pool_k=60, mode="bm25")
        scores = bm25.scores(query)
        assert hits or not scores.any()
        for hit in hits:
            assert hit.sparse == pytest.approx(float(scores[hit.row]), rel=1e-12, abs=1e-12)
        assert {h.row for h in hits} == set(np.flatnonzero(scores > 0)[: len(hits)]) or len(hits) == 60


def test_dense_top_k_and_stored_vectors_equal_the_local_index(mirrored: tuple[HybridSearcher, PgSearcher]) -> None:
    faiss, pg = mirrored
    vector = WordVectors().embed_query("owls hunt at night")
    want = faiss.dense(vector, 10)
    got = pg.dense(vector, 10)
    assert [c.id for c, _ in got] == [c.id for c, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
    ids = [c.id for c, _ in want][:4]
    assert np.array_equal(pg.vectors(ids), faiss.vectors(ids))  # float32 kept bit for bit
    assert np.array_equal(pg.vectors([0, 3]), faiss.vectors([0, 3]))


def test_concurrent_searches_from_threads_equal_sequential_ones(mirrored: tuple[HybridSearcher, PgSearcher]) -> None:
    _, pg = mirrored
    embeddings = WordVectors()
    jobs = [(q, embeddings.embed_query(q)) for q in QUERIES * 3]
    sequential = [[h.chunk.id for h in pg.search(q, v, pool_k=8)] for q, v in jobs]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda job: [h.chunk.id for h in pg.search(job[0], job[1], pool_k=8)], jobs))
    assert parallel == sequential


def test_reindexing_embeds_only_new_texts_and_keeps_unchanged_rows(tmp_path: Path) -> None:
    url, embeddings = fresh_database("sync"), WordVectors()
    passages = corpus(20, seed=3)
    first = sync(url, "docs", snapshot_of(passages, "bow64", SETTINGS), embedder(embeddings, progress=False))
    distinct = {embedding_text(c) for c in snapshot_of(passages, "bow64", SETTINGS).chunks}
    assert first.new_vectors == len(embeddings.embedded) == len(distinct)  # the copy1/copy2 text once
    assert first.documents["added"] == len(passages)

    again = sync(url, "docs", snapshot_of(passages, "bow64", SETTINGS), embedder(embeddings, progress=False))
    assert again.up_to_date and again.new_vectors == 0 and len(embeddings.embedded) == len(distinct)
    assert "embedded 0 chunks" in again.summary()

    before = _row_versions(url)
    pg = PgSearcher(url, "docs")  # made before the update: it must notice it (the collection's generation)
    pg.search("owls", WordVectors().embed_query("owls"))
    changed = list(passages)
    changed[5] = Passage("d05", "Doc 5", "A completely new text about kettles and steam engines.")
    del changed[-1]  # copy2: its text stays stored (copy1 has it)
    changed.append(Passage("new", "New", "Salmon swim up the river in autumn."))
    embeddings.embedded.clear()
    third = sync(url, "docs", snapshot_of(changed, "bow64", SETTINGS), embedder(embeddings, progress=False))
    assert third.documents == {"added": 1, "changed": 1, "deleted": 1, "unchanged": len(passages) - 2}
    assert sorted(embeddings.embedded) == sorted(
        ["Doc 5\nA completely new text about kettles and steam engines.", "New\nSalmon swim up the river in autumn."]
    )
    after = _row_versions(url)
    kept = [cid for cid in before if cid.split("#")[0] not in {"d05", "copy2"} and after.get(cid) == before[cid]]
    assert len(kept) >= len(before) - 8  # rows of unchanged documents were left alone (ords after d05 moved)
    assert not any(cid.startswith("copy2#") for cid in after)

    reference = local_index(changed, tmp_path)
    for query in QUERIES:
        vector = WordVectors().embed_query(query)
        assert_same_hits(pg.search(query, vector, pool_k=10), reference.search(query, vector, pool_k=10))


def test_a_collection_of_another_embedding_model_is_refused_and_nothing_is_written() -> None:
    url = fresh_database("model")
    passages = corpus(6)
    sync(url, "docs", snapshot_of(passages, "bow64", SETTINGS), embedder(WordVectors(), False))
    generation = _scalar(url, "SELECT generation FROM anchorgate_collections")
    other = snapshot_of(passages[:3], "minilm-abc", SETTINGS)
    with pytest.raises(VectorStoreDataError) as caught:
        sync(url, "docs", other, embedder(WordVectors(), False))
    line = caught.value.one_line()
    assert caught.value.exit_code == 65 and "\n" not in line
    assert "'docs'" in line and "bow64" in line and "minilm-abc" in line and "vector_collection" in line
    assert _scalar(url, "SELECT generation FROM anchorgate_collections") == generation
    assert _scalar(url, "SELECT count(DISTINCT doc_id) FROM anchorgate_chunks") == str(len(passages))


def test_searching_a_missing_collection_or_an_empty_database_names_the_remedy() -> None:
    url = fresh_database("empty")
    with pytest.raises(VectorStoreDataError) as caught:
        PgSearcher(url, "docs")
    assert "has no anchorgate tables yet (index a corpus into it first: anchorgate index" in caught.value.one_line()
    sync(url, "docs", snapshot_of(corpus(3), "bow64", SETTINGS), embedder(WordVectors(), False))
    with pytest.raises(VectorStoreDataError, match="has no collection 'nope'"):
        PgSearcher(url, "nope").search("owls", WordVectors().embed_query("owls"))


def _row_versions(url: str) -> dict[str, str]:
    """chunk id → xmin (the transaction that wrote the row): unchanged when a sync left the row alone."""
    rows = pg_server().psql("SELECT id || ' ' || xmin::text FROM anchorgate_chunks", database=url.rsplit("/", 1)[1])
    return dict(line.split(" ") for line in rows.splitlines())


def _scalar(url: str, sql: str) -> str:
    return pg_server().psql(sql, database=url.rsplit("/", 1)[1]).strip()


def test_ts_rank_mode_ranks_full_text_matches_by_postgres_ts_rank(mirrored: tuple[HybridSearcher, PgSearcher]) -> None:
    faiss, pg = mirrored
    ts = PgSearcher(pg.url, pg.collection, sparse="ts_rank")
    vector = WordVectors().embed_query("bear salmon river")
    hits = ts.search("bear salmon river", vector, pool_k=20, mode="bm25")
    by_rank = [h.sparse for h in sorted(hits, key=lambda h: h.rank)]  # (the final order also has priors)
    assert hits and by_rank == sorted(by_rank, reverse=True)
    assert all(0 < h.sparse < 1 for h in hits)  # ts_rank's scale, not BM25's
    assert {h.row for h in hits} <= {h.row for h in pg.search("bear salmon river", vector, pool_k=60, mode="bm25")}
    dense = ts.search("bear salmon river", vector, pool_k=10, mode="dense")
    assert [h.chunk.id for h in dense] == [h.chunk.id for h in faiss.search("bear salmon river", vector, pool_k=10,
                                                                           mode="dense")]  # fmt: skip

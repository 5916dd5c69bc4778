"""The PostgreSQL store as a LangChain VectorStore and retriever, with the real all-MiniLM-L6-v2 embeddings."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from anchorgate.tools.index.embeddings import load_embeddings
from anchorgate.tools.postgres.store import VectorStoreDataError
from anchorgate.tools.postgres.vectorstore import PgVectorStore
from tests.fakes import BagOfWordsEmbeddings
from tests.unit.pg_helpers import fresh_database

TEXTS = [
    "Owls are nocturnal birds of prey; they hunt mice and voles at night.",
    "Green tea is brewed from the dried leaves of Camellia sinensis.",
    "Salmon swim upstream to spawn in the rivers where they hatched.",
    "A Python generator function uses yield to produce values lazily.",
]
METAS = [{"title": "Owls", "source": "zoo"}, {"title": "Tea"}, {"title": "Salmon", "habitat": "river"}, {"title": "Py"}]
IDS = ["owls", "tea", "salmon", "generators"]


class Counting(Embeddings):
    """The real model, counting the texts it embeds."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.model_name = getattr(inner, "model_name", "")
        self.documents = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def store() -> tuple[PgVectorStore, Counting]:
    embeddings = Counting(load_embeddings())
    created = PgVectorStore.from_texts(TEXTS, embeddings, METAS, ids=IDS, url=fresh_database("lc"), collection="notes")
    assert embeddings.documents == len(TEXTS)
    return created, embeddings


def _ids(docs: Sequence[object]) -> list[str]:
    return [d.id for d in docs]  # type: ignore[attr-defined]


def test_it_is_a_langchain_vector_store_with_similarity_search(store: tuple[PgVectorStore, Counting]) -> None:
    vs, _ = store
    assert isinstance(vs, VectorStore)
    docs = vs.similarity_search("What do owls eat?", k=2)
    assert _ids(docs)[0] == "owls" and len(docs) == 2
    assert docs[0].metadata == {"id": "owls", "doc_id": "owls", "title": "Owls", "source": "zoo"}
    scored = vs.similarity_search_with_score("salmon spawning rivers", k=4)
    assert scored[0][0].id == "salmon" and scored[0][0].metadata["habitat"] == "river"
    assert [s for _, s in scored] == sorted((s for _, s in scored), reverse=True) and 0.3 < scored[0][1] <= 1.0
    relevance = vs.similarity_search_with_relevance_scores("salmon spawning rivers", k=1)
    assert relevance[0][1] == pytest.approx(scored[0][1])


def test_as_retriever_and_the_hybrid_retriever(store: tuple[PgVectorStore, Counting]) -> None:
    vs, _ = store
    assert _ids(vs.as_retriever(search_kwargs={"k": 1}).invoke("how is green tea made"))[0] == "tea"
    hybrid = vs.as_hybrid_retriever(pool_k=3, relevance_floor=0.3).invoke("generator yield")
    assert _ids(hybrid)[0] == "generators" and all(d.metadata["sparse"] >= 0 for d in hybrid)
    assert len(hybrid) < len(TEXTS)  # the floor kept unrelated passages out


def test_adding_again_replaces_by_id_and_embeds_only_new_texts(store: tuple[PgVectorStore, Counting]) -> None:
    vs, embeddings = store
    before = embeddings.documents
    assert vs.add_texts(TEXTS[:2], METAS[:2], ids=IDS[:2]) == IDS[:2]
    assert embeddings.documents == before  # both texts were stored already
    vs.add_texts(["Barn owls nest in old barns."], [{"title": "Barn owls"}], ids=["owls"])
    assert embeddings.documents == before + 1
    found = vs.get_by_ids(["owls", "nope", "tea"])
    assert [d.page_content for d in found] == ["Barn owls nest in old barns.", TEXTS[1]]
    assert vs.delete(["tea"]) is True and vs.get_by_ids(["tea"]) == []
    assert "tea" not in _ids(vs.similarity_search("green tea leaves", k=4))


def test_vectors_of_another_model_are_refused(store: tuple[PgVectorStore, Counting]) -> None:
    vs, _ = store
    other = PgVectorStore(vs.url, vs.collection, BagOfWordsEmbeddings(32))
    with pytest.raises(VectorStoreDataError, match="was indexed with embedding model"):
        other.add_texts(["Bats use echolocation."])

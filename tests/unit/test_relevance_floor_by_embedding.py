"""An index embedded with multilingual-e5 is gated by `retrieval.e5_scale`'s floor, any other by its own.

The two models score on different scales: on e5, A's English-chosen 0.30 took FacQA's gold passage
away from 3 of questions 1-60 (docs/benchmark-log.md, 2026-11-24: the e5 relevance floor).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.agents.retriever_worker import relevance_floor
from anchorgate.api import aask
from anchorgate.graph.presets import load_preset
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import DenseIndex, build_or_load
from anchorgate.tools.index.embeddings import E5
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, quoting_aware

PASSAGES = [
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis in China and Japan."),
]


class NamedBagOfWords(BagOfWordsEmbeddings):
    """The bag-of-words fake, under a model name the graph reads."""

    def __init__(self, model_name: str) -> None:
        super().__init__(256)
        self.model_name = model_name


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> DenseIndex:
    folder = tmp_path_factory.mktemp("idx")
    embeddings = BagOfWordsEmbeddings(256)
    return build_or_load(PASSAGES, embeddings, "bow256", ChunkingSettings(120, 20), folder, progress=False)


def test_the_floor_follows_the_embedding_model(index: DenseIndex) -> None:
    config = load_preset("A")
    assert (config.retrieval.relevance_floor, config.retrieval.e5_scale["retrieval.relevance_floor"]) == (0.30, 0.20)
    model = ScriptedChatModel(script=lambda prompt: "")
    assert relevance_floor(config, Services(index, NamedBagOfWords(E5), model, "toy")) == 0.20
    assert relevance_floor(config, Services(index, NamedBagOfWords("all-MiniLM-L6-v2"), model, "toy")) == 0.30


async def _ask(tmp_path: Path, index: DenseIndex, model_name: str, **overrides: Any) -> dict[str, Any]:
    model = ScriptedChatModel(script=quoting_aware(lambda prompt: "Owls hunt mice at night [1]."), report_usage=True)
    services_id = register_services(Services(index, NamedBagOfWords(model_name), model, "toy"))
    settings = {
        "resources.services_id": services_id,
        "resources.checkpoint_db": str(tmp_path / f"{model_name}.sqlite"),
        **overrides,
    }
    return await aask("What do owls hunt at night?", preset="A", overrides=settings)


async def test_an_e5_index_is_gated_by_its_own_floor(tmp_path: Path, index: DenseIndex) -> None:
    high_e5_floor = {"retrieval.e5_scale[retrieval.relevance_floor]": 0.99, "retrieval.relevance_floor": 0.0}
    gated = await _ask(tmp_path, index, E5, **high_e5_floor)
    assert (gated["decision"], gated["reason"]) == ("ABSTAIN", "ABSTAIN_NO_EVIDENCE")
    other = await _ask(tmp_path, index, "all-MiniLM-L6-v2", **high_e5_floor)
    assert other["decision"] == "STOP" and other["citations"][0]["title"] == "Owls"

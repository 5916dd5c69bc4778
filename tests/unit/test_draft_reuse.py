"""The generator keeps its draft when a pass leaves the context as it was (agents/generator.py).

The anchor one-shot retry often finds nothing new (most FacQA questions: one passage per question),
and the reader would then get the very prompt it already answered. These tests run the whole graph
with a scripted model and count the answer prompts it was sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorgate.agents.generator import draft_source
from anchorgate.api import aask
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, quoting_aware

PASSAGES = [
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis in China and Japan."),
]
# "Zanzibar" is in no passage: the gate asks for the anchor one-shot retry, which finds nothing new
MISSING_ANCHOR_QUESTION = "What do owls hunt at night in Zanzibar?"


def _answer_prompts(model: ScriptedChatModel) -> list[str]:
    return [p for p in model.prompts if "Question:" in p and "Verdict" not in p and "YES or NO" not in p]


async def _ask(tmp_path: Path, model: ScriptedChatModel, question: str, **overrides: Any) -> dict[str, Any]:
    embeddings = BagOfWordsEmbeddings(256)
    index = build_or_load(PASSAGES, embeddings, "bow256", ChunkingSettings(120, 20), tmp_path / "idx", progress=False)
    services_id = register_services(Services(index, embeddings, model, "toy"))
    settings = {
        "resources.services_id": services_id,
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "retrieval.relevance_floor": 0.0,
    }
    return await aask(question, preset="A", overrides={**settings, **overrides})


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(script=quoting_aware(lambda prompt: "Owls hunt mice at night [1]."), report_usage=True)


async def test_an_unchanged_context_keeps_the_draft_instead_of_a_second_call(tmp_path: Path) -> None:
    model = _model()
    result = await _ask(tmp_path, model, MISSING_ANCHOR_QUESTION)
    gate = result["telemetry"]["gate"]
    assert [g["reason"] for g in gate][0] == "RETRIEVE_ANCHOR_ONE_SHOT" and len(gate) == 2
    assert result["telemetry"]["passes"] == 2
    assert len(_answer_prompts(model)) == 1
    assert result["telemetry"]["drafts_reused"] == 1
    assert result["tokens"]["by_stage"]["generate"]["calls"] == 1
    # the second pass measured the same draft: the gate saw the same support and the same anchors
    first, second = (g["signals"] for g in gate)
    assert (first["overlap"], first["coverage"]) == (second["overlap"], second["coverage"])


async def test_sampling_above_temperature_zero_asks_again(tmp_path: Path) -> None:
    """A reply sampled at temperature > 0 may differ: only a deterministic draft is kept."""
    model = _model()
    result = await _ask(tmp_path, model, MISSING_ANCHOR_QUESTION, **{"llm.temperature": 0.7})
    assert result["telemetry"]["passes"] == 2
    assert len(_answer_prompts(model)) == 2
    assert result["telemetry"]["drafts_reused"] == 0


async def test_a_question_with_no_retry_makes_one_call_and_reuses_nothing(tmp_path: Path) -> None:
    model = _model()
    result = await _ask(tmp_path, model, "What do owls hunt at night?")
    assert result["telemetry"]["passes"] == 1 and result["telemetry"]["drafts_reused"] == 0
    assert len(_answer_prompts(model)) == 1


def test_the_source_fingerprint_changes_with_the_question_the_passages_and_the_style() -> None:
    base = draft_source("Who?", "[1] Owls hunt mice.", True)
    assert base == draft_source("Who?", "[1] Owls hunt mice.", True)
    assert len({base, draft_source("Who else?", "[1] Owls hunt mice.", True),
                draft_source("Who?", "[1] Owls hunt mice. [2] Tea.", True),
                draft_source("Who?", "[1] Owls hunt mice.", False)}) == 4  # fmt: skip

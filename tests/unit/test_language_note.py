"""A Chinese question over a corpus with no Chinese text gets a note saying so, not a silent answer."""

from __future__ import annotations

from pathlib import Path

from anchorgate.api import aask, language_notes
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.services import Services, register_services
from anchorgate.tools.text.language import detect_languages
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, quoting_aware
from tests.unit.test_agents_graph import PASSAGES


def _setup(tmp_path: Path, model: ScriptedChatModel) -> str:
    """The toy English index, its languages recorded as `anchorgate index` records them."""
    embeddings = BagOfWordsEmbeddings(256)
    languages = {"languages": detect_languages(p.text for p in PASSAGES).as_dict()}
    index = build_or_load(PASSAGES, embeddings, "bow256", ChunkingSettings(120, 20), tmp_path / "idx",
                          progress=False, manifest_extra=languages)  # fmt: skip
    return register_services(Services(index, embeddings, model, "toy"))


async def test_a_chinese_question_over_an_english_corpus_is_told_so(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=quoting_aware(lambda prompt: "I don't know."), report_usage=True)
    overrides = {"resources.services_id": _setup(tmp_path, model), "resources.checkpoint_db": str(tmp_path / "c")}
    chinese = await aask("猫头鹰晚上捕猎什么？", preset="A", overrides=overrides)
    assert len(chinese["notes"]) == 1 and "Chinese" in chinese["notes"][0] and "en" in chinese["notes"][0]
    english = await aask("What do owls hunt at night?", preset="A", overrides=overrides)
    assert english["notes"] == []


def test_no_note_when_the_corpus_has_the_question_s_language_or_its_languages_are_unknown() -> None:
    assert language_notes("猫头鹰晚上捕猎什么？", {"languages": {"shares": {"zh": 0.4, "en": 0.6}}}) == []
    assert language_notes("猫头鹰晚上捕猎什么？", {}) == []  # nothing recorded: nothing known
    assert language_notes("Apa yang diburu burung hantu?", {"languages": {"shares": {"en": 1.0}}}) == []

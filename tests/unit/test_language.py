"""Language detection and the per-index embedding model choice (issue 15, item 1), with real models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anchorgate.eval.datasets import load_dataset
from anchorgate.graph.config import Config
from anchorgate.tools.errors import ConfigError
from anchorgate.tools.index.embeddings import E5, MINILM, E5Embeddings, canonical_model, embedding_id, load_embeddings
from anchorgate.tools.index.model_choice import decide_model, follow_existing
from anchorgate.tools.services import Services, load_index_for, register_services
from anchorgate.tools.text.language import detect_languages, is_english, question_language, sample_texts
from tests.fakes import ScriptedChatModel

INDONESIAN = "Keberatan pajak diajukan oleh wajib pajak kepada Direktur Jenderal Pajak dalam jangka waktu tiga bulan."
CHINESE = "北京是中华人民共和国的首都，也是全国的政治和文化中心。"
ENGLISH = "The pass statement is a null operation: nothing happens when it is executed."


def test_scripts_and_function_words_tell_languages_apart() -> None:
    assert question_language(INDONESIAN) == "id"
    assert question_language(CHINESE) == "zh"
    assert question_language(ENGLISH) == "en"
    assert question_language("東京は日本の首都です。") == "ja"
    assert question_language("Le chat est sur la table et il dort dans la maison.") == "latin-other"
    assert question_language("def f(x): return x + 1") == "und"  # code names no language


def test_unknown_script_is_reported_not_fatal() -> None:
    report = detect_languages(["ᚠᚢᚦᚨᚱᚲ ᚷᚹᚺᚾ ᛁᛃᛇᛈ"])
    assert report.unknown_scripts == ("runic",)
    decision = decide_model("", report)
    assert decision.model.name == E5
    assert "runic" in decision.reason and "keyword search still can" in decision.reason


def test_mixed_corpus_and_mixed_file() -> None:
    report = detect_languages([ENGLISH] * 8 + [INDONESIAN, CHINESE])
    assert not is_english(report) and report.recognised()["en"] == pytest.approx(0.8)
    assert decide_model("", report).model.name == E5
    mixed = detect_languages([f"{ENGLISH} {CHINESE * 3}"])
    assert mixed.mixed == 1 and "mixed-language" in mixed.summary()
    assert decide_model("auto", mixed).model.name == E5


def test_english_keeps_minilm_and_settings_win() -> None:
    english = detect_languages([ENGLISH] * 3)
    assert decide_model("", english).model.name == MINILM
    assert decide_model("e5", english).model.name == E5
    assert decide_model("e5", english).reason == "set by embedding_model"
    assert canonical_model("MiniLM") == MINILM and canonical_model(" auto ") == "auto"


@pytest.mark.parametrize(
    ("folder", "language", "english"),
    [("clapnq", None, True), ("nomiracl", "en", True), ("halueval_qa", None, True),
     ("nomiracl", "id", False), ("indonlu_facqa", None, False)],
)  # fmt: skip
def test_dataset_questions_get_the_model_of_their_language(
    datasets_dir: Path, folder: str, language: str | None, english: bool
) -> None:
    """No English question of these sets moves off MiniLM (English results unchanged); Indonesian ones move."""
    items = [item for item in load_dataset(datasets_dir / folder, language=language, limit=200).items if item.passages]
    verdicts = [is_english(detect_languages(sample_texts(list(item.passages)))) for item in items]
    if english:
        assert all(verdicts), f"{verdicts.count(False)} English questions would use multilingual-e5"
    else:
        assert verdicts.count(False) >= 0.98 * len(items)


def test_e5_adds_query_and_passage_prefixes_and_ranks_chinese() -> None:
    model = load_embeddings("e5")
    assert isinstance(model, E5Embeddings) and embedding_id(model) == model.embedding_id
    text = "中国的首都是哪里？"
    as_query, as_passage = np.asarray(model.embed_query(text)), np.asarray(model.embed_documents([text])[0])
    assert not np.allclose(as_query, as_passage)  # "query: " vs "passage: "
    assert np.linalg.norm(as_query) == pytest.approx(1.0, abs=1e-4)
    passages = ["巴黎是法国的首都。", CHINESE, "Jakarta adalah ibu kota Indonesia."]
    scores = np.asarray(model.embed_documents(passages)) @ as_query
    assert int(np.argmax(scores)) == 1
    assert model.embed_query(text) == model.embed_query(text)  # deterministic
    # the shared E5 direction is removed: unrelated texts score low, as with MiniLM (raw E5: ~0.8)
    unrelated = np.asarray(model.embed_documents(["Kucing itu tidur.", "The stock market fell on Monday."]))
    assert float(unrelated[0] @ unrelated[1]) < 0.4
    assert scores[1] - scores[0] > 0.1
    assert len(model.embed_query("bad \udcff text \x00 here")) == 384  # never a crash on odd text


def _corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "dokumen"
    folder.mkdir()
    (folder / "pajak.txt").write_text(INDONESIAN, encoding="utf-8")
    (folder / "bank.txt").write_text("Peraturan ini mengatur penyertaan modal negara pada bank umum.", encoding="utf-8")
    return folder


def test_index_records_the_choice_and_a_query_with_another_model_is_refused(tmp_path: Path) -> None:
    config = Config().replace(
        **{"resources.corpus": str(_corpus(tmp_path)), "resources.cache_dir": str(tmp_path / "cache")}
    )
    index, embeddings, _ = load_index_for(config, progress=False, repair=True)
    assert index.manifest["embedding_model"] == E5 and index.manifest["languages"]["shares"] == {"id": 1.0}
    assert "→ embedding model multilingual-e5-small (auto: id)" in index.choice
    assert isinstance(embeddings, E5Embeddings)
    with pytest.raises(ConfigError) as refused:
        load_index_for(config.replace(**{"resources.embedding_model": "minilm"}), progress=False)
    assert "indexed with the embedding model multilingual-e5-small" in str(refused.value)
    assert "--set resources.embedding_model=" in str(refused.value.hint)
    again, _, _ = load_index_for(config, progress=False)  # auto follows the index, nothing rebuilt
    assert again.path == index.path and not again.fresh


def test_auto_follows_an_index_built_with_an_explicit_model(tmp_path: Path) -> None:
    config = Config().replace(
        **{"resources.corpus": str(_corpus(tmp_path)), "resources.cache_dir": str(tmp_path / "cache")}
    )
    built, _, _ = load_index_for(config.replace(**{"resources.embedding_model": "minilm"}), progress=False, repair=True)
    assert built.manifest["embedding_model"] == MINILM
    followed, embeddings, _ = load_index_for(config, progress=False)
    assert followed.path == built.path and not isinstance(embeddings, E5Embeddings)
    assert "the model `anchorgate index" in followed.choice


def test_registered_bundle_with_the_wrong_model_is_refused(tmp_path: Path) -> None:
    config = Config().replace(
        **{"resources.corpus": str(_corpus(tmp_path)), "resources.cache_dir": str(tmp_path / "cache")}
    )
    index, embeddings, _ = load_index_for(config, progress=False, repair=True)
    llm = ScriptedChatModel(script=[])
    assert register_services(Services(index, embeddings, llm, "ok"))  # the right model is accepted
    with pytest.raises(ConfigError, match="was built with multilingual-e5-small"):
        register_services(Services(index, load_embeddings("minilm"), llm, "wrong"))


def test_follow_existing_without_indexes_keeps_the_decision() -> None:
    decision = decide_model("minilm", detect_languages([INDONESIAN]))
    assert follow_existing(decision, {}, "corpus") is decision

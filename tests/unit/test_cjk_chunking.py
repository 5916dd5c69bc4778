"""Chinese text is chunked at its sentence ends (。！？, then ；and ，、), English and Indonesian as before.

The Chinese article below is ordinary prose in long paragraphs (no line breaks inside them), the
case where the old separators — all followed by a space — found nothing and cut every paragraph
wherever the token count ran out. Seed 003 (../shared/seeds, a real Chinese design write-up with
English terms and code) is checked too when it is there. English and Indonesian corpora are
compared chunk id for chunk id with the splitter as it was before the CJK separators.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from langchain_text_splitters import RecursiveCharacterTextSplitter

from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.corpus import chunking
from anchorgate.tools.corpus.chunking import CJK_SENTENCE_END, ChunkingSettings, chunk_passages
from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.corpus.load import load_corpus
from anchorgate.tools.index.build import build_or_load, chunker_fingerprint, expected_for
from anchorgate.tools.text.sentences import period_break_pattern
from anchorgate.tools.text.tokens import ENCODING_NAME, count_tokens
from tests.fakes import BagOfWordsEmbeddings

DATASETS = Path(__file__).resolve().parents[3] / "shared" / "datasets"
SEED_003 = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "003_62bf525b29b8e63e.txt"
OLD_SEPARATORS = ["\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ", ""]  # before the CJK separators

CHANGJIANG = (
    "长江是亚洲第一长河，也是世界第三长河，全长约六千三百公里。它发源于青藏高原唐古拉山脉各拉丹冬峰的西南侧，"
    "干流流经青海、西藏、四川、云南、重庆、湖北、湖南、江西、安徽、江苏和上海，最后在上海崇明岛附近注入东海。"
    "长江流域面积约一百八十万平方公里，约占中国陆地面积的五分之一。流域内气候温暖湿润，雨量充沛，"
    "自古以来就是中国重要的农业区，有“鱼米之乡”的美称。为什么长江中下游的湖泊这么多？"
    "这是因为地势低平，河道弯曲，历史上泥沙淤积和洪水泛滥不断改变着河湖的面貌。\n\n"
    "长江上游河段称为金沙江，水流湍急，落差很大，蕴藏着丰富的水能资源。三峡位于重庆奉节和湖北宜昌之间，"
    "由瞿塘峡、巫峡和西陵峡组成，两岸山高谷深，风景十分壮丽。三峡工程是世界上装机容量最大的水电站，"
    "大坝全长约二千三百米，坝顶高程一百八十五米，于二零零六年全线建成。它的作用包括防洪、发电和航运；"
    "但是，它也带来了移民安置、生态保护和文物保护等问题，引起了长期的讨论。\n\n"
    "长江也是中国最繁忙的内河航道。从上海到重庆，万吨级船队可以直达武汉，五千吨级船舶可以到达重庆！"
    "沿江分布着上海、南京、武汉、重庆等大城市，长江经济带的人口和经济总量都超过全国的四成。"
    "近年来，国家实行长江十年禁渔，希望恢复中华鲟、长江江豚等珍稀物种的种群；"
    "科学家说：“保护长江，就是保护我们自己。”这句话已经成为许多人的共识。"
)


def _splits(chunks: list[Chunk], source: str) -> list[tuple[str, str]]:
    """(text before the cut, what follows it) for every chunk that ends inside a line of `source`."""
    cuts, start = [], 0
    for chunk in chunks:
        at = source.find(chunk.text, start)
        assert at >= 0, chunk.text
        end = at + len(chunk.text)
        if end < len(source) and source[end] not in "\n":
            cuts.append((chunk.text, source[end : end + 10]))
        start = at + 1
    return cuts


def _old_chunks(passages: list[Passage], settings: ChunkingSettings, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Chunk ids made by the splitter as it was before the CJK separators (literal separators, but
    ". " not after an initial or a title, a later rule of its own: test_chunking_and_corpus.py)."""

    def old_splitter(settings: ChunkingSettings) -> RecursiveCharacterTextSplitter:
        return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=ENCODING_NAME,
            chunk_size=settings.chunk_tokens,
            chunk_overlap=settings.overlap_tokens,
            separators=[period_break_pattern() if s == ". " else re.escape(s) for s in OLD_SEPARATORS],
            is_separator_regex=True,
            keep_separator="end",
            disallowed_special=(),
        )

    with monkeypatch.context() as patch:
        patch.setattr(chunking, "make_splitter", old_splitter)
        return [c.id for c in chunk_passages(passages, settings)]


@pytest.mark.parametrize("settings", [ChunkingSettings(120, 20), ChunkingSettings(64, 8), ChunkingSettings(40, 0)])
def test_chinese_prose_is_cut_at_sentence_ends(settings: ChunkingSettings) -> None:
    chunks = chunk_passages([Passage("changjiang", "长江", CHANGJIANG)], settings)
    assert len(chunks) >= 4
    assert all(count_tokens(c.text) <= settings.chunk_tokens for c in chunks)
    cuts = _splits(chunks, CHANGJIANG)
    assert cuts  # the paragraphs are longer than a chunk: they are cut inside
    for text, _ in cuts:
        # a sentence end (with its closing quote), or — inside a sentence longer than the chunk — ；，、
        assert re.search(f"(?:{CJK_SENTENCE_END}|[；，、])$", text), text
    sentence_cuts = [text for text, _ in cuts if re.search(f"{CJK_SENTENCE_END}$", text)]
    assert len(sentence_cuts) >= len(cuts) // 2  # mostly whole sentences, not clauses
    assert not [text for text, after in cuts if text.endswith("。") and after.startswith("”")]  # quote kept


def test_a_sentence_ending_in_a_quote_keeps_its_quote() -> None:
    text = "他说：“我们明天出发。”大家都同意了。" * 30
    chunks = chunk_passages([Passage("q", "", text)], ChunkingSettings(40, 0))
    assert all(c.text.endswith(("。”", "了。")) for c in chunks)
    assert not any(c.text.startswith("”") for c in chunks)


@pytest.mark.skipif(not SEED_003.is_file(), reason="../shared/seeds is not on this machine")
def test_a_real_chinese_document_is_never_cut_inside_a_word() -> None:
    text = SEED_003.read_text(encoding="utf-8")
    for settings in (ChunkingSettings(120, 20), ChunkingSettings(64, 8)):
        chunks = chunk_passages([Passage("seed003", "HW3", text)], settings)
        for section_text in {s.text for s in chunking.sections(text)}:
            mine = [c for c in chunks if c.text in section_text]
            for before, after in _splits(mine, section_text):
                # inside a line: at a CJK or Latin separator, never between two characters of a word
                assert re.search(f"(?:{CJK_SENTENCE_END}|[；，、.!?;,])$", before) or after[:1].isspace(), (
                    before[-20:],
                    after,
                )


def test_english_and_indonesian_chunks_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    corpora = {"pydoc": load_corpus("pydoc").passages}
    if (DATASETS / "squad2_id_translated").is_dir():
        corpora["squad2-id"] = list(load_dataset(DATASETS / "squad2_id_translated").corpus)[:400]
    if (DATASETS / "hotpotqa_sample").is_dir():
        corpora["hotpotqa"] = list(load_dataset(DATASETS / "hotpotqa_sample").corpus)[:400]
    for name, passages in corpora.items():
        for settings in (ChunkingSettings(120, 20), ChunkingSettings(48, 8)):
            new = [c.id for c in chunk_passages(passages, settings)]
            assert new == _old_chunks(passages, settings, monkeypatch), name


def test_only_a_corpus_with_cjk_punctuation_gets_another_chunker_fingerprint(tmp_path: Path) -> None:
    settings = ChunkingSettings(64, 8)
    english = [Passage("en", "Owls", "Owls hunt mice at night. Barn owls nest in barns, towers and trees.")]
    chinese = [Passage("zh", "长江", CHANGJIANG)]
    assert expected_for("m", settings, english).chunker_fingerprint == chunker_fingerprint(settings)
    assert expected_for("m", settings, english + chinese).chunker_fingerprint == chunker_fingerprint(settings, True)
    assert chunker_fingerprint(settings, True) != chunker_fingerprint(settings)
    # an index of each: the Chinese one was made with the CJK probe, so older chunks would not be read as current
    embeddings = BagOfWordsEmbeddings(64)
    en_index = build_or_load(english, embeddings, "bow", settings, tmp_path, progress=False)
    zh_index = build_or_load(chinese, embeddings, "bow", settings, tmp_path, progress=False)
    assert en_index.manifest["chunker_fingerprint"] == chunker_fingerprint(settings)
    assert zh_index.manifest["chunker_fingerprint"] == chunker_fingerprint(settings, True)
    assert all(re.search(f"(?:{CJK_SENTENCE_END}|[；，、])$", c.text) for c in zh_index.chunks[:-1])

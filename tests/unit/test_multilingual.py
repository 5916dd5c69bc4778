"""Indonesian and Chinese text handling (issue 15, item 2): tokens, sentences, IDK, anchors, citations, prompts."""

from __future__ import annotations

import re

import pytest

from anchorgate.prompts import get_prompt, render
from anchorgate.tools.answer.citations import resolve_citations
from anchorgate.tools.answer.short_answer import short_answer_span
from anchorgate.tools.answer.text import is_idk, normalize_words
from anchorgate.tools.question.anchors import anchor_coverage, extract_anchors, question_type
from anchorgate.tools.retrieval import bm25
from anchorgate.tools.retrieval.bm25 import BM25Index, tokenize
from anchorgate.tools.text.cjk import bigrams, split_cjk
from anchorgate.tools.text.sentences import split_sentences
from anchorgate.tools.text.stopwords import ENGLISH_STOPWORDS

CHINESE_PASSAGES = [
    "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
    "上海是中国最大的城市，位于长江入海口。",
    "长城是古代中国修建的军事防御工程，全长两万多公里。",
]


def test_cjk_runs_become_bigrams_and_other_text_is_unchanged() -> None:
    assert bigrams("北京是首都") == ["北京", "京是", "是首", "首都"] and bigrams("京") == ["京"]
    assert split_cjk(["python的库", "2019年"]) == ["python", "的库", "2019", "年"]
    english = "Mr. O'Neil's café costs $3.50 — isn't it 20% off? a == b"
    assert normalize_words(english) == re.findall(r"\w+", "mr. o'neil's cafe costs $3.50 — isn't it 20% off? a == b")
    plain = [t for t in bm25._TERM.findall(bm25.normalize_text(english)) if t not in ENGLISH_STOPWORDS]
    assert tokenize(english) == plain  # the tokenizer as it was before CJK handling


def test_bm25_finds_a_chinese_passage_for_a_chinese_question() -> None:
    index = BM25Index.build(CHINESE_PASSAGES)
    assert [row for row, _ in index.search("中国的首都是哪里？", 3)][0] == 0
    assert [row for row, _ in index.search("长城有多长？", 3)][0] == 2
    assert "什么" not in index.tokenize("长城是什么？")  # question words are stopwords


def test_chinese_sentences_split_on_full_stops_with_offsets() -> None:
    text = "北京是首都。上海是最大的城市！你知道吗？他说：“走吧。”然后离开了。"
    sentences = split_sentences(text)
    expected = ["北京是首都。", "上海是最大的城市！", "你知道吗？", "他说：“走吧。”", "然后离开了。"]
    assert [s.text for s in sentences] == expected
    assert all(text[s.start : s.end] == s.text for s in sentences)


@pytest.mark.parametrize(
    "answer",
    ["Saya tidak tahu.", "Tidak diketahui.", "Teks tersebut tidak menyebutkan jumlahnya.",
     "Pertanyaan ini tidak dapat dijawab dari bagian tersebut.", "我不知道。", "无法回答这个问题。",
     "文档中没有提到这个信息。", "I don't know"],
)  # fmt: skip
def test_indonesian_and_chinese_refusals_are_idk(answer: str) -> None:
    assert is_idk(answer)


@pytest.mark.parametrize(
    "answer",
    ["Penyebab kebakaran tidak diketahui, kata polisi [1].", "北京是中国的首都[1]。我不知道别的。",
     "Soekarno adalah presiden pertama Indonesia.", "是的，北京是首都。"],
)  # fmt: skip
def test_answers_that_say_something_are_not_idk(answer: str) -> None:
    assert not is_idk(answer)


def test_chinese_question_types_and_anchors() -> None:
    assert question_type("北京是中国的首都吗？") == "yes_no"
    assert question_type("2008年北京奥运会有多少个国家参加？") == "numeric"
    assert question_type("上海和北京哪个更大？") == "comparison"
    assert question_type("中国有哪些直辖市？") == "list"
    assert question_type("为什么天空是蓝色的？") == "other"
    assert question_type("《红楼梦》的作者是谁？") == "factoid"
    question = "2008年《北京欢迎你》由NBA球星和Jackie Chan演唱吗？"
    anchors = {(a.text, a.kind, a.essential) for a in extract_anchors(question)}
    assert {("2008", "year", True), ("北京欢迎你", "title", True), ("NBA", "acronym", True)} <= anchors
    assert ("Jackie Chan", "entity", True) in anchors
    keywords = [a.text for a in extract_anchors("北京是中国的首都吗？")]
    assert keywords == ["北京", "中国", "首都"]  # 都 inside 首都 is not cut as a function word


def test_chinese_anchor_coverage_is_a_substring_match() -> None:
    anchors = extract_anchors("《红楼梦》的作者是谁？")
    assert anchor_coverage(anchors, ["曹雪芹创作了《红楼梦》。"]) == (1.0, [])
    assert anchor_coverage(anchors, ["《西游记》的作者是吴承恩。"])[0] == 0.0


def test_uncited_chinese_sentence_is_attributed_to_the_passage_that_says_it() -> None:
    context = [
        {"n": i + 1, "id": f"p{i}", "title": "", "source": "s", "text": t} for i, t in enumerate(CHINESE_PASSAGES)
    ]
    citations, invalid = resolve_citations("长城全长两万多公里。", context)
    assert invalid == [] and [c["n"] for c in citations] == [3] and citations[0]["attributed"]
    assert citations[0]["quote"] == "长城是古代中国修建的军事防御工程，全长两万多公里。"


def test_chinese_short_answers() -> None:
    assert short_answer_span("北京是中国的首都吗？", "是的，北京是中国的首都[1]。") == "yes"
    assert short_answer_span("长城是在中国吗？", "不是[1]。") == "no"
    assert short_answer_span("《红楼梦》的作者是谁？", "曹雪芹[1]。") == "曹雪芹"
    assert short_answer_span("谁？", "我不知道。") == ""


def test_answer_prompts_ask_for_the_question_language_and_english_prompts_are_unchanged() -> None:
    documents = "<documents>\n[1] T\nteks\n</documents>"
    english = "What does the pass statement do?"
    for name in ("generate_user", "answer_quoted_user"):
        assert render(name, documents=documents, question=english) == get_prompt(name).format(
            documents=documents, question=english
        )
    indonesian = render("answer_quoted_user", documents=documents, question="Berapa lama jangka waktu keberatan?")
    lines = indonesian.splitlines()
    assert lines[lines.index("Question: Berapa lama jangka waktu keberatan?") + 1] == (
        "Write the answer in Indonesian, the language of the question."
    )
    assert "Write the answer in Chinese" in render("generate_user", documents=documents, question="北京是首都吗？")
    judge = render("judge_user", documents=documents, question="北京是首都吗？", answer="是")
    assert "Write the answer" not in judge  # the judge replies with one word, in English


def test_colloquial_indonesian_question_words_are_not_anchors() -> None:
    assert [a.text for a in extract_anchors("Gimana karet terbuat?")] != ["gimana karet terbuat"]
    assert "Gimana" not in [a.text for a in extract_anchors("Gimana cara racik bumbu masak yang enak?")]

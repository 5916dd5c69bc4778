"""Chinese questions: anchors (titles, quotes, dates, years, both scripts),
superlatives asked and stated, full-width input, and the note for a corpus without Chinese."""

from __future__ import annotations

import pytest

from anchorgate.tools.question.anchors import anchor_coverage, extract_anchors
from anchorgate.tools.question.superlative import asks_superlative, superlative_stated
from anchorgate.tools.question.validation import validate_question
from anchorgate.tools.text.language import LanguageReport, language_mismatch, question_language


def _anchors(question: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(a.text, a.kind, a.aliases) for a in extract_anchors(question) if a.essential]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("他在1986年10月9日做了什么？", [("1986年10月9日", "date", ("1986-10-09", "9 October 1986"))]),
        ("1986年10月发生了什么？", [("1986年10月", "date", ("October 1986",))]),
        ("10月9日是什么节日？", [("10月9日", "date", ("9 October",))]),
        ("1986年谁当选了总统？", [("1986", "year", ())]),
        ("一九八六年谁当选了总统？", [("一九八六", "year", ("1986",))]),
        ("《红楼梦》的作者是谁？", [("红楼梦", "title", ("紅樓夢",))]),
        ("〈狂人日記〉是谁写的？", [("狂人日記", "title", ("狂人日记",))]),
        ("「鲁迅」的原名是什么？", [("鲁迅", "quoted", ("魯迅",))]),
        ("“中文”这个词是什么意思？", [("中文", "quoted", ())]),
    ],
)
def test_chinese_anchors(question: str, expected: list[tuple[str, str, tuple[str, ...]]]) -> None:
    assert _anchors(question) == expected


def test_a_question_in_one_script_is_covered_by_evidence_in_the_other() -> None:
    anchors = extract_anchors("《紅樓夢》的作者是誰？")
    assert anchor_coverage(anchors, ["《红楼梦》是曹雪芹所著的长篇小说。"]) == (1.0, [])
    assert anchor_coverage(anchors, ["《水浒传》是施耐庵所著。"])[0] == 0.0


def test_a_date_anchor_is_found_in_chinese_and_english_evidence_only_when_the_day_is_there() -> None:
    anchors = extract_anchors("1986年10月9日发生了什么？")
    assert anchor_coverage(anchors, ["1986年10月9日，大会在北京召开。"])[0] == 1.0
    assert anchor_coverage(anchors, ["On 9 October 1986 the meeting opened."])[0] == 1.0
    assert anchor_coverage(anchors, ["1986年10月19日，大会在北京召开。"])[0] == 0.0


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("世界上最高的山是哪座？", True), ("中國最長的河流是哪條？", True), ("第一位登上月球的人是谁？", True),
        ("唯一的女性成员是谁？", True), ("首位女总统是谁？", True), ("离北京最近的城市是哪个？", True),
        ("中国的首都是哪里？", False), ("日本首相是谁？", False), ("最近有什么新闻？", False),
        ("首先要做什么？", False), ("第一百位顾客是谁？", False), ("长江有多长？", False),
    ],
)  # fmt: skip
def test_asks_superlative(question: str, asks: bool) -> None:
    assert asks_superlative(question) is asks


@pytest.mark.parametrize(
    ("sentence", "question", "stated"),
    [
        ("长江是中国最长的河流。", "中国最长的河流是哪条？", True),
        ("長江是中國最長的河流。", "中国最长的河流是哪条？", True),  # the evidence in the other script
        ("长江全长6300公里，流经中国多个省份。", "中国最长的河流是哪条？", False),  # names it, states no superlative
        ("黄河是中国最大的泥沙河流。", "中国最长的河流是哪条？", False),  # another superlative
        ("他说这是他参加过最长的会议。", "中国最长的河流是哪条？", False),  # the superlative of something else
        ("阿姆斯特朗是首位登上月球的人。", "第一位登上月球的人是谁？", True),
        ("阿姆斯特朗是最早登上月球的宇航员。", "第一位登上月球的人是谁？", True),
        ("阿姆斯特朗曾登上月球。", "第一位登上月球的人是谁？", False),
        ("她是乐队唯一的女性成员。", "乐队唯一的女性成员是谁？", True),
        ("长江是中国最长的河流。", "长江有多长？", False),  # the question asks no superlative
    ],
)
def test_superlative_stated(sentence: str, question: str, stated: bool) -> None:
    assert superlative_stated(sentence, question) is stated


def test_full_width_digits_and_letters_are_folded_and_clause_punctuation_kept() -> None:
    assert validate_question("１９８６年ＮＢＡ总冠军是哪支球队？") == "1986年NBA总冠军是哪支球队？"
    assert [a.text for a in extract_anchors(validate_question("１９８６年谁当选？"))][0] == "1986"
    assert validate_question("什么是生成器？") == "什么是生成器？"


def test_language_mismatch_notes_a_chinese_question_over_a_corpus_without_chinese() -> None:
    english = LanguageReport({"en": 1.0}, 10).shares
    note = language_mismatch(question_language("中国的首都是哪里？"), english)
    assert note is not None and "Chinese" in note and "en" in note
    assert language_mismatch("zh", {"en": 0.9, "zh": 0.1}) is None  # some Chinese text is there
    assert language_mismatch("en", {"zh": 1.0}) is None  # only questions without shared letters get the note
    assert language_mismatch("zh", {"und": 1.0}) is None and language_mismatch("zh", {}) is None  # nothing known
    assert language_mismatch("zh", ["id", "en"]) is not None

"""A quoted answer to a Chinese question must stand on quotes that state what the question asks
(`tools/answer/question_match.py`), measured as signal `answer_off_question` (agents/signal_meter.py)."""

from __future__ import annotations

from typing import Any

import pytest

from anchorgate.agents.signal_meter import off_question_lacks
from anchorgate.tools.answer.question_match import is_chinese_question, off_question, question_terms, question_years


def test_question_terms_are_nouns_read_in_simplified_characters() -> None:
    assert question_terms("韩国有哪些足球队？") == ("韩国", "足球队")
    assert question_terms("英國鐵路總長多少？") == question_terms("英国铁路总长多少？")
    assert "多少" not in question_terms("美国有多少所音乐学院？")


def test_question_years() -> None:
    assert question_years("法国1800年人口多少？") == [1800.0]
    assert question_years("一九八六年谁当选了总统？") == [1986.0]
    assert question_years("三年级有多少学生？") == []
    assert question_years("他在1986年10月9日做了什么？") == [1986.0]


@pytest.mark.parametrize(
    ("question", "answer", "quotes", "titles", "lacks"),
    [
        # a figure copied from a sentence about another country, and the country missing
        ("英国铁路总长多少？", "76,473公里", ["德国也是国际铁路联盟（UIC）的成员，其UIC成员代码为80。"], ["德国铁路"],
         ["number", "terms"]),
        # "4" from a sentence that holds no 4
        ("美国有多少所音乐学院？", "4", ["欧柏林音乐学院是美国俄亥俄州欧柏林的一所私立音乐学院。"], [], ["number"]),
        # the figure of another year
        ("日本2019年平均气温多少？", "25.4℃", ["2015年日本平均气温为25.4℃。"], [], ["year"]),
        # the number written another way, the year in Chinese numerals, the title holding a noun
        ("一九九五年阿根廷人口多少？", "三千四百万", ["1995年人口为34000000人。"], ["阿根廷"], []),
        # the quote in Traditional characters
        ("芝加哥市区面积多大？", "606.1 km²", ["依照美國調查署數據，芝加哥市總面積為606.1 km²。"], ["芝加哥"], []),
        # a superlative asked and not stated
        ("中国最长的河流是哪条？", "长江", ["长江全长6300公里，流经中国十一个省份。"], ["长江"], ["superlative"]),
        ("中国最长的河流是哪条？", "长江", ["长江是中国最长的河流。"], ["长江"], []),
    ],
)  # fmt: skip
def test_off_question(question: str, answer: str, quotes: list[str], titles: list[str], lacks: list[str]) -> None:
    assert off_question(question, answer, quotes, titles) == lacks


def test_nothing_to_read_is_nothing_lacking() -> None:
    assert off_question("英国铁路总长多少？", "76,473公里", []) == []
    assert off_question("英国铁路总长多少？", " ", ["英国铁路总长16,000公里。"]) == []


def test_only_chinese_questions_are_read() -> None:
    assert is_chinese_question("英国铁路总长多少？")
    assert not is_chinese_question("How long is the British railway network?")
    assert not is_chinese_question("日本の首都はどこですか")


def _state(question: str, status: str = "quoted", **structure: Any) -> dict[str, Any]:
    quote = {"passage": 1, "text": "德国也是国际铁路联盟的成员。", "status": "verbatim", "found_in": 1,
             "match": "德国也是国际铁路联盟的成员。"}  # fmt: skip
    return {
        "question": question,
        "context": [{"n": 1, "title": "德国铁路", "text": "德国也是国际铁路联盟的成员。"}],
        "draft_structure": {"status": status, "answer": "76,473公里", "quotes": [quote], **structure},
    }


def test_the_meter_reads_only_quoted_answers_to_chinese_questions() -> None:
    assert off_question_lacks(_state("英国铁路总长多少？"), idk=False) == "number,terms"  # type: ignore[arg-type]
    assert off_question_lacks(_state("英国铁路总长多少？", status="free"), idk=False) is None  # type: ignore[arg-type]
    assert off_question_lacks(_state("英国铁路总长多少？"), idk=True) is None  # type: ignore[arg-type]
    english = _state("How long is the British railway network?")
    assert off_question_lacks(english, idk=False) is None  # type: ignore[arg-type]
    absent = _state("英国铁路总长多少？", quotes=[{"passage": 1, "text": "x", "status": "absent"}])
    assert off_question_lacks(absent, idk=False) == ""  # type: ignore[arg-type]

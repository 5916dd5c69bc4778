"""Chinese numerals, full-width digits and the shared Arabic reading as numbers (tools/text/chinese_numbers.py,
numbers.py, width.py)."""

from __future__ import annotations

import pytest

from anchorgate.tools.answer.short_numbers import numeric_span
from anchorgate.tools.text.chinese_numbers import numbers_in, parse_number, unsupported_numbers
from anchorgate.tools.text.numbers import number_value
from anchorgate.tools.text.width import fold_width


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("三百", 300), ("一千零五", 1005), ("1.2万", 12000), ("两", 2), ("十五", 15), ("3亿", 300_000_000),
        ("１２３", 123), ("二十", 20), ("一百二十五", 125), ("一百五", 150), ("一万五", 15000), ("三千五", 3500),
        ("一亿二千万", 120_000_000), ("两万亿", 2 * 10**12), ("一亿零五万", 100_050_000), ("十万", 100_000),
        ("一九八六", 1986), ("二〇〇八", 2008), ("三点五", 3.5), ("一点二万", 12000), ("百分之三十", 30),
        ("1,200万", 12_000_000), ("1.1万", 11000), ("3千万", 30_000_000), ("零", 0), ("貳佰", 200), ("兩萬", 20000),
        ("１．５万", 15000),
    ],
)  # fmt: skip
def test_parse_number(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["三五", "十百", "一五一十", "abc", "", "百分之", "万一"])
def test_what_is_no_number_parses_as_none(text: str) -> None:
    assert parse_number(text) is None


def test_numbers_in_reads_arabic_full_width_and_chinese_numbers_in_running_text() -> None:
    text = "他生于1986年10月9日，全村有三百人，第一次来，约1.2万人，增长了百分之三十，共１２３个，两个人。"
    assert [(m.text, m.value) for m in numbers_in(text)] == [
        ("1986", 1986), ("10", 10), ("9", 9), ("三百", 300), ("一", 1), ("1.2万", 12000), ("百分之三十", 30),
        ("１２３", 123), ("两", 2),
    ]  # fmt: skip
    for mention in numbers_in(text):
        assert text[mention.start : mention.end] == mention.text


@pytest.mark.parametrize(
    "text",
    ["一些人统一了意见", "千万不要迟到", "百姓", "几十个人", "这十分重要", "两岸关系", "三国演义", "[1]"],
)
def test_numeral_characters_inside_words_are_not_numbers(text: str) -> None:
    assert numbers_in(text) == []


def test_counted_and_ordinal_single_digits_and_ten_minutes_are_numbers() -> None:
    assert [m.value for m in numbers_in("一个")] == [1]
    assert [m.value for m in numbers_in("第三名")] == [3]
    assert [m.value for m in numbers_in("十分钟")] == [10]


def test_unsupported_numbers_compares_values_not_characters() -> None:
    evidence = ["全村共有300人。", "面积1.2万平方公里。"]
    assert unsupported_numbers("全村有三百人[1]，面积一点二万平方公里[2]。", evidence) == []
    assert [m.text for m in unsupported_numbers("全村有四百人[1]。", evidence)] == ["四百"]


def test_fold_width_keeps_length_and_chinese_clause_punctuation() -> None:
    text = "１９８６年，ＮＢＡ的得分是多少？（５０％）"
    folded = fold_width(text)
    assert folded == "1986年，NBA的得分是多少？（50%）" and len(folded) == len(text)
    assert fold_width("北京") == "北京"


@pytest.mark.parametrize(("raw", "value"), [("1,200", 1200), ("1.200", 1200), ("3.5", 3.5), ("3,5", 3.5), ("42", 42)])
def test_one_arabic_reading_for_every_rule(raw: str, value: float) -> None:
    assert number_value(raw) == value


def test_short_answers_still_read_thousands_separators() -> None:
    assert numeric_span("How many people live there?", "About 1,200 people live there.") == "1,200"

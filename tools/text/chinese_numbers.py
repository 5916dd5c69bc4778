"""Numbers written in Chinese, as numbers: 三百 is 300, 一千零五 1005, 1.2万 12000, 两 2, 3亿 300000000.

An answer that says "三百人" and a passage that says "300人" state the same number, and "１２３" (typed
full width) is 123; comparing an answer's numbers with the evidence's needs the values, not the
characters. `parse_number` reads one number; `numbers_in` lists every number in a text — Arabic
(tools/text/numbers.py, the reading the English and Indonesian rules use), full width (folded by
tools/text/width.py) and Chinese — and `unsupported_numbers` gives the numbers of an answer that no
evidence text holds.

Chinese numerals are read by their grammar: digits (零〇 一 二两 … 九, and the financial forms 壹贰叁 …),
the units 十 百 千 inside a section and the section units 万 (10⁴) and 亿 (10⁸), which multiply
what stands before them ("两万亿" = 2 × 10¹²). A trailing digit right after a unit is one unit lower
("一万五" = 15000, "三千五" = 3500), as spoken. A run of three or more bare digits is positional
("一九八六" = 1986, "二〇〇八" = 2008). 兆 is left out: it is 10⁶ on the mainland and 10¹² in Taiwan.

Chinese writes numeral characters inside ordinary words (一些 "some", 统一 "unify", 千万 "by all
means", 百姓 "the people", 十分 "very"), so `numbers_in` is stricter than `parse_number`: a lone
digit counts only before a measure word or after 第 (一个, 第三), a lone unit only as 十, and a number
after 几 (几十, 几百: "tens of", "hundreds of") is no definite number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from anchorgate.tools.text.numbers import NUMBER, number_value
from anchorgate.tools.text.width import fold_width

_DIGITS = {
    "零": 0, "〇": 0, "○": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "貳": 2, "两": 2, "兩": 2, "三": 3, "叁": 3,
    "參": 3, "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "陸": 6, "七": 7, "柒": 7, "八": 8, "捌": 8,
    "九": 9, "玖": 9,
}  # fmt: skip
_SMALL = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_BIG = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_DIGIT_CLASS = "".join(_DIGITS)
_UNIT_CLASS = "".join(_SMALL) + "".join(_BIG)
_SCALE_CLASS = "百佰千仟万萬亿億"  # after Arabic digits ("3千", "1.2万"); "3十" is not written
# Measure words and units a counted number stands before (一个, 三年, 两次): the grammar's closed class.
_MEASURE = frozenset(
    "个個位名人次年月日号號天岁歲种種本部座条條家所只隻件项項届屆层層倍元块塊角分秒周週米克吨噸台辆輛架艘张張页頁"
    "章节節首场場局队隊枚颗顆间間门門套份户戶批支幅篇句段期股匹头頭辈輩代集"
)
_MENTION = re.compile(
    rf"(?P<arabic>(?<![\d.,])(?:{NUMBER})(?:[{_SCALE_CLASS}]+)?)"
    rf"|(?P<percent>百分之(?:{NUMBER}|[{_DIGIT_CLASS}{_UNIT_CLASS}]+(?:[点點][{_DIGIT_CLASS}]+)?))"
    rf"|(?P<chinese>[{_DIGIT_CLASS}{_UNIT_CLASS}]+(?:[点點][{_DIGIT_CLASS}]+[{_UNIT_CLASS}]*)?)"
)
_ARABIC_SCALED = re.compile(rf"({NUMBER})([{_SCALE_CLASS}]*)")
_DECIMAL = re.compile(rf"([{_DIGIT_CLASS}{_UNIT_CLASS}]*)[点點]([{_DIGIT_CLASS}]+)([{_UNIT_CLASS}]*)")


@dataclass(frozen=True)
class NumberMention:
    """One number in a text: as written, where (character offsets into the text), and its value."""

    text: str
    start: int
    end: int
    value: float


def _chinese_integer(text: str) -> int | None:
    """The value of a run of Chinese digits and units, or None when the run is no well-formed number
    ("三五", "十百")."""
    if not text or any(ch not in _DIGITS and ch not in _SMALL and ch not in _BIG for ch in text):
        return None
    if len(text) >= 3 and all(ch in _DIGITS for ch in text):
        return int("".join(str(_DIGITS[ch]) for ch in text))  # positional: 一九八六
    total = section = 0
    digit: int | None = None
    last_unit = top_big = 0  # the unit just read (0 after 零 or a digit), the largest section unit so far
    small_floor = 10**5  # units inside a section must fall: 千 > 百 > 十
    for ch in text:
        if ch in _DIGITS:
            if digit:  # two non-zero digits in a row
                return None
            digit, last_unit = _DIGITS[ch], last_unit if _DIGITS[ch] else 0
        elif ch in _SMALL:
            unit = _SMALL[ch]
            if unit >= small_floor or (digit is None and unit != 10):  # only 十 stands without a digit
                return None
            section += (1 if digit is None else digit) * unit
            digit, last_unit, small_floor = None, unit, unit
        else:
            unit = _BIG[ch]
            if digit is None and not section and not total:  # 万一 ("in case") is no number
                return None
            section += digit or 0
            if unit > top_big:
                total, top_big = (total + section) * unit, unit
            else:
                total += section * unit
            section, digit, last_unit, small_floor = 0, None, unit, 10**5
    if digit and last_unit >= 100:  # 一万五, 三千五: the digit counts one unit lower
        return total + section + digit * last_unit // 10
    return total + section + (digit or 0)


def _chinese_value(text: str) -> Decimal | None:
    """A Chinese numeral with an optional decimal part ("三点五", "一点二万")."""
    decimal = _DECIMAL.fullmatch(text)
    if decimal is None:
        value = _chinese_integer(text)
        return None if value is None else Decimal(value)
    whole = _chinese_integer(decimal.group(1)) if decimal.group(1) else 0
    if whole is None:
        return None
    fraction = Decimal("0." + "".join(str(_DIGITS[ch]) for ch in decimal.group(2)))
    return _scaled(whole + fraction, decimal.group(3))


def _scaled(value: Decimal, scales: str) -> Decimal:
    """A number times the Chinese units after it ("1.2" "万" → 12000; "3" "千万" → 3 × 10⁷)."""
    for ch in scales:
        value *= _SMALL.get(ch) or _BIG[ch]
    return value


def parse_number(text: str) -> float | None:
    """The value of `text` read as one number — Arabic ("1,200"), full width ("１２３"), Arabic with
    Chinese units ("1.2万", "3亿") or Chinese ("三百", "一千零五", "两", "十五", "百分之三十" → 30) — or None."""
    text = fold_width(text).strip()
    if text.startswith("百分之"):
        text = text[3:]
    arabic = _ARABIC_SCALED.fullmatch(text)
    if arabic:
        return float(_scaled(Decimal(str(number_value(arabic.group(1)))), arabic.group(2)))
    value = _chinese_value(text)
    return None if value is None else float(value)


def _counts(run: str, before: str, after: str) -> bool:
    """Whether a run of Chinese numeral characters found in running text is a number, not part of a
    word: see the module docstring."""
    if before == "几":
        return False
    digits = [ch for ch in run if ch in _DIGITS]
    if not digits:  # units alone: only 十 (ten), and not 十分 "very" (十分钟 is ten minutes)
        return run == "十" and (after[:1] != "分" or after[1:2] == "钟")
    if len(run) == 1:
        return before == "第" or after[:1] in _MEASURE
    if all(ch in _DIGITS for ch in run):
        return len(run) >= 3
    return True


def numbers_in(text: str) -> list[NumberMention]:
    """Every number in `text`, in order: Arabic (with Chinese units), full width, and Chinese. A bare
    number in square brackets ("[1]") is a citation marker, not a number the text states."""
    folded = fold_width(text)  # same length: offsets hold for `text`
    found: list[NumberMention] = []
    for m in _MENTION.finditer(folded):
        raw = m.group()
        if folded[m.start() - 1 : m.start()] == "[" and folded[m.end() : m.end() + 1] == "]":
            continue
        if m.group("chinese") and not _counts(raw, folded[m.start() - 1 : m.start()], folded[m.end() : m.end() + 2]):
            continue
        value = parse_number(raw)
        if value is not None:
            found.append(NumberMention(text[m.start() : m.end()], m.start(), m.end(), value))
    return found


def unsupported_numbers(answer: str, evidence: Iterable[str]) -> list[NumberMention]:
    """The numbers of `answer` whose value no evidence text holds, however each writes it ("三百" in the
    answer is supported by "300" in a passage)."""
    held = {mention.value for text in evidence for mention in numbers_in(text)}
    return [mention for mention in numbers_in(answer) if mention.value not in held]

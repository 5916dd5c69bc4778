"""The answer type a Chinese question asks for, in the labels `answer_type.expected_answer_type` uses.

English and Indonesian mark the asked type with a question word ("when", "berapa"); Chinese does
too, in place rather than in front: 什么时候 / 何时 / 哪一年 (when → date), 多少 / 几 / 多大 / 多长 (how
many, how big, how long → number), 谁 / 哪位 (who → name). 哪 / 哪里 / 哪个 (where, which) ask for a
short answer of no type we can check, as "where" and "which" do in English: "any", short.

The question is read in Simplified characters (tools/text/chinese_script.py), so 誰, 幾 and 甚麼 read
as 谁, 几 and 什么. Pure functions: `expected_answer_type` does not call them yet (the evidence
check in tools/retrieval/evidence_strength.py reads English dates, numbers and names only, so a
Chinese "date" question would find no candidate in Chinese evidence until it reads 年月日 and
Chinese numerals, see tools/text/chinese_numbers.py).
"""

from __future__ import annotations

import re
from typing import Literal

from anchorgate.tools.text.chinese_script import to_script

AnswerType = Literal["date", "number", "name", "any"]

# 几月 / 几号 / 几日 ask for a date, 几点 for a time of day (no type we check); 几 otherwise counts.
_WHEN = re.compile(
    r"什么时候|什么时间|何时|几时|何年|哪一?年|哪一?天|哪一?日|哪个月|哪一?个?年代|什么年代|几月|几号|几日|哪一?号|什么日子"
)
_NUMBER = re.compile(r"多少|(?<![这那])几(?![月号日点时乎])|多(?:大|长|高|远|久|重|深|宽|厚|快|少)|百分之几")
_WHO = re.compile(r"谁|哪一?位|哪一?个人|何人|什么人")
_WHICH = re.compile(r"哪(?!些)|叫什么|什么名字|什么地方|何地|何处")  # 哪些 asks for a list: sentences


def chinese_answer_type(question: str) -> AnswerType:
    """date, number, name or any, read from a Chinese question's question words."""
    plain = to_script(question, "simplified")
    if _WHEN.search(plain):
        return "date"
    if _NUMBER.search(plain):
        return "number"
    return "name" if _WHO.search(plain) else "any"


def chinese_short_answer_expected(question: str) -> bool:
    """Whether a Chinese question asks for a short span (a date, number, name, place or choice):
    any of the typed question words, or 哪 / 叫什么 / 什么名字 (which, where, what is it called).
    "X是什么？", 为什么 / 怎么 and 有哪些 (a list) questions are answered in sentences."""
    return chinese_answer_type(question) != "any" or _WHICH.search(to_script(question, "simplified")) is not None

"""Superlative questions in Chinese: asked (最 / 第一 / 唯一 / 首位 …) and stated by the evidence.

"中国最长的河流是哪条？" is answered by a passage that names a long river only if the passage says it
is the longest: "长江全长6300公里" names the Yangtze and its length but states no superlative, and a
reader that answers from it guesses. `asks_superlative` is a property of the question;
`superlative_stated` says whether one evidence sentence states the question's superlative itself,
near what the question is about. Pure functions: the gate does not call them yet.

Markers, read in Simplified characters (so 最長 is 最长):
  最X       the superlative of X (最长, 最大, 最早); 最为X is 最X. Not 最近 "recently" (but 最近的
            "the nearest" is one), 最终 "finally", 最初 "at first".
  第一, 首位/首个/首次/首座 … "the first" (not 第一百 "the 100th", nor 首都 "capital", 首先 "firstly",
            首相 "prime minister": 首 counts only before a measure word). 最早 and 最先 are "first" too.
  唯一      "the only";  之最 "the most … of"; 最后 and 最晚 are "last".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anchorgate.tools.text.chinese_script import to_script
from anchorgate.tools.text.cjk import CHINESE_STOP, CJK_RUN, bigrams

WINDOW = 12
"""Characters either side of a marker within which a word of the question must occur in the evidence
("中国最长的河流": 中国 and 河流 sit right beside 最长)."""

_MARKER = re.compile(
    r"最为?(?!近(?!的)|终|初)(?P<most>[\u4e00-\u9fff])"
    r"|(?P<first>第一(?![十百千万亿])|首(?=[位个次座部批家届款名度例艘架任本支条所场创]))"
    r"|(?P<only>唯一)|(?P<of>之最)"
)
_FIRST_LIKE = {"早": "first", "先": "first", "后": "last", "晚": "last"}
# Characters of question words and particles: a bigram holding one says nothing about the subject.
_QUESTION_CHARS = frozenset("什么哪谁几吗呢吧是的了在有为怎样何多少请问")


@dataclass(frozen=True)
class _Marker:
    kind: str  # "most:长", "first", "last", "only", "of"
    start: int
    end: int


def _markers(text: str) -> list[_Marker]:
    """The superlative markers of `text` (already in Simplified), in order."""
    found: list[_Marker] = []
    for m in _MARKER.finditer(text):
        if m.group("most"):
            kind = _FIRST_LIKE.get(m.group("most"), f"most:{m.group('most')}")
        else:
            kind = next(name for name in ("first", "only", "of") if m.group(name))
        found.append(_Marker(kind, m.start(), m.end()))
    return found


def asks_superlative(question: str) -> bool:
    """Whether the question asks for a superlative: the most, the first, the last or the only one."""
    return bool(_markers(to_script(question, "simplified")))


def _subject_terms(question: str, markers: list[_Marker]) -> set[str]:
    """What the question is about: the bigrams of its Chinese runs with the markers cut out, less
    question words and particles; its Latin words of two letters or more."""
    cut = list(question)
    for marker in markers:
        cut[marker.start : marker.end] = ["|"] * (marker.end - marker.start)
    text = "".join(cut)
    terms = {
        gram
        for run in CJK_RUN.findall(text)
        for gram in bigrams(run)
        if len(gram) == 2 and gram not in CHINESE_STOP and not set(gram) & _QUESTION_CHARS
    }
    return terms | {word.casefold() for word in re.findall(r"[A-Za-z0-9]{2,}", text)}


def superlative_stated(evidence_sentence: str, question: str) -> bool:
    """Whether `evidence_sentence` states the superlative `question` asks about: a marker of the same
    kind (最长 for 最长; 第一, 首位 and 最早 alike for "first") with a word of the question within `WINDOW`
    characters. False when the question asks no superlative."""
    plain_question = to_script(question, "simplified")
    asked = _markers(plain_question)
    if not asked:
        return False
    kinds = {marker.kind for marker in asked}
    evidence = to_script(evidence_sentence, "simplified")
    terms = _subject_terms(plain_question, asked)
    folded = evidence.casefold()
    for marker in _markers(evidence):
        if marker.kind not in kinds and not (marker.kind == "of" or "of" in kinds):
            continue
        if not terms:
            return True
        near = folded[max(0, marker.start - WINDOW) : marker.end + WINDOW]
        if any(term in near for term in terms):
            return True
    return False

"""Numbers in short answers: rule 3 of tools/answer/short_answer.py.

For a numeric question the span is the number the question asks for (an average, a total, or the one
it counts), kept with its currency, scale, unit and, for Indonesian questions, its classifier or
counted noun. The rule has its own markers, mention reading and choice among mentions, so it lives
apart from the other short-answer rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.question.anchors import CURRENCY, NUMBER, SCALE, UNIT
from anchorgate.tools.question.anchors.model import without_particles
from anchorgate.tools.text.numbers import number_value
from anchorgate.tools.text.sentences import split_sentences
from anchorgate.tools.text.stopwords import ENGLISH_STOPWORDS, INDONESIAN_STOPWORDS

MARKER_GAP_WORDS = 3  # "rata-rata usia 25.7": at most this many words between a marker and its number

_CLASSIFIERS = r"orang|jiwa|ekor|buah|kali|unit|butir|lembar|biji|batang|helai|suku|penumpang|korban|kasus"
_AVERAGE_Q = re.compile(r"\b(?:average|averaged|the mean|avg|rata-rata|rerata|per\s+capita)\b", re.IGNORECASE)
_TOTAL_Q = re.compile(r"\b(?:total|overall|in all|altogether|combined|sum|jumlah|keseluruhan)\b", re.IGNORECASE)
_AVERAGE_MARK = re.compile(r"\b(?:average[sd]?|mean|avg|rata-rata|rerata|per\s+capita)\b", re.IGNORECASE)
_APPROX_MARK = re.compile(r"~|≈|\b(?:about|approximately|around|roughly|nearly|sekitar|kira-kira|hampir)\b", re.I)
_TOTAL_MARK = re.compile(
    r"\b(?:total(?:ing|ling|ed|led|s)?|overall|in all|altogether|combined|sum|jumlah(?:nya)?|keseluruhan|"
    r"seluruhnya|menjadi|sehingga|mencapai|reached|reaching)\b",
    re.IGNORECASE,
)
_TOTAL_AFTER = re.compile(r"^\s*(?:\S+\s+)?(?:in total|in all|altogether|overall|combined|secara keseluruhan)\b", re.I)
_COUNTED = re.compile(r"\b(?:how many|berapa(?:kah)?(?:\s+(?:jumlah|banyak|rata-rata|total))?)\s+(\w+)", re.I)
_MONEY_Q = re.compile(
    r"\b(?:how much|cost|price|revenue|income|profit|worth|raise[ds]?|gross|salary|budget|harga|biaya|nilai|"
    r"pendapatan|laba|gaji|anggaran)\b",
    re.IGNORECASE,
)
_MONEY = re.compile(rf"^(?:{CURRENCY})|USD|IDR|EUR|dollar|rupiah|euro", re.IGNORECASE)


@dataclass(frozen=True)
class _Mention:
    text: str
    start: int
    end: int
    value: float
    is_year: bool


def _indonesian(question: str) -> bool:
    words = normalize_words(without_particles(question))  # "Berapakah" counts as the stopword "berapa"
    return sum(w in INDONESIAN_STOPWORDS for w in words) > sum(w in ENGLISH_STOPWORDS for w in words)


@lru_cache(maxsize=64)
def _mention_pattern(extra_units: str) -> re.Pattern[str]:
    units = f"{UNIT}|{extra_units}" if extra_units else UNIT
    return re.compile(
        rf"(?:(?:{CURRENCY})\s?)?(?<![\w.,])(?:{NUMBER})(?:\s?(?:{SCALE})\b)?(?:\s?(?:{units})(?!\w))?", re.IGNORECASE
    )


def _mentions(text: str, extra_units: str) -> list[_Mention]:
    """Numbers with their currency, scale and unit, as written."""
    found: list[_Mention] = []
    for m in _mention_pattern(extra_units).finditer(text):
        digits = re.search(NUMBER, m.group())
        raw = digits.group() if digits else "0"
        value = number_value(raw)
        is_year = bool(re.fullmatch(r"1\d{3}|20\d{2}", m.group().strip()))
        found.append(_Mention(m.group().strip(), m.start(), m.start() + len(m.group().strip()), value, is_year))
    return found


def _after_marker(text: str, mentions: list[_Mention], marker: re.Pattern[str]) -> _Mention | None:
    """The first number that follows a marker closely, in the same sentence."""
    for mark in marker.finditer(text):
        for mention in mentions:
            gap = text[mark.end() : mention.start]
            if mention.start >= mark.end() and len(gap.split()) <= MARKER_GAP_WORDS and not re.search(r"[.;!?]\s", gap):
                return mention
    return None


def _average(text: str, mentions: list[_Mention]) -> _Mention | None:
    found = _after_marker(text, mentions, _AVERAGE_MARK) or _after_marker(text, mentions, _APPROX_MARK)
    if found:
        return found
    for sentence in split_sentences(text):  # else the last number of the sentence naming the average
        if _AVERAGE_MARK.search(sentence.text):
            inside = [m for m in mentions if sentence.start <= m.start < sentence.end and not m.is_year]
            if inside:
                return inside[-1]
    return None


def _total(text: str, mentions: list[_Mention]) -> _Mention | None:
    found = _after_marker(text, mentions, _TOTAL_MARK)
    if found:
        return found
    trailing = [m for m in mentions if _TOTAL_AFTER.match(text[m.end :])]
    if trailing:
        return trailing[0]
    values = [m for m in mentions if not m.is_year]
    return max(values, key=lambda m: m.value) if values else None  # seed 000 §4: no cue → the largest


def _plain(question: str, text: str, mentions: list[_Mention]) -> _Mention | None:
    candidates = [m for m in mentions if not m.is_year] or mentions
    if re.search(r"\b(?:percent|percentage|persen|persentase)\b|%", question, re.IGNORECASE):
        candidates = [m for m in candidates if re.search(r"%|percent|per cent|persen", m.text, re.I)] or candidates
    elif _MONEY_Q.search(question):
        candidates = [m for m in candidates if _MONEY.search(m.text)] or candidates
    counted = _COUNTED.search(question)
    if counted and len(candidates) > 1:
        stem = counted.group(1).casefold()[:4]
        counts = [m for m in candidates if stem in m.text.casefold() or text[m.end :].lstrip().casefold()[:4] == stem]
        if counts:
            return counts[0]  # "36 passengers" for "how many passengers", not "97 people"
    return candidates[0] if len(candidates) == 1 else None


def _indonesian_units(question: str) -> str:
    """The classifiers, plus the noun the question counts ("Berapa jenis…" → "jenis"), as a regex."""
    counted = _COUNTED.search(question)
    noun = counted.group(1).casefold() if counted else ""
    return _CLASSIFIERS + (f"|{re.escape(noun[:-3] if noun.endswith('kah') else noun)}" if noun else "")


def numeric_span(question: str, text: str) -> str | None:
    """Rule 3: the number (with its unit) that answers a numeric question, or None when unsure."""
    mentions = _mentions(text, _indonesian_units(question) if _indonesian(question) else "")
    if not mentions:
        return None
    if _AVERAGE_Q.search(question):
        chosen = _average(text, mentions)
    elif _TOTAL_Q.search(question):
        chosen = _total(text, mentions)
    else:
        chosen = _plain(question, text, mentions)
    return chosen.text if chosen else None

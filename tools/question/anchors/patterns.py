"""Anchors read off the question's surface whatever its case: quoted strings, dates, quarters,
years, numbers with units and bare rate units ("per game").

These rules need no capitals, so they run for every question, and their anchors are never
`inferred`: a digit or a quote mark is as reliable in "who won in 1924" as in "Who won in 1924".
Dates and quarters get their other-language forms as aliases ("3 Maret 2017" ↔ "3 March 2017",
"Q1 2024" ↔ "first quarter of 2024"), because coverage compares words. NUMBER, CURRENCY, SCALE and
UNIT are also used by tools/answer/short_numbers.py to read amounts out of answer sentences.
"""

from __future__ import annotations

import re

from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.text.numbers import NUMBER

from .model import CONFIDENCE, MONTHS, YEAR, Anchor, AnchorKind, Candidate

_MONTH_PAIRS = {
    "january": "Januari", "february": "Februari", "march": "Maret", "may": "Mei", "june": "Juni", "july": "Juli",
    "august": "Agustus", "october": "Oktober", "december": "Desember", "januari": "January", "februari": "February",
    "maret": "March", "mei": "May", "juni": "June", "juli": "July", "agustus": "August", "oktober": "October",
    "desember": "December",
}  # fmt: skip
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
DATE = re.compile(
    rf"\b(?:(?:{MONTHS})\.?\s+{_DAY},?\s+{YEAR}|{_DAY}\s+(?:of\s+)?(?:{MONTHS})\.?,?\s+{YEAR}|"
    rf"{YEAR}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}/\d{{1,2}}/{YEAR}|(?:{MONTHS})\.?\s+{YEAR}|"
    rf"(?:{MONTHS})\.?\s+{_DAY}|{_DAY}\s+(?:{MONTHS}))\b",
    re.IGNORECASE,
)
_QUARTER = re.compile(
    rf"\b(?:Q[1-4](?:\s*(?:FY\s?)?(?:{YEAR}|'\d{{2}}))?|[1-4]Q\s?(?:{YEAR}|\d{{2}})|"
    rf"(?:first|second|third|fourth|1st|2nd|3rd|4th)[\s-]quarter(?:\s+(?:of\s+)?(?:fiscal\s+)?{YEAR})?|"
    rf"(?:kuartal|triwulan)\s+(?:ke-?)?(?:pertama|kedua|ketiga|keempat|I{{1,3}}|IV|[1-4])(?:\s+(?:tahun\s+)?{YEAR})?)\b",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(rf"(?<![\d.,$€£])\b{YEAR}s?\b(?![.,]\d)")
CURRENCY = r"US\$|A\$|S\$|\$|€|£|¥|₹|Rp\.?"
SCALE = r"thousand|million|billion|trillion|bn|ribu|juta|miliar|milyar|triliun"
UNIT = (
    r"%|percent|per\s?cent|persen|USD|IDR|EUR|dollars?|rupiah|euros?|yen|km/h|mph|km2|km²|km|kilomet(?:er|re)s?|"
    r"miles?|met(?:er|re)s?|cm|mm|kg|kilograms?|grams?|tonnes?|tons?|lbs?|feet|ft|hectares?|ha|acres?|"
    r"lit(?:er|re)s?|°C|°F|degrees?|GB|MB|TB|GHz|MW|kW|kWh|years? old|years?|tahun|months?|bulan|weeks?|minggu|"
    r"days?|hari|hours?|jam|minutes?|menit|seconds?|detik"
)
_RATE_NOUN = r"(?:game|match|season|year|tahun|month|bulan|day|hari|quarter|kuartal|capita|kapita)"
_RATE = rf"(?:per|a|each|setiap|tiap)\s{_RATE_NOUN}"
_NUMBER_UNIT = re.compile(
    rf"(?:(?:{CURRENCY})\s?)?(?<![\w.,])(?:{NUMBER})(?:\s?(?:{SCALE})\b)?(?:\s?(?:{UNIT})(?![\w]))?(?:\s{_RATE}\b)?",
    re.IGNORECASE,
)
_BARE_RATE = re.compile(rf"\b(?:per|each|setiap|tiap)\s{_RATE_NOUN}\b", re.IGNORECASE)  # "within a year" is no rate
_RATE_ALIASES = {"game": ("ppg", "a game", "per match"), "match": ("per game",), "tahun": ("per year",)}
_QUOTED = re.compile(
    r"\"([^\"]{1,120})\"|“([^”]{1,120})”|«([^»]{1,120})»|‘([^’]{1,120})’|(?<![\w'])'([^']{1,120})'(?!\w)"
)


def _quarter_aliases(text: str) -> tuple[str, ...]:
    """"Q1 2024" ↔ "first quarter of 2024" ↔ "kuartal pertama 2024"."""
    low = text.casefold()
    number = re.search(r"q([1-4])|([1-4])q|\b([1-4])(?:st|nd|rd|th)\b|\b(iv|i{1,3})\b", low)
    words = ("first", "second", "third", "fourth"), ("pertama", "kedua", "ketiga", "keempat")
    index = next((i for i, w in enumerate(words[0] + words[1]) if w in low), None)
    if number:
        group = next(g for g in number.groups() if g)
        index = int(group) - 1 if group.isdigit() else ("i", "ii", "iii", "iv").index(group)
    if index is None:
        return ()
    q = index % 4
    year = re.search(YEAR, text)
    tail = f" {year.group()}" if year else ""
    forms = (f"Q{q + 1}{tail}", f"{words[0][q]} quarter{' of' if year else ''}{tail}", f"kuartal {words[1][q]}{tail}")
    return tuple(f for f in forms if f.casefold() != low)


def _date_aliases(text: str) -> tuple[str, ...]:
    """"3 Maret 2017" ↔ "3 March 2017": the month in the other language (coverage compares words)."""
    for word in re.findall(r"[^\W\d_]+", text):
        other = _MONTH_PAIRS.get(word.casefold())
        if other:
            return (text.replace(word, other),)
    return ()


def pattern_candidates(question: str) -> list[Candidate]:
    """Quoted strings, dates, quarters, years, numbers with units and bare rate units."""
    out: list[Candidate] = []
    for m in _QUOTED.finditer(question):
        inner = next(g for g in m.groups() if g is not None).strip()
        if normalize_words(inner):
            out.append((m.start(), m.end(), Anchor(inner, "quoted", True, CONFIDENCE["quoted"])))
    timed: tuple[tuple[re.Pattern[str], AnchorKind], ...] = ((DATE, "date"), (_QUARTER, "quarter"), (_YEAR_RE, "year"))
    for regex, kind in timed:
        for m in regex.finditer(question):
            aliases = _quarter_aliases(m.group()) if kind == "quarter" else ()
            aliases = _date_aliases(m.group()) if kind == "date" else aliases
            out.append((m.start(), m.end(), Anchor(m.group(), kind, True, CONFIDENCE[kind], aliases)))
    for m in _NUMBER_UNIT.finditer(question):
        text = m.group().strip()
        if not re.fullmatch(rf"(?:{NUMBER})", text):  # a unit, currency or scale is attached
            out.append((m.start(), m.start() + len(text), Anchor(text, "number_unit", True, CONFIDENCE["number_unit"])))
    for m in _BARE_RATE.finditer(question):
        aliases = _RATE_ALIASES.get(m.group().split()[-1].casefold(), ())
        out.append((m.start(), m.end(), Anchor(m.group(), "number_unit", True, 0.6, aliases)))
    return out

"""The anchor record and what every rule module shares: kinds, confidences, tokens, months, aliases.

Kept apart from the rules so that the capitalised and the lower-case rules, the patterns and the
coverage check all read one definition of a token, a year, a month and a known abbreviation; a
change here changes every rule at once, on purpose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from anchorgate.tools.text.stopwords import stopwords_for

AnchorKind = Literal["entity", "title", "quoted", "year", "date", "quarter", "number_unit", "acronym", "keyword"]

STOP = stopwords_for("multi")
# How sure the rule is that the span is a real anchor (not how important it is); see the package docstring.
CONFIDENCE: dict[str, float] = {
    "quoted": 0.95, "date": 0.95, "quarter": 0.95, "year": 0.9, "title": 0.9, "number_unit": 0.85,
    "entity": 0.85, "acronym": 0.8, "keyword": 0.3,
}  # fmt: skip


@dataclass(frozen=True)
class Anchor:
    """One anchor: its text as written in the question, kind, whether coverage needs it, aliases.

    `inferred` is True for anchors found by the lower-case inference (a question without
    capitalisation cues: all lower case, all caps, sentence case), whose span is a guess from word
    classes rather than read off capitals, quotes or digits: the gate retries once for a missing
    inferred anchor but never abstains for it."""

    text: str
    kind: AnchorKind
    essential: bool
    confidence: float
    aliases: tuple[str, ...] = ()
    inferred: bool = False


# (start, end, anchor): a span of the question and the anchor read from it, before overlaps are resolved.
Candidate = tuple[int, int, Anchor]

# Known abbreviations ↔ names (seed 000 §5: "AO 2019" must not be answered from "US Open 2019").
ALIASES: dict[str, tuple[str, ...]] = {
    "ao": ("Australian Open",), "australian open": ("AO",), "us open": ("U.S. Open",), "u.s. open": ("US Open",),
    "rg": ("Roland Garros", "French Open"), "french open": ("Roland Garros",), "roland garros": ("French Open",),
    "uk": ("United Kingdom",), "un": ("United Nations",), "eu": ("European Union",), "ue": ("Uni Eropa",),
    "us": ("U.S.", "United States"), "usa": ("United States",), "nba": ("National Basketball Association",),
}  # fmt: skip

MONTHS = (
    "jan(?:uary|uari)?|feb(?:ruary|ruari)?|pebruari|mar(?:ch)?|maret|apr(?:il)?|may|mei|june?|juni|july?|juli|"
    "aug(?:ust)?|agu(?:stus)?|agt|sep(?:t(?:ember)?)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
    "des(?:ember)?"
)
YEAR = r"(?:1\d{3}|20\d{2})"
TOKEN = re.compile(r"\w+(?:['’&-]\w+)*")


# The words the "-kah"/"-lah" particles attach to in questions. Only these lose the ending: "istilah",
# "jumlah", "sekolah" and "langkah" end in the same letters but are words of their own.
_PARTICLE_HOSTS = frozenset((
    "apa", "siapa", "berapa", "kapan", "mana", "dimana", "kemana", "darimana", "bagaimana", "mengapa",
    "kenapa", "ada", "bisa", "dapat", "boleh", "bukan", "benar", "sudah", "pernah", "harus", "perlu", "tahu",
    "ini", "itu", "dia",
))  # fmt: skip


def strip_kah(word: str) -> str:
    """Indonesian "-kah"/"-lah" question particles: "Siapakah" reads as "siapa"; other words casefolded."""
    low = word.casefold()
    stem = low[:-3]
    return stem if low.endswith(("kah", "lah")) and stem in _PARTICLE_HOSTS else low


def without_particles(text: str) -> str:
    """`text` with the "-kah"/"-lah" particles dropped ("Siapakah ketua …" → "siapa ketua …"), for
    rules that look for question words; other words keep their case."""

    def plain(match: re.Match[str]) -> str:
        stripped = strip_kah(match.group())
        return stripped if stripped != match.group().casefold() else match.group()

    return TOKEN.sub(plain, text)


def sentence_start(question: str, pos: int) -> bool:
    """Whether `pos` opens a sentence (only quotes or brackets before it since the last full stop)."""
    before = question[:pos].rstrip(" \t\"'“‘([")
    return not before or before[-1] in ".!?:;\n"

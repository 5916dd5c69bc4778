"""Is the evidence strong enough that a refusal is more likely the reader's fault than the corpus's?

Three measured cues, all deterministic: the best passage's gated relevance, essential-anchor
coverage, and whether the passages hold something of the shape the question asks for (a year or
date for "when", a number for "how many", a name for "who"). The gate spends one targeted retry on
a declined draft only when all three hold (`REFLECT_DECLINED_STRONG_EVIDENCE`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from anchorgate.tools.answer.anchors.model import without_particles
from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.text.language import question_language

_WHEN = re.compile(r"\b(?:when|what year|which year|in what year|what date|kapan|tahun berapa)\b", re.IGNORECASE)
_HOW_MANY = re.compile(
    r"\b(?:how (?:many|much|long|old|far|tall|big|large|high)|what (?:percentage|number|amount)|(?:se)?berapa)\b", re.I
)
_WHO = re.compile(r"\b(?:who|whom|whose|siapa)\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b")
_MONTH = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|century|decade)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand|million)\b", re.I)
_DETERMINERS = frozenset({"the", "a", "an"})
_NAME = re.compile(r"\b[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+)+")


@dataclass(frozen=True)
class EvidenceStrength:
    """The cues and their conjunction."""

    top_relevance: float
    anchors_covered: bool
    answer_type: str
    answer_type_present: bool
    strong: bool

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return asdict(self)


def expected_answer_type(question: str) -> str:
    """date, number, name or any (a shape we cannot check from the question alone)."""
    question = without_particles(question)  # "Siapakah" asks what "siapa" asks
    if _WHEN.search(question):
        return "date"
    if _HOW_MANY.search(question):
        return "number"
    if _WHO.search(question):
        return "name"
    return "any"


_SHORT_WH = re.compile(
    r"^\W*(?:who|whom|whose|when|where|which|siapa|kapan|di ?mana)\b|"
    r"\b(?:what|which|in what) (?:year|name|city|country|state|language|team|nationality|date|day|month|county|"
    r"town|river|company|band|film|album|song|position|sport|instrument)\b",
    re.IGNORECASE,
)


# Indonesian asks "which N" after the noun ("Negara apakah yang …", "… bahan bakar apa", "Di provinsi
# manakah …") and "where" anywhere in the sentence ("… menjabat di mana", "Berlangsung dimanakah …").
# "Apa itu …", "… untuk apa" (what for) and "Bagaimana"/"Mengapa" stay open questions.
_SHORT_ID = re.compile(
    r"\b(?:di|ke|dari)?mana\b|"
    r"\bapa (?:nama|judul|istilah|julukan|sebutan|gelar|singkatan|kepanjangan)\b|"
    r"\b(?!(?:itu|adalah|ialah|yaitu|merupakan|untuk)\b)[^\W\d]{3,} apa\b",
    re.IGNORECASE,
)


def short_answer_expected(question: str, question_kind: str) -> bool:
    """Whether the question asks for a short answer (name, date, number, place, yes/no, a choice):
    the quoted answer style's domain. Open questions ("what is the role of …", "difference between
    …", how/why) are answered in sentences."""
    if question_kind in {"yes_no", "numeric", "comparison"}:
        return True
    plain = without_particles(question).strip()
    if expected_answer_type(question) != "any" or _SHORT_WH.search(plain):
        return True
    return question_language(question) != "en" and bool(_SHORT_ID.search(plain))


def answer_type_present(question: str, texts: Sequence[str]) -> tuple[str, bool]:
    """(expected type, whether some passage holds a candidate of that type beyond the question's own)."""
    wanted = expected_answer_type(question)
    if wanted == "any":
        return wanted, True
    pattern = {"date": _YEAR, "number": _NUMBER, "name": _NAME}[wanted]
    asked = set(normalize_words(question)) | _DETERMINERS
    for text in texts:
        # a candidate the question already spells out ("The Eiffel Tower") is not an answer
        if any(not set(normalize_words(m.group(0))) <= asked for m in pattern.finditer(text)):
            return wanted, True
        if wanted == "date" and _MONTH.search(text):
            return wanted, True
    return wanted, False


def top_relevance(context: Sequence[Mapping[str, Any]]) -> float:
    """The best gated relevance (`score`) among the passages, 0.0 for none."""
    return max((float(p.get("score", 0.0)) for p in context), default=0.0)


def measure_strength(
    question: str, context: Sequence[Mapping[str, Any]], anchors_covered: bool, min_relevance: float
) -> EvidenceStrength:
    """The cues for `context` (passages with `score` = gated relevance) and whether all hold."""
    top = top_relevance(context)
    wanted, present = answer_type_present(question, [p["text"] for p in context])
    strong = bool(context) and top >= min_relevance and anchors_covered and present
    return EvidenceStrength(round(top, 4), anchors_covered, wanted, present, strong)

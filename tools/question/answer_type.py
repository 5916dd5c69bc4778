"""The shape of answer a question asks for, read from the question alone.

`expected_answer_type`: a date ("when", "kapan"), a number ("how many", "berapa"), a name ("who",
"siapa") or any. `short_answer_expected`: whether the answer is a short span (name, date, number,
place, yes/no, a choice) rather than sentences, the quoted answer style's domain. Whether the
evidence holds a candidate of the expected type is the evidence's question
(`tools/retrieval/evidence_strength.py`).
"""

from __future__ import annotations

import re

from anchorgate.tools.question.anchors.model import without_particles
from anchorgate.tools.text.language import question_language

_WHEN = re.compile(r"\b(?:when|what year|which year|in what year|what date|kapan|tahun berapa)\b", re.IGNORECASE)
_HOW_MANY = re.compile(
    r"\b(?:how (?:many|much|long|old|far|tall|big|large|high)|what (?:percentage|number|amount)|(?:se)?berapa)\b", re.I
)
_WHO = re.compile(r"\b(?:who|whom|whose|siapa)\b", re.IGNORECASE)


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

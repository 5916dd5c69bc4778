"""Is the evidence strong enough that a refusal is more likely the reader's fault than the corpus's?

Three measured cues, all deterministic: the best passage's gated relevance, essential-anchor
coverage, and whether the passages hold something of the shape the question asks for (a year or
date for "when", a number for "how many", a name for "who"). When all three hold, B's round planner
spends no round on a declined draft (graph/round_strategy.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.question.answer_type import expected_answer_type

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

"""Full dates from the verified quote: "2012" becomes "May 31, 2012" when the quote says so.

Asked for "the shortest answer", the reader clips a "when" answer to its year ("when did Disney's
Art of Animation Resort open" → "2012") although the sentence it quotes gives the day ("… opened on
May 31, 2012"). A "when" question asks for the date, so the answer is completed from the quote: the
one date there that contains every word of the clipped answer. Questions that ask for the year
("what year", "which year", "tahun berapa") keep it. No model call.
"""

from __future__ import annotations

import re

from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.question.anchors.model import MONTHS, YEAR
from anchorgate.tools.question.anchors.patterns import DATE
from anchorgate.tools.question.answer_type import expected_answer_type

_ASKS_YEAR = re.compile(r"\b(?:year|tahun)\b", re.IGNORECASE)
_CLIPPED = re.compile(rf"^(?:in\s+|on\s+)?(?:(?:{MONTHS})\.?\s+)?{YEAR}\.?$", re.IGNORECASE)


def wants_full_date(question: str) -> bool:
    """A question for a date (the answer-type classifier's "date") that does not ask for the year alone."""
    return expected_answer_type(question) == "date" and not _ASKS_YEAR.search(question)


def completed_date(answer: str, quote: str, question: str) -> str | None:
    """The quote's fuller date holding every word of a clipped date answer, or None (keep the answer)."""
    if not wants_full_date(question) or not _CLIPPED.match(answer.strip()):
        return None
    words = set(normalize_words(answer)) - {"in", "on"}
    fuller = [m.group(0) for m in DATE.finditer(quote) if words <= set(normalize_words(m.group(0)))]
    longer = [d for d in fuller if len(normalize_words(d)) > len(words)]
    return longer[0] if longer else None

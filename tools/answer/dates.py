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

_MONTH = (
    r"(?:jan(?:uary|uari)?|feb(?:ruary|ruari)?|mar(?:ch|et)?|apr(?:il)?|m(?:ay|ei)|jun(?:e|i)?|jul(?:y|i)?|"
    r"aug(?:ust)?|agu(?:stus)?|sep(?:t(?:ember)?)?|o[ck]t(?:ober)?|nov(?:ember)?|de[cs](?:ember)?)\.?"
)
_YEAR = r"(?:1[0-9]{3}|20[0-9]{2})"
# "May 31, 2012", "31 May 2012", "May 2012", "31 Mei 2012"
_DATE = re.compile(
    rf"\b(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+{_YEAR}|\d{{1,2}}\s+{_MONTH},?\s+{_YEAR}|{_MONTH}\s+{_YEAR})\b",
    re.IGNORECASE,
)
_WHEN = re.compile(r"\b(?:when|kapan(?:kah)?)\b", re.IGNORECASE)
_ASKS_YEAR = re.compile(r"\b(?:year|tahun)\b", re.IGNORECASE)
_CLIPPED = re.compile(rf"^(?:in\s+|on\s+)?(?:{_MONTH}\s+)?{_YEAR}\.?$", re.IGNORECASE)


def wants_full_date(question: str) -> bool:
    """A "when" question that does not ask for the year alone."""
    return bool(_WHEN.search(question)) and not _ASKS_YEAR.search(question)


def completed_date(answer: str, quote: str, question: str) -> str | None:
    """The quote's fuller date holding every word of a clipped date answer, or None (keep the answer)."""
    if not wants_full_date(question) or not _CLIPPED.match(answer.strip()):
        return None
    words = set(normalize_words(answer)) - {"in", "on"}
    fuller = [m.group(0) for m in _DATE.finditer(quote) if words <= set(normalize_words(m.group(0)))]
    longer = [d for d in fuller if len(normalize_words(d)) > len(words)]
    return longer[0] if longer else None

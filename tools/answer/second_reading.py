"""A second reading of the same passages in reverse order, and whether its answer agrees with the first.

A reader that takes its answer from the passages gives it again when they are listed the other way
round; one that picked an on-topic sentence about something else (a Transformers robot that is not
the biggest, the year a goalkeeper's family moved for the year his son was born) often picks another.
Passages keep their numbers, so both readings' quotes are checked against the same context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anchorgate.tools.answer.text import is_idk, normalize_words
from anchorgate.tools.retrieval.packing import format_passage, render
from anchorgate.tools.text.stopwords import stopwords_for

# token F1 between the two answers at or above this counts as the same answer ("Bart Cummings" and
# "Cummings"; "1924" and "tahun 1924" agree by containment anyway)
AGREEMENT_MIN_F1 = 0.5


def reversed_documents(context: Sequence[Mapping[str, Any]]) -> str:
    """The context block with the passages in reverse order, each under its own number."""
    return render([format_passage(int(p["n"]), str(p.get("title", "")), str(p["text"])) for p in reversed(context)])


def _words(text: str) -> set[str]:
    """Content words, single digits kept ("4" of "4 orang")."""
    stop = stopwords_for("multi")
    return {w for w in normalize_words(text) if w not in stop and (len(w) > 1 or w.isdigit())}


def answers_agree(first: str, second: str, question: str = "") -> bool:
    """The same answer twice: the content words of one hold the other's, or their overlap (F1) is at least 0.5.

    Words of the question are left out first: "Daun untuk melinting tembakau … adalah pucuk" and "Daun
    tembakau … untuk melinting … adalah daun nipah" share the question's words, not an answer. An answer
    made only of the question's words is compared whole, one of function words only ("No") word for word.
    A second reading that declines ("I don't know") or gives nothing does not agree.
    """
    if not second.strip() or is_idk(second):
        return False
    asked = _words(question)
    a, b = _words(first) - asked or _words(first), _words(second) - asked or _words(second)
    if not a or not b:
        # nothing but function words: "No" and "No" (yes/no questions) are compared word for word
        a, b = set(normalize_words(first)), set(normalize_words(second))
        return bool(a and b) and (a <= b or b <= a)
    if a <= b or b <= a:
        return True
    common = len(a & b)
    return common > 0 and 2 * common / (len(a) + len(b)) >= AGREEMENT_MIN_F1

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

# token F1 between the two answers at or above this counts as the same answer ("Bart Cummings" and
# "Cummings"; "1924" and "tahun 1924" agree by containment anyway)
AGREEMENT_MIN_F1 = 0.5


def reversed_documents(context: Sequence[Mapping[str, Any]]) -> str:
    """The context block with the passages in reverse order, each under its own number."""
    return render([format_passage(int(p["n"]), str(p.get("title", "")), str(p["text"])) for p in reversed(context)])


def answers_agree(first: str, second: str) -> bool:
    """The same answer twice: one's words contain the other's, or their token F1 is at least 0.5.

    A second reading that declines ("I don't know") or gives nothing does not agree.
    """
    if not second.strip() or is_idk(second):
        return False
    a, b = normalize_words(first), normalize_words(second)
    if not a or not b:
        return False
    if set(a) <= set(b) or set(b) <= set(a):
        return True
    common = sum(min(a.count(w), b.count(w)) for w in set(a) & set(b))
    if not common:
        return False
    precision, recall = common / len(b), common / len(a)
    return 2 * precision * recall / (precision + recall) >= AGREEMENT_MIN_F1

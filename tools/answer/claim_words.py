"""The words of an answer sentence that a passage has to back, matched as stems without filler.

The support measure (tools/answer/support.py) asks how much of a claim a passage holds. Right answers
written in the reader's own words scored as unsupported (docs/benchmark-log.md, issue 12: 10 of 15
demo-corpus abstentions were right explanations): inflection ("methods" / "method", "exited" /
"exit") and filler words of answer prose ("you", "need", "can", "yes") counted as missing facts.
So a claim is matched on the stems of its content words minus filler. A capitalised word is a name
and never an Indonesian stopword: "Antara Mali" keeps "antara" ("between" in Indonesian).

Tried and dropped (demo tune split d01–d10): matching only the words a claim adds to the question.
It is stricter for a wrong specific answer, but how-to explanations restate the question's own
key terms ("global variable", "except clause"), and 4 of 10 right answers fell below support.
"""

from __future__ import annotations

import re

from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.text.stopwords import stopwords_for

# Words of answer prose that state no fact: pronouns, modals and light verbs. Not in the BM25
# stopword list on purpose (there they may still rank a passage).
_FILLER = """
you your yours we our us i me my he him his she her hers them their theirs
can could should would may might must shall need needs needed also just then thus so
make makes made use uses used using get gets got way ways like example etc
following follows say says said simply yes
"""
CLAIM_FILLER: frozenset[str] = frozenset(_FILLER.split())

CAPITALISED = re.compile(r"\b[A-Z][a-z]\w*")
_SUFFIXES = (("sses", "ss"), ("ies", "y"), ("ing", ""), ("ed", ""), ("ly", ""), ("es", ""), ("s", ""))


def light_stem(word: str) -> str:
    """A small, deterministic English suffix stripper (no dictionary): enough to match inflections.

    Both sides of a comparison go through it, so an imperfect stem ("runn") still matches itself.
    Words of four letters or fewer, and words ending in "ss"/"us"/"is", are kept as they are.
    """
    if len(word) <= 4 or word.endswith(("ss", "us", "is")) or not word.isascii():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
                continue  # "notes" → "note" (the "s" rule), "boxes" → "box"
            return word[: -len(suffix)] + replacement
    return word


def stems(text: str) -> set[str]:
    """Stems of the text's content words (stopwords and filler removed, single letters dropped)."""
    stop, english = stopwords_for("multi"), stopwords_for("en")
    names = {w.lower() for w in CAPITALISED.findall(text)}
    return {
        light_stem(w)
        for w in normalize_words(text)
        if len(w) > 1 and w not in CLAIM_FILLER and w not in (english if w in names else stop)
    }


def term_share(terms: set[str], passage_stems: set[str]) -> float:
    """Share of the terms found in the passage's stems (0 for no terms)."""
    return len(terms & passage_stems) / len(terms) if terms else 0.0

"""Light English suffix folding, so that "composed", "composer" and "composes" meet as "compos".

Not a stemmer: five suffixes, and only on words long enough that what is left still names the
word. Pruning uses it to match a question's words in a sentence; the echo check uses it so that
"Cherry picking" counts as the question's own words for "where does the term cherry picker come from".
"""

from __future__ import annotations

SUFFIXES = ("ing", "ed", "es", "er", "s")


def fold_suffix(word: str) -> str:
    """`word` without the first of SUFFIXES it ends with, when at least four letters remain."""
    for suffix in SUFFIXES:
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word

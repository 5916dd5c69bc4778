"""Full-width forms folded to ASCII: "１９８６年" is the year 1986 and "ＮＢＡ" the acronym NBA.

Chinese and Japanese input methods type digits and Latin letters full width (U+FF01–U+FF5E, the
Halfwidth and Fullwidth Forms block), so a question may write "１９８６" where the passage writes
"1986". Their NFKC form is the ASCII character, one character for one, so folding keeps every
position (a span found in the folded text is the same span in the original). Only that block is
folded, not the whole text: NFKC elsewhere also rewrites superscripts, ligatures and compatibility
ideographs, which a user's question has no reason to lose.

The clause punctuation Chinese writes full width as its own (，！？：；（）) is kept by `fold_width`:
every matcher reads both forms, the question stays as the user typed it, and "３，４" must not become
"3,4", which reads as one number.
"""

from __future__ import annotations

import unicodedata

_FIRST, _LAST = 0xFF01, 0xFF5E
CLAUSE_PUNCTUATION = frozenset("，！？：；（）")


def fold_width(text: str, keep: frozenset[str] = CLAUSE_PUNCTUATION) -> str:
    """`text` with full-width ASCII forms (digits, Latin letters, symbols) as ASCII, except `keep`;
    the same length as `text`."""
    if not any(_FIRST <= ord(ch) <= _LAST for ch in text):
        return text
    return "".join(
        unicodedata.normalize("NFKC", ch) if _FIRST <= ord(ch) <= _LAST and ch not in keep else ch for ch in text
    )

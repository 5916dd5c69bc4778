"""Noun phrases of a question without capitals: "who got the first nobel prize in physics" →
"nobel prize", "physics".

Outside the frame's titles, a phrase is a run of words that are not function words or verbs,
bridged by "of (the)" and "vs" ("university of kentucky", "justice of the peace"), with generic
words ("first", "movie", "new") trimmed from its edges, because those words are in every passage
and name nothing on their own — "wonder woman" and "spider man" keep theirs.
"""

from __future__ import annotations

import re

from .words import Word

_BRIDGES = frozenset(("of", "vs", "v"))
# Trimmed from a phrase's end only ("the little couples new season", "a world map", "in the human body";
# "new england", "world war", "human rights" keep them) …
_RIGHT_TRIM = frozenset(("new", "old", "world", "human", "the"))
# … and generic nouns that end names after a content word: "wonder woman", "spider man", "modern family".
_NAME_NOUNS = frozenset(
    ("man", "woman", "girl", "boy", "guy", "lady", "kid", "family", "king", "queen", "brother", "sister")
)
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi")


def _phrase_runs(words: list[Word], blocked: set[int]) -> list[tuple[int, int]]:
    """Maximal runs of non-function words outside titles; a possessive ends a run ("kat slater's | sisters")."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        if words[i].label == "f" or i in blocked:
            i += 1
            continue
        j = i
        while j + 1 < len(words) and words[j + 1].label != "f" and j + 1 not in blocked:
            if re.search(r"['’]s$", words[j].low):
                break
            j += 1
        runs.append((i, j))
        i = j + 1
    return runs


def phrase_chunks(words: list[Word], blocked: set[int]) -> list[tuple[int, int]]:
    """Word-index spans of noun phrases: runs bridged by "of (the)", "vs" and "X the Y" when the left
    side ends in a content word ("university of kentucky", "winnie the pooh"; not "case of tool mark"),
    generic words and numbers trimmed from the edges ("the first nobel prize" → "nobel prize", "the
    deadpool movie" → "deadpool"); a phrase needs a content word."""
    merged: list[tuple[int, int]] = []
    for start, end in _phrase_runs(words, blocked):
        if merged:
            p_start, p_end = merged[-1]
            gap = [w.low for w in words[p_end + 1 : start]]
            epithet = gap == ["the"] and p_start == p_end and start == end and words[start].label == "c"
            linked = gap in (["of"], ["of", "the"], ["vs"], ["v"]) or epithet
            if linked and words[p_end].label == "c" and end - p_start < 7:
                merged[-1] = (p_start, end)
                continue
        merged.append((start, end))
    trimmed: list[tuple[int, int]] = []
    for start, end in merged:
        while start <= end and (words[start].label in ("g", "n") or words[start].low in _BRIDGES):
            start += 1
        while end >= start and (words[end].label in ("g", "t") or words[end].low in _BRIDGES | _RIGHT_TRIM):
            if words[end].low in _NAME_NOUNS and end > start and words[end - 1].label == "c":
                break
            end -= 1
        if start <= end and any(w.label == "c" for w in words[start : end + 1]):
            trimmed.append((start, end))
    return trimmed


def roman_alias(text: str) -> tuple[str, ...]:
    """"world war 2" is written "World War II": a closing number up to 16 as a Roman numeral too."""
    m = re.search(r"(?<=\s)(\d{1,2})$", text)
    if m and 0 < int(m.group(1)) <= len(_ROMAN):
        return (text[: m.start()] + _ROMAN[int(m.group(1)) - 1],)
    return ()

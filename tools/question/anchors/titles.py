"""Titles marked by the frame of a question without capitals ("the man in you're so vain").

Titles of songs, films and shows are made of function words ("you're so vain", "the last of us",
"don't come around here no more"), so the phrase rules, which end a phrase at every function word,
would cut them to pieces. The question's frame marks them instead: a work noun before them ("the
song X", "in the movie X"), "who sang / wrote X", a closing "in / on X" that holds function words,
a contraction after a name, or a subject of common words before the verb ("when did the last of us
come out"). Each frame proposes a start; the title runs to the end of the clause.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .words import FUNCTION, QUESTION_OPENERS, VERBS, Word

# "you're", "don't", "cant" after a name belong to a title ("tom petty don't come around here no more").
_CONTRACTION = re.compile(r"\w+['’](?:re|ll|ve|m|d)|\w+n['’]t|cant|dont|wont|aint|youre|didnt|doesnt|isnt|wasnt")
_ARTICLES = frozenset(("the", "a", "an"))
_LOWER_WORK_NOUNS = frozenset((
    "song", "movie", "film", "show", "series", "book", "novel", "album", "poem", "musical", "sitcom", "cartoon",
    "anime", "single", "play", "opera", "documentary",
))  # fmt: skip
_TITLE_STOPPERS = frozenset((
    "in", "that", "which", "who", "about", "for", "from", "of", "on", "at", "with", "by", "to", "where", "when",
    "being", "is", "was", "are", "were", "has", "had", "have", "will", "did", "does", "do", "and", "or",
))  # fmt: skip
_SINGER_VERBS = frozenset((
    "sings", "sang", "sung", "sing", "wrote", "writes", "written", "performed", "performs", "recorded", "composed",
))  # fmt: skip
_AUX = frozenset(("did", "does", "do", "is", "was", "are", "were", "has", "have", "had", "will", "can", "could"))
_TITLE_GLUE = frozenset(("of", "and", "&", "in", "on", "at", "to", "for", "from", "with", "us", "me", "you", "my"))
_TRAILING_NOISE = frozenset(("lyrics", "lyric", "meaning", "song", "chords", "video"))


class _TitleStart(NamedTuple):
    """Where a frame says a title starts, and how much evidence of a name the title then needs."""

    word: int  # index of the title's first word (an article before it is skipped)
    loose: bool = False  # any two words will do, not only a content word ("who sang X", a contraction)
    generic_first: bool = False  # may open with a generic noun ("in o brother where art thou")


def _title_end(words: list[Word], i: int, aux_question: bool) -> int:
    """Last word index of a title starting at word i: up to "by" (an artist follows), punctuation, a
    new clause ("and what …") or "in the 80s", without trailing noise ("lyrics", "meaning"); in "when
    did the movie X come out", before the verb."""
    j = i
    while j + 1 < len(words) and words[j + 1].low and words[j + 1].low != "by":
        after = [w.low for w in words[j + 2 : j + 4]]
        if words[j + 1].low in ("and", "or") and after and after[0] in QUESTION_OPENERS:
            break  # "who wrote antigone | and what are the dates of his birth"
        if words[j + 1].low == "in" and any(w.isdigit() or re.fullmatch(r"\d+s", w) for w in after):
            break  # "… if i want to | in the 80s"
        j += 1
    if aux_question:
        j = next((k - 1 for k in range(i + 1, j + 1) if words[k].low in VERBS), j)
    while j > i and words[j].low in _TRAILING_NOISE | _ARTICLES:
        j -= 1
    return j


def _title_at(words: list[Word], start: _TitleStart, aux_question: bool) -> tuple[int, int] | None:
    """The word-index span of the title a frame proposes, or None when it names nothing."""
    lows = [w.low for w in words]
    i = start.word
    while i + 1 < len(words) and lows[i] in _ARTICLES and words[i + 1].label != "f":
        i += 1
    if i >= len(words) or not lows[i] or lows[i] in _TITLE_STOPPERS:
        return None
    j = _title_end(words, i, aux_question)
    span = words[i : j + 1]
    named = any(w.label == "c" for w in span)
    # "who sings the theme song for the proud family": a generic noun before a content word opens
    # a description, not a title ("the last of us" has no content word: a title).
    if words[i].label == "g" and not start.generic_first and named:
        return None
    # A title needs a content word; after "who sang" or from a contraction any two words will do
    # ("don't come around here no more" is function words and verbs only).
    named = named or (start.loose and j > i and any(w.low not in FUNCTION for w in span))
    return (i, j) if named else None


def _closing_start(words: list[Word]) -> _TitleStart | None:
    """A closing "in / on X" whose X holds function words: "the man in you're so vain"."""
    lows = [w.low for w in words]
    closing = next((k for k in range(len(lows) - 2, 0, -1) if lows[k] in ("in", "on")), None)
    if closing is None:
        return None
    tail = [w for w in words[closing + 1 :] if w.low not in _ARTICLES]
    if not tail:  # "… on the": nothing after the article (an IndexError before the package split)
        return None
    # "in you're so vain" is a title; "in france and germany" is two places, left to the phrase rules
    glued = any(w.low in FUNCTION - {"and", "or"} and len(w.low) > 1 for w in tail[1:-1])
    plain = all(w.low and w.low not in _AUX for w in tail) and tail[-1].low not in VERBS
    if 2 <= len(tail) <= 7 and glued and plain:
        return _TitleStart(closing + 1, generic_first=True)  # "in o brother where art thou"
    return None


def _subject_start(words: list[Word], aux_question: bool) -> _TitleStart | None:
    """A subject of common words glued by function words before the verb: "when did the last of us come out"."""
    lows = [w.low for w in words]
    verb = next((k for k in range(2, len(words)) if lows[k] in VERBS or not lows[k]), len(words))
    subject = [w for w in words[2:verb] if w.low not in _ARTICLES]
    if aux_question and verb < len(words) and lows[verb] and 2 <= len(subject) <= 6:
        glue = {w.low for w in subject[1:-1] if w.low in FUNCTION}
        common = not any(w.label == "c" for w in subject) and sum(w.label == "g" for w in subject) <= 1
        if glue and glue <= _TITLE_GLUE and subject[0].low not in FUNCTION and common:
            return _TitleStart(2, loose=True)
    return None


def _title_starts(words: list[Word], aux_question: bool) -> list[_TitleStart]:
    """Where each frame says a title starts, in the order the frames are tried (the first wins an overlap)."""
    lows = [w.low for w in words]
    starts = [
        _TitleStart(i + 1)
        for i, low in enumerate(lows[:-1])
        if low in _LOWER_WORK_NOUNS and (i == 0 or lows[i - 1] in ("the", "a", "hit", "tv", "wrote", "sang"))
    ]
    if len(lows) > 2 and lows[0] == "who" and lows[1] in _SINGER_VERBS:
        starts.append(_TitleStart(2, loose=True))
    closing = _closing_start(words)
    if closing is not None:
        starts.append(closing)
    contraction = next(
        (i for i, w in enumerate(words) if i and _CONTRACTION.fullmatch(w.low) and words[i - 1].label == "c"), None
    )
    if contraction is not None:
        starts.append(_TitleStart(contraction, loose=True))
    subject = _subject_start(words, aux_question)
    if subject is not None:
        starts.append(subject)
    return starts


def title_spans(words: list[Word]) -> list[tuple[int, int]]:
    """Word-index spans of titles marked by the question's frame: after a work noun ("the song X",
    "in the movie X"), after "who sang / wrote" ("who sang rip it up and start again"), a closing
    "in / on X" holding function words ("the man in you're so vain"), from a contraction after a
    name, and a subject of common words before the verb ("when did the last of us come out")."""
    aux_question = len(words) > 1 and words[1].low in _AUX
    spans: list[tuple[int, int]] = []
    for start in _title_starts(words, aux_question):
        span = _title_at(words, start, aux_question)
        if span is not None and all(span[1] < s or span[0] > e for s, e in spans):
            spans.append(span)
    return spans

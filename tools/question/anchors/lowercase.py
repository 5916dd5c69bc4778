"""Anchors inferred for questions without capitalisation cues (issue 12).

NQ / ClapNQ users type "who was the man in you're so vain": all lower case, all caps, or sentence
case whose only capital starts the question. The capitalised rules find nothing there, so closed
English word classes stand in for the capitals (words.py): the frame marks titles (titles.py) and
function words end noun phrases (phrases.py). The anchors are casefolded phrases ("nobel prize",
"physics"), marked `inferred`, and only the question's likeliest topic is essential (a frame title,
else the longest phrase, else the last word), because the answer's passage often does not repeat
the rest. Indonesian questions and sentence-case statements (answer sentences read by
tools/answer/short_answer.py) keep the capitalised rules.
"""

from __future__ import annotations

import re
from dataclasses import replace

from anchorgate.tools.text.stopwords import stopwords_for

from .model import ALIASES, TOKEN, Anchor, Candidate, sentence_start, strip_kah
from .phrases import phrase_chunks, roman_alias
from .titles import title_spans
from .words import COUNTRY_ACRONYMS, FUNCTION, QUESTION_OPENERS, lower_words

# Confidence of anchors found without capitals: a frame title, a phrase of several words, one word.
_LOWER_CONFIDENCE = {"title": 0.8, "phrase": 0.7, "word": 0.55}
_EN_ONLY = FUNCTION - stopwords_for("id")
_ID_ONLY = stopwords_for("id") - stopwords_for("en")


def _has_case_cue(question: str) -> bool:
    """A capital letter anywhere but a sentence's first word (the pronoun "I" does not count)."""
    for m in TOKEN.finditer(question):
        word = m.group()
        capital = any(c.isupper() for c in word) and not sentence_start(question, m.start())
        if capital and not re.fullmatch(r"I(?:['’](?:m|ve|ll|d))?", word):
            return True
    return False


def no_case_signal(question: str, shouting: bool) -> bool:
    """All caps, all lower case, or a sentence-case *question* ("Who was the man in you're so vain?").
    A sentence-case statement ("The ceiling was painted by several artists.", an answer sentence that
    tools/answer/short_answer.py reads) keeps the capitalisation rules: it simply names nothing."""
    if shouting or not any(c.isupper() for c in question):
        return True
    if _has_case_cue(question):
        return False
    first = TOKEN.search(question)
    return question.rstrip().endswith("?") or (first is not None and first.group().casefold() in QUESTION_OPENERS)


def indonesian(question: str) -> bool:
    """More Indonesian than English function words: the phrase rules are English-only."""
    words = [strip_kah(t) for t in TOKEN.findall(question)]
    return sum(w in _ID_ONLY for w in words) > sum(w in _EN_ONLY for w in words)


def lower_candidates(question: str, taken: list[tuple[int, int]]) -> list[Candidate]:
    """Title and phrase anchors of a question without capitalisation cues (text casefolded, all of
    them `inferred`, none of them essential yet: see `promote_topic`)."""
    words = lower_words(question, taken)
    out: list[Candidate] = []
    blocked: set[int] = set()
    for i, j in title_spans(words):
        start, end = words[i].start, words[j].end
        text = re.sub(r"['’]s$", "", question[start:end].casefold())
        out.append((start, end, Anchor(text, "title", False, _LOWER_CONFIDENCE["title"], inferred=True)))
        blocked.update(range(i, j + 1))
    for i, j in phrase_chunks(words, blocked):
        start, end = words[i].start, words[j].end
        text = re.sub(r"['’]s$", "", question[start:end].casefold())
        aliases = ALIASES.get(text, ())
        if i == j and (text in COUNTRY_ACRONYMS or (aliases and len(text) <= 3)):  # "the us", "AO" in all caps
            out.append((start, end, Anchor(text.upper(), "acronym", False, 0.6, aliases, inferred=True)))
            continue
        confidence = _LOWER_CONFIDENCE["word" if i == j else "phrase"]
        anchor = Anchor(text, "entity", False, confidence, aliases or roman_alias(text), inferred=True)
        out.append((start, end, anchor))
    return out


def promote_topic(resolved: list[Candidate]) -> list[Candidate]:
    """Without capitals only the question's likeliest topic is essential: the frame's title, else the
    phrase of most words, else a word, else an acronym ("the usa"); on ties the later one (a question
    names its topic last: "where do the greasers live in the outsiders"). The other phrases keep their
    retriever workers; making them essential too would make the gate miss anchors that the answer's
    passage does not repeat ("greasers")."""
    first: dict[str, int] = {}
    for k, (_, _, anchor) in enumerate(resolved):
        first.setdefault(anchor.text.casefold(), k)
    named = [(k, c[2]) for k, c in enumerate(resolved) if c[2].kind in ("title", "entity", "acronym")]
    if not named:
        return resolved

    def rank(item: tuple[int, Anchor]) -> tuple[bool, float, int, int]:
        k, anchor = item
        return anchor.kind != "acronym", anchor.confidence, len(anchor.text.split()), k

    k = first[max(named, key=rank)[1].text.casefold()]  # a repeated phrase is kept at its first place
    out = list(resolved)
    start, end, anchor = out[k]
    out[k] = (start, end, replace(anchor, essential=True))
    return out

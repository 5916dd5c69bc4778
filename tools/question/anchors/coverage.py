"""Whether a question's essential anchors occur in the evidence (`anchor_coverage`), and the
one-shot query that asks for the missing ones (`anchor_query`).

The gate may STOP only when the essential anchors are in the evidence (seed 000 §3), so a match
must be strict where a near miss changes the answer and loose where wording varies. Matching is
accent-folded and case-insensitive, and any alias counts; years and numbers with units match as
whole, contiguous tokens ("2017" is not in "20170"); multi-word anchors when all their content
words occur in one text; acronyms written in capitals keep their case ("US" is not "us"). A
lower-case phrase (an anchor found without capitals) is found in order, or by at least half of its
content words including the last (its head: "philadelphia eagles" ~ "the Eagles"; a title needs no
head), plurals folded, words written together or apart ("gall bladder" ~ "gallbladder"). An anchor
written in Chinese characters is found as written, inside the text (whitespace and case ignored).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.text.cjk import has_cjk

from .model import STOP, Anchor
from .words import FUNCTION

_FRAGMENTS = frozenset(("re", "ll", "ve", "m", "d", "s", "t", "n"))  # "you're" → "you", "re"


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _stem(word: str) -> str:
    """Plural folding for phrase matching: "batteries" ~ "battery", "churches" ~ "church", "guns" ~ "gun"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _phrase_present(words: list[str], tokens: list[str], stems: frozenset[str], title: bool) -> bool:
    """A lower-case phrase anchor: the whole phrase in order, or at least half of its content words
    including the last one (the head: "eagles" of "philadelphia eagles"; a title needs no head: "rip
    it up and start again" ~ "Rip It Up"), plural-folded; a word may be written as two ("superbowl"
    ~ "super bowl", "kevins" ~ "kevin's") and two as one ("gall bladder" ~ "gallbladder")."""
    n = len(words)
    if any(tokens[i : i + n] == words for i in range(len(tokens) - n + 1)):
        return True
    content = [w for w in words if w not in FUNCTION and w not in _FRAGMENTS] or words
    hits = [_stem(w) in stems for w in content]
    for k in range(len(content) - 1):  # "gall bladder" ~ "gallbladder"
        if _stem(content[k] + content[k + 1]) in stems:
            hits[k] = hits[k + 1] = True
    return (title or hits[-1]) and 2 * sum(hits) >= len(content)


def _compact(text: str) -> str:
    """NFKC, casefolded, accents and whitespace removed: how a CJK anchor is looked up in a text."""
    return "".join(_fold(unicodedata.normalize("NFKC", text)).casefold().split())


class _Text:
    """One evidence text, tokenised once for every anchor checked against it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = normalize_words(text)
        self.token_set = frozenset(self.tokens)
        self._stems: frozenset[str] | None = None
        self._compact: str | None = None

    @property
    def compact(self) -> str:
        """The text compacted as `_compact` does (built on first use)."""
        if self._compact is None:
            self._compact = _compact(self.text)
        return self._compact

    @property
    def stems(self) -> frozenset[str]:
        """Plural-folded words and adjacent word pairs written together (built on first use)."""
        if self._stems is None:
            pairs = (a + b for a, b in zip(self.tokens, self.tokens[1:], strict=False))
            self._stems = frozenset(_stem(t) for t in self.tokens) | frozenset(_stem(p) for p in pairs)
        return self._stems


def _present(form: str, kind: str, text: _Text) -> bool:
    """Whether one surface form of an anchor occurs in one text."""
    words = normalize_words(form)
    if not words:
        return False
    if has_cjk(form):  # no spaces to align words on: the anchor as written, inside the text
        return _compact(form) in text.compact
    tokens = text.tokens
    if kind in ("entity", "title") and form == form.casefold():  # found without capitals: a phrase
        return _phrase_present(words, tokens, text.stems, kind == "title")
    if kind == "acronym" and form.isupper():  # case-sensitive: "US" must not be found in "us"
        return re.search(rf"(?<!\w){re.escape(_fold(form))}(?!\w)", _fold(text.text)) is not None
    if kind in ("year", "number_unit"):  # whole tokens, contiguous: "2017" ∉ "20170", "5 million" as a phrase
        n = len(words)
        return any(tokens[i : i + n] == words for i in range(len(tokens) - n + 1))
    content = [w for w in words if w not in STOP] or words
    return all(w in text.token_set for w in content)


def _found(anchor: Anchor, text: _Text) -> bool:
    return any(_present(form, anchor.kind, text) for form in (anchor.text, *anchor.aliases))


def anchor_coverage(anchors: Sequence[Anchor], texts: Sequence[str]) -> tuple[float, list[Anchor]]:
    """Share of essential anchors present in some text (any alias; multi-word: all content words in
    one text; a lower-case phrase: in order, or most of its content words) and the missing ones.
    1.0 when there is no essential anchor (seed 000 §3)."""
    essential = [a for a in anchors if a.essential]
    if not essential:
        return 1.0, []
    indexed = [_Text(text) for text in texts]
    missing = [a for a in essential if not any(_found(a, text) for text in indexed)]
    return (len(essential) - len(missing)) / len(essential), missing


def anchor_query(question: str, missing: Sequence[Anchor]) -> str:
    """The anchor-constrained one-shot query: the question plus the missing anchors and their
    aliases (seed 000 §3/§7 FACTOID_ONE_SHOT_RETRIEVAL — no LLM rewrite, so deterministic)."""
    extra: list[str] = []
    for anchor in missing:
        for form in (anchor.text, *anchor.aliases):
            if form.casefold() not in {e.casefold() for e in extra}:
                extra.append(form)
    return " ".join([question.strip(), *extra]) if extra else question.strip()


MIN_WORKER_CONFIDENCE = 0.5  # below this an anchor is only checked for coverage, not searched


def anchor_queries(question: str, anchors: list[Anchor], cap: int) -> tuple[list[dict[str, str]], list[str]]:
    """Worker queries (question first) and the anchors that did not get a worker for the cap."""
    queries = [{"worker": "question", "query": question, "dense_query": question}]
    confident = [a for a in anchors if a.confidence >= MIN_WORKER_CONFIDENCE and a.kind != "keyword"]
    for anchor in confident[:cap]:
        focused = f"{anchor.text} {question}"  # the anchor leads; the question keeps the intent
        queries.append({"worker": f"anchor:{anchor.text}", "query": focused, "dense_query": anchor.text})
    return queries, [a.text for a in confident[cap:]]

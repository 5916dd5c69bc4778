"""Frozen text normalization for scoring: SQuAD answers, citation markers, answer-key matching.

Everything a score reads passes through here, and nothing here follows the product: a change to
how anchorgate writes or reads answers cannot move a score.

* `normalize_answer` follows `evaluate-v1.1.py` (Rajpurkar et al. 2016): lower-case, drop
  punctuation, drop the articles a/an/the, collapse whitespace. Unicode punctuation (category P*,
  e.g. “ ” – ’) is dropped as well as ASCII `string.punctuation` (identical on ASCII text).
* `strip_citation_markers` removes the markers a reader attaches to sentences: [1], [1, 3], [2-4].
* `key_tokens` is the matching form of the ClapNQ answer keys' SOURCE.md: case-, accent-,
  punctuation- and whitespace-insensitive words, citation markers removed; digit groups joined
  ("1,000" is "1000") and plural endings folded (`fold_inflection`), so "cousins" meets the key
  "cousin"; a key word of five letters or more also meets its inflected and derived forms
  (`extends`: "appoint" meets "appointments").
"""

from __future__ import annotations

import re
import string
import unicodedata

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCT = frozenset(string.punctuation)
_CITATION = re.compile(r"\[\s*\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*\s*\]")
_DIGIT_GROUP = re.compile(r"(?<=\d)[,.](?=\d{3}\b)")
_WORD = re.compile(r"\w+", re.UNICODE)


def _is_punct(ch: str) -> bool:
    return ch in _ASCII_PUNCT or unicodedata.category(ch).startswith("P")


def normalize_answer(text: str) -> str:
    """SQuAD normalization: lower-case, remove punctuation, remove articles, collapse whitespace."""
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if not _is_punct(ch))
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def answer_tokens(text: str) -> list[str]:
    """The SQuAD-normalized tokens of `text`."""
    return normalize_answer(text).split()


def strip_citation_markers(text: str) -> str:
    """`text` without [n]-style markers, spaces before punctuation closed, whitespace collapsed."""
    cleaned = _CITATION.sub(" ", text)
    cleaned = re.sub(r"\s+([.,;:!?])", r"\1", cleaned)
    return " ".join(cleaned.split())


def fold_accents(text: str) -> str:
    """Case-folded, with combining accents removed (NFKD): "Café" → "cafe"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def fold_inflection(word: str) -> str:
    """An English plural or possessive ending folded: cousins → cousin, churches → church, cities → city.

    Deliberately narrow (no verb endings): a key names a thing, and folding tenses would let
    "found" meet "founded". Words of four letters or fewer keep their "s" ("bus", "gas", "is").
    """
    if len(word) <= 4 or not word.isalpha():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def key_tokens(text: str) -> list[str]:
    """The words of `text` in key-matching form: no citation markers, accents or punctuation; folded."""
    plain = _DIGIT_GROUP.sub("", strip_citation_markers(text))
    return [fold_inflection(w) for w in _WORD.findall(fold_accents(plain).replace("_", " "))]


KEY_ENDINGS = frozenset({"", "e", "s", "es", "d", "ed", "ing", "er", "ers", "ment", "ments"})
"""Endings an answer word may add to a key word of `MIN_EXTENDED` letters or more: appoint → appointments."""

MIN_EXTENDED = 5
"""Shorter key words match only as written (after plural folding): "sign" must not meet "signer"."""


def extends(key_word: str, word: str) -> bool:
    """True when `word` is `key_word`, or that word (or it less a final "e") with one of `KEY_ENDINGS`.

    A key names a thing or an act in its plain form ("appoint", "advise"); the answer may inflect
    or derive it ("appointments", "advisers", "advising").
    """
    if word == key_word:
        return True
    if len(key_word) < MIN_EXTENDED or not key_word.isalpha():
        return False
    stems = {key_word, key_word[:-1] if key_word.endswith("e") else key_word}  # agree → agreement, advise → advising
    return any(word.startswith(stem) and word[len(stem) :] in KEY_ENDINGS for stem in stems)


def contains_run(haystack: list[str], needle: list[str]) -> bool:
    """True when `needle` occurs as a contiguous run of whole tokens in `haystack` (each token `extends`)."""
    width = len(needle)
    if not needle or width > len(haystack):
        return False
    return any(
        all(extends(k, w) for k, w in zip(needle, haystack[i : i + width], strict=True))
        for i in range(len(haystack) - width + 1)
    )


# Chinese (CMRC 2018 convention): CJK characters one token each, other runs split on spaces.
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SEGMENT = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\\s\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def has_chinese(text: str) -> bool:
    """Whether `text` holds a Chinese character (CJK unified ideographs)."""
    return _CJK.search(text) is not None


def chinese_segments(text: str) -> list[str]:
    """CMRC 2018's mixed segmentation with punctuation removed: lower-cased, Chinese and ASCII
    punctuation dropped, each Chinese character one segment, other runs split on whitespace.

    Follows `mixed_segmentation(..., rm_punc=True)` of the CMRC 2018 evaluation script (Cui et al.
    2019); re-implemented, and an ASCII run is split on spaces rather than by NLTK's tokenizer.
    Punctuation is deleted, not replaced by a space, as in the script ("2019。ab" is one run)."""
    return _SEGMENT.findall(chinese_normalized(text))


def chinese_normalized(text: str) -> str:
    """CMRC 2018's `remove_punctuation`: lower-cased, stripped, punctuation and symbols removed
    (Unicode categories P and S: a superset of the script's list of Chinese and ASCII marks)."""
    return "".join(ch for ch in text.lower().strip() if not (_is_punct(ch) or unicodedata.category(ch).startswith("S")))


def longest_common_run(a: list[str], b: list[str]) -> int:
    """Length of the longest contiguous run of tokens shared by `a` and `b` (CMRC 2018's `find_lcs`)."""
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best

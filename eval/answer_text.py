"""SQuAD answer normalization, shared by the answer metrics and the long-form rule.

Follows `evaluate-v1.1.py` (Rajpurkar et al. 2016): lower-case, drop punctuation, drop the
articles a/an/the, collapse whitespace. Unicode punctuation (category P*, e.g. “ ” – ’) is dropped
as well as ASCII `string.punctuation` (identical on ASCII text).
"""

from __future__ import annotations

import re
import string
import unicodedata

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCT = frozenset(string.punctuation)


def _is_punct(ch: str) -> bool:
    return ch in _ASCII_PUNCT or unicodedata.category(ch).startswith("P")


def normalize_answer(text: str) -> str:
    """SQuAD normalization: lower-case, remove punctuation, remove articles, collapse whitespace."""
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if not _is_punct(ch))
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def answer_tokens(text: str) -> list[str]:
    """The normalized tokens of `text`."""
    return normalize_answer(text).split()

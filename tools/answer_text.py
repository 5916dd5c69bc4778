"""Reading a generated answer: citation markers, "I don't know" detection, sentence support.

Pure functions over strings so the finalizer, the gate's signals and the evaluation harness all
read answers the same way.
"""

from __future__ import annotations

import re
import unicodedata

CITATION = re.compile(r"\[(\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*)\]")
_IDK_PATTERNS = [
    r"\bi\s*(?:do\s*not|don[’'`]?t)\s*know\b",
    r"\b(?:cannot|can[’'`]?t|unable to)\s+(?:be\s+)?(?:answer|determine|find|tell)",
    r"\bnot\s+(?:enough|sufficient)\s+(?:information|context|evidence)",
    r"\b(?:passages?|context|documents?)\s+(?:do(?:es)?\s+not|don[’'`]?t)\s+(?:contain|mention|provide|say)",
    r"\bno\s+(?:information|mention)\b",
    r"\btidak\s+tahu\b",
    r"\btidak\s+(?:ada|cukup)\s+informasi\b",
]
IDK = re.compile("|".join(_IDK_PATTERNS), re.IGNORECASE)
WORD = re.compile(r"\w+", re.UNICODE)
IDK_ANSWER = "I don't know"


def cited_numbers(text: str) -> list[int]:
    """Passage numbers cited as [n], [n, m] or [n-m], in first-appearance order."""
    numbers: list[int] = []
    for group in CITATION.findall(text):
        for part in re.split(r"\s*[,;]\s*", group):
            bounds = re.split(r"\s*[–-]\s*", part)
            low, high = int(bounds[0]), int(bounds[-1])
            for n in range(low, min(high, low + 20) + 1):
                if n not in numbers:
                    numbers.append(n)
    return numbers


def strip_citations(text: str) -> str:
    """Text without [n] markers and with tidy spacing."""
    cleaned = CITATION.sub("", text)
    cleaned = re.sub(r"\s+([.,;:!?])", r"\1", cleaned)
    return " ".join(cleaned.split())


def is_idk(text: str) -> bool:
    """True when the answer declines (empty, or an "I don't know"-style refusal leads it)."""
    stripped = strip_citations(text)
    if not stripped:
        return True
    first = re.split(r"(?<=[.!?])\s", stripped, maxsplit=1)[0]
    return bool(IDK.search(first))


def normalize_words(text: str) -> list[str]:
    """Lower-cased, accent-folded word tokens."""
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return WORD.findall(folded)

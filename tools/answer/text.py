"""Reading a generated answer: citation markers, "I don't know" detection, sentence support.

Pure functions over strings so the finalizer, the gate's signals and the evaluation harness all
read answers the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from anchorgate.tools.text.cjk import has_cjk, split_cjk

P = TypeVar("P", bound=Mapping[str, Any])

CITATION = re.compile(r"\[(\d{1,3}(?:\s*[,;–-]\s*\d{1,3})*)\]")
_IDK_PATTERNS = [
    r"\bi\s*(?:do\s*not|don[’'`]?t)\s*know\b",
    r"\b(?:cannot|can[’'`]?t|unable to)\s+(?:be\s+)?(?:answer|determine|find|tell)",
    r"\bnot\s+(?:enough|sufficient)\s+(?:information|context|evidence)",
    r"\b(?:passages?|context|documents?)\s+(?:do(?:es)?\s+not|don[’'`]?t)\s+(?:contain|mention|provide|say)",
    r"\bno\s+(?:information|mention)\b",
    r"\btidak\s+tahu\b",  # "saya tidak tahu"
    r"\btidak\s+(?:ada|cukup|terdapat)\s+(?:informasi|keterangan|data)\b",
    # "tidak diketahui" opening the answer (or said of the text) declines; "penyebabnya tidak diketahui"
    # later in a sentence is an answer ("the cause is unknown"), so it is not matched there.
    r"^(?:jawaban(?:nya)?\s+)?tidak\s+diketahui\b",
    r"\btidak\s+diketahui\s+(?:dari|dalam|berdasarkan)\s+(?:teks|konteks|bagian|dokumen|informasi|paragraf)",
    r"\btidak\s+(?:dapat|bisa)\s+(?:dijawab|menjawab|ditentukan|menentukan)\b",
    r"\b(?:teks|konteks|bagian|dokumen|paragraf)\w*\s+(?:tersebut\s+|ini\s+)?tidak\s+"
    r"(?:menyebutkan|mengandung|memuat|berisi|memberikan|menyediakan)\b",
    # Chinese: no word boundaries (\b never falls between two Chinese characters).
    r"^(?:我)?不知道|我不知道|无法(?:回答|确定|得知|判断|找到)|信息不足|没有(?:足够|相关)的?(?:信息|资料)",
    r"(?:文档|段落|上下文|资料|文章|材料|文本)中?(?:并)?(?:没有|未)(?:提及|提到|包含|说明|提供)",
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


def cited_passages(draft: str, context: Sequence[P]) -> list[P]:
    """The context passages (each with its number `n`) that the draft cites, in context order."""
    numbers = set(cited_numbers(draft))
    return [p for p in context if p["n"] in numbers]


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
    first = re.split(r"(?<=[.!?])\s|(?<=[。！？])", stripped, maxsplit=1)[0]
    return bool(IDK.search(first))


def normalize_words(text: str) -> list[str]:
    """Lower-cased, accent-folded word tokens; Chinese/Japanese runs as character bigrams (tools/text/cjk.py),
    so overlap measures (support, citations, anchors) see shared words in text without spaces."""
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    words = WORD.findall(folded)
    return split_cjk(words) if has_cjk(folded) else words

"""Is an answer a refusal? The scorer's own detector, in English, Indonesian and Chinese.

A run that ends ABSTAIN is an abstention whatever its text; a run that ends STOP with a text that
declines ("I don't know", "The passages do not say", "Saya tidak tahu", "我不知道") is one too, so
a preset is not charged a wrong answer for saying it cannot answer. The phrases are this module's
own and frozen: the product's decline detection may change, this list changes only with its tests.

Only the answer's opening sentence is read: an answer that opens with content and later notes a
gap ("… the passage does not give his age") answered.
"""

from __future__ import annotations

import re

from .text import strip_citation_markers

ENGLISH_REFUSALS = (
    r"i\s+(?:do\s+not|don'?t|cannot|can'?t)\s+know",
    r"(?:i\s+)?(?:cannot|can'?t|am\s+unable\s+to|is\s+not\s+possible\s+to|unable\s+to)\s+"
    r"(?:answer|determine|tell|find|say|be\s+determined|be\s+answered)",
    r"not\s+(?:enough|sufficient)\s+(?:information|context|evidence|detail)",
    r"(?:insufficient|no)\s+(?:information|context|evidence|mention|answer)\b",
    r"(?:passages?|context|documents?|texts?|sources?)\s+(?:provided\s+)?(?:do(?:es)?\s+not|don'?t|did\s+not)\s+"
    r"(?:contain|mention|provide|say|state|specify|include|give|answer)",
    r"(?:is|are)\s+not\s+(?:mentioned|stated|given|specified|provided)\s+in\s+the\s+(?:passage|context|text)",
)
INDONESIAN_REFUSALS = (
    r"(?:saya\s+)?tidak\s+tahu",
    r"tidak\s+(?:dapat|bisa)\s+(?:dijawab|menjawab|ditentukan|menentukan|diketahui)",
    r"tidak\s+(?:ada|cukup|terdapat)\s+(?:informasi|keterangan|data)",
    r"(?:teks|konteks|bagian|dokumen|paragraf|informasi)\w*\s+(?:tersebut\s+|ini\s+)?tidak\s+"
    r"(?:menyebutkan|mengandung|memuat|berisi|memberikan|menjelaskan)",
    r"tidak\s+diketahui\s+(?:dari|dalam|berdasarkan)\s+(?:teks|konteks|bagian|dokumen|informasi|paragraf)",
)
# "Unknown." or "Tidak diketahui." opening the answer declines; "the cause is unknown" later in a
# sentence is an answer, so these are matched at the start only.
OPENING_REFUSALS = (r"(?:the\s+answer\s+is\s+)?unknown\b", r"(?:jawaban(?:nya)?\s+)?tidak\s+diketahui\b")
CHINESE_REFUSALS = (
    r"我?不知道",
    r"无法(?:回答|确定|得知|判断|找到|得出)",
    r"(?:信息|资料|内容)不足",
    r"没有(?:足够|相关|提到|提及)",
    r"(?:文档|段落|上下文|资料|文章|材料|文本|原文)中?(?:并)?(?:没有|未)(?:提及|提到|包含|说明|提供|给出)",
)

_LATIN = re.compile(r"(?<!\w)(?:" + "|".join(ENGLISH_REFUSALS + INDONESIAN_REFUSALS) + r")", re.IGNORECASE)
_OPENING = re.compile(r"^\W*(?:" + "|".join(OPENING_REFUSALS) + r")", re.IGNORECASE)
_CHINESE = re.compile("|".join(CHINESE_REFUSALS))
_FIRST_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def opening_sentence(text: str) -> str:
    """The first sentence of `text` without citation markers ("" for an empty text)."""
    plain = strip_citation_markers(text).replace("’", "'")
    return _FIRST_SENTENCE.split(plain, maxsplit=1)[0] if plain else ""


def is_refusal(text: str) -> bool:
    """True when the answer is empty or its opening sentence declines to answer."""
    first = opening_sentence(text)
    if not first.strip(" .。"):
        return True
    return bool(_LATIN.search(first) or _OPENING.search(first) or _CHINESE.search(first))

"""Numbers written in Arabic digits: the one pattern and the one reading every rule shares.

Both thousands styles occur in the corpora: "1,200" (English) and "1.200" (Indonesian), so a
separator followed by exactly three digits groups thousands and any other "," or "." is the decimal
point ("3.5", "3,5"). Used by the anchor patterns (tools/question/anchors/patterns.py), the short
answers' numbers (tools/answer/short_numbers.py) and the Chinese number reader
(tools/text/chinese_numbers.py), so the three read "1,200" alike.
"""

from __future__ import annotations

import re

NUMBER = r"\d{1,3}(?:[,.]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_GROUP = re.compile(r"[,.](?=\d{3}\b)")


def number_value(raw: str) -> float:
    """The value of one `NUMBER` match: "1,200" → 1200, "1.200" → 1200, "3.5" and "3,5" → 3.5."""
    return float(_GROUP.sub("", raw).replace(",", "."))

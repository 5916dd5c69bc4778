"""Structure-first, token-aware chunking.

Text is split at its own structure first (blank-line sections, then lines, then sentences, then
words), and pieces are merged up to `chunk_tokens` with `overlap_tokens` carried between
consecutive chunks (LangChain's recursive splitter measured with tiktoken's offline cl100k).
Chunk ids are stable: document id, position and a content hash, so the same content always gives
the same ids and re-indexing adds no duplicates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from langchain_text_splitters import RecursiveCharacterTextSplitter

from anchorgate.tools.documents import Chunk, Passage
from anchorgate.tools.errors import ConfigError
from anchorgate.tools.tokens import ENCODING_NAME

SEPARATORS = ["\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ", ""]


@dataclass(frozen=True)
class ChunkingSettings:
    """How passages become chunks; part of every index cache key."""

    chunk_tokens: int = 120
    overlap_tokens: int = 20

    def validate(self) -> None:
        """Chunks must hold something and overlap must leave room for new text."""
        if self.chunk_tokens < 16:
            raise ConfigError(f"chunk_tokens={self.chunk_tokens} is too small (minimum 16)")
        if not 0 <= self.overlap_tokens < self.chunk_tokens:
            raise ConfigError("chunk_overlap_tokens must be >= 0 and smaller than chunk_tokens")


def make_splitter(settings: ChunkingSettings) -> RecursiveCharacterTextSplitter:
    """The recursive splitter for `settings`, measuring length in tokens."""
    settings.validate()
    return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=ENCODING_NAME,
        chunk_size=settings.chunk_tokens,
        chunk_overlap=settings.overlap_tokens,
        separators=SEPARATORS,
        keep_separator="end",
        disallowed_special=(),
    )


def chunk_id(doc_id: str, position: int, text: str) -> str:
    """Stable id: same document, position and text → same id."""
    digest = hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:10]
    return f"{doc_id}#{position}:{digest}"


def chunk_passages(passages: Iterable[Passage], settings: ChunkingSettings) -> list[Chunk]:
    """All chunks of `passages` in order, without duplicate ids."""
    splitter = make_splitter(settings)
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for passage in passages:
        pieces = [piece.strip() for piece in splitter.split_text(passage.text)]
        for position, piece in enumerate(p for p in pieces if p):
            cid = chunk_id(passage.id, position, piece)
            if cid in seen:
                continue
            seen.add(cid)
            chunks.append(
                Chunk(cid, passage.id, passage.title, piece, passage.source, position, dict(passage.metadata))
            )
    return chunks

"""Plain data types shared by the corpus, index, retrieval and dataset code.

They are frozen dataclasses of JSON-friendly values so that they can live in graph state,
be written to the docstore and be compared in tests without custom serialisers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Passage:
    """One document of a corpus, before chunking (a pydoc topic, a file, a Wikipedia passage)."""

    id: str
    title: str
    text: str
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Chunk:
    """A retrievable piece of a passage; `id` is stable across runs (doc id + position + hash)."""

    id: str
    doc_id: str
    title: str
    text: str
    source: str = ""
    position: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoredChunk:
    """A chunk with the scores retrieval gave it; `score` is the one used for ranking."""

    chunk: Chunk
    score: float
    dense: float | None = None
    sparse: float | None = None
    rank: int = 0

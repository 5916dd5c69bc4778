"""Helpers of the index tests: a seeded folder corpus and an embedding fake that records what it embeds."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.load import load_corpus
from anchorgate.tools.index.build import DenseIndex, build_or_load
from tests.fakes import BagOfWordsEmbeddings

SETTINGS = ChunkingSettings(chunk_tokens=32, overlap_tokens=4)
_WORDS = (
    "river", "town", "ledger", "ferry", "grain", "wool", "trader", "hill", "honey", "jar", "lantern", "harbor",
    "market", "bridge", "mill", "orchard", "winter", "spring", "salt", "rope", "bell", "tower", "clerk", "map",
    "coin", "stone", "forest", "road", "cart", "inn",
)  # fmt: skip


class CountingEmbeddings(BagOfWordsEmbeddings):
    """Bag-of-words vectors (deterministic) that record every text sent to `embed_documents`."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__(64)
        self.texts: list[str] = []
        self.delay = delay
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:  # type: ignore[override]
        time.sleep(self.delay)  # lets two concurrent builds overlap in the concurrency test
        with self._lock:
            self.texts.extend(texts)
        return super().embed_documents(texts)


def document_text(seed: int, sentences: int = 5) -> str:
    """A few deterministic sentences (two or three 32-token chunks)."""
    rng = random.Random(seed)
    return " ".join(
        " ".join(rng.choice(_WORDS) for _ in range(8)).capitalize() + f" number {seed}-{i}." for i in range(sentences)
    )


def write_corpus(folder: Path, count: int = 20) -> Path:
    """`doc00.txt` … : `count` small text files."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"doc{i:02d}.txt").write_text(document_text(i), encoding="utf-8")
    return folder


def index_folder(
    folder: Path, root: Path, embeddings: BagOfWordsEmbeddings | None = None, *, repair: bool = False
) -> DenseIndex:
    """The folder's index, the way `anchorgate index` builds it (slot of the resolved path)."""
    corpus = load_corpus(str(folder))
    return build_or_load(
        corpus.passages,
        embeddings or CountingEmbeddings(),
        "bow-64",
        SETTINGS,
        root,
        progress=False,
        source=corpus.identity,
        repair=repair,
    )


def generations(slot: Path) -> list[Path]:
    """Every folder in a slot (published, superseded or temporary)."""
    return sorted(p for p in slot.iterdir() if p.is_dir())

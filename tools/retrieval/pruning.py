"""Provence-style sentence-level context pruning and semantic highlights (seed 002).

Provence (Chirkova et al., 2025) scores every sentence of a retrieved chunk for relevance to the
question and keeps those above a threshold (its best: 0.6). Its trained cross-encoder is not
available offline, so this scorer combines two cheap signals per sentence:

    score = w_sem · max(0, cos(question, sentence)) + w_lex · coverage(question, sentence)

`cos` uses any LangChain `Embeddings` (vectors re-normalised here); `coverage` is the share of the
question's content words (English + Indonesian stopwords removed, light suffix folding) found
in the sentence, each word weighted by its rarity across the sentences being pruned (IDF), so
names and numbers count more than words every sentence shares. The score is divided by the
weight sum, so it lies in [0, 1]. Defaults (w_sem 0.7, w_lex 0.3, threshold 0.5, relative 0.75,
floor 0.4, title-prefixed sentence embeddings) were chosen by measurement with all-MiniLM-L6-v2
on HotpotQA and ClapNQ (bench/pruning_sweep.py), not copied from Provence's trained model: they
keep ~73% of gold evidence sentences while removing ~80% (HotpotQA, 10 paragraphs per question)
and ~36% (ClapNQ, one passage) of the tokens.

Keeping rules, in order (each kept sentence records why in `SentenceScore.reason`):
1. ``threshold``: score ≥ `threshold`.
2. ``relative``: score ≥ `relative` × the best score of the whole call and ≥ `floor`. This is
   Provence's adaptive selection: how many sentences survive depends on the question, and the
   best sentence overall is always kept when it clears the floor.
3. ``top1``: a chunk with nothing kept so far keeps its best sentence if it scores ≥ `floor`;
   below the floor the whole chunk is dropped (`PrunedChunk.dropped`, with the reason).
4. ``anaphora``: a kept sentence opening with a pronoun ("It", "This", "He", "They", "Ini",
   "Itu", "Dia" …) keeps the sentence before it, up to `anaphora_hops` steps back.
5. ``lead``: the chunk's first sentence is kept when another sentence of the chunk is kept and
   the first one names the chunk's title (the subject that later sentences refer to).
The same scores are the semantic highlights: `PrunedChunk.sentences` lists every sentence with
its offsets in the original chunk text, its score and whether it was kept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.text.content_words import content_words
from anchorgate.tools.text.sentences import Sentence, split_sentences
from anchorgate.tools.text.tokens import count_tokens

# Small function-word lists; content words are what is left (English, Indonesian).
STOPWORDS_EN = frozenset((
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with", "from",
    "as", "into", "onto", "about", "over", "under", "is", "are", "was", "were", "be", "been", "being", "am",
    "do", "does", "did", "done", "has", "have", "had", "having", "will", "would", "shall", "should", "can",
    "could", "may", "might", "must", "it", "its", "this", "that", "these", "those", "there", "here", "he",
    "she", "they", "them", "his", "her", "their", "we", "our", "you", "your", "i", "me", "my", "what",
    "which", "who", "whom", "whose", "when", "where", "why", "how", "than", "then", "so", "not", "no",
    "nor", "also", "too", "very", "just", "only", "both", "either", "neither", "each", "all", "any", "some",
    "such", "same", "other", "s", "t", "one", "ones", "name", "named", "called"
))  # fmt: skip
STOPWORDS_ID = frozenset((
    "yang", "dan", "atau", "di", "ke", "dari", "pada", "untuk", "dengan", "dalam", "adalah", "ialah",
    "merupakan", "ini", "itu", "tersebut", "apa", "siapa", "kapan", "mana", "dimana", "bagaimana",
    "mengapa", "kenapa", "berapa", "apakah", "sebuah", "seorang", "suatu", "para", "oleh", "akan", "telah",
    "sudah", "sedang", "masih", "juga", "tidak", "bukan", "ada", "saat", "sebagai", "karena", "jika",
    "kalau", "maka", "agar", "bahwa", "atas", "bagi", "antara", "hingga", "sampai", "secara", "lebih",
    "paling", "sangat", "dia", "ia", "mereka", "kami", "kita", "anda", "nya", "pun", "lah", "kah"
))  # fmt: skip
_ANAPHORA = frozenset((
    "it", "its", "this", "these", "that", "those", "he", "she", "they", "his", "her", "their", "him",
    "them", "such", "both", "ini", "itu", "dia", "ia", "mereka", "beliau", "tersebut", "hal"
))  # fmt: skip
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class PruningSettings:
    """Knobs of the pruner; defaults measured on HotpotQA + ClapNQ (bench/pruning_sweep.py)."""

    threshold: float = 0.5
    relative: float | None = 0.75  # None = absolute threshold only
    floor: float = 0.4
    semantic_weight: float = 0.7
    lexical_weight: float = 0.3
    embed_with_title: bool = True  # "title: sentence" gives a sentence its subject, as Provence reads the doc
    anaphora_hops: int = 1
    keep_lead: bool = True
    gap_marker: str = " … "
    stopwords: frozenset[str] = field(default_factory=lambda: STOPWORDS_EN | STOPWORDS_ID)

    def __post_init__(self) -> None:
        if self.semantic_weight < 0 or self.lexical_weight < 0 or self.weight_sum <= 0:
            raise ValueError("pruning weights must be non-negative and not both zero")
        if not 0.0 <= self.floor <= self.threshold <= 1.0:
            raise ValueError("pruning needs 0 <= floor <= threshold <= 1")
        if self.relative is not None and not 0.0 < self.relative <= 1.0:
            raise ValueError("pruning relative must be in (0, 1] or None")
        if self.anaphora_hops < 0:
            raise ValueError("anaphora_hops must be >= 0")

    def with_threshold(self, threshold: float, **changes: Any) -> PruningSettings:
        """These settings at another keep threshold; the chunk-drop floor follows it down, so any
        threshold in [0, 1] is valid (floor <= threshold)."""
        return replace(self, threshold=threshold, floor=min(self.floor, threshold), **changes)

    @property
    def weight_sum(self) -> float:
        return self.semantic_weight + self.lexical_weight


@dataclass(frozen=True)
class SentenceScore:
    """One sentence of a chunk with its relevance: a semantic highlight (offsets into chunk.text)."""

    text: str
    start: int
    end: int
    score: float
    kept: bool
    semantic: float = 0.0
    lexical: float = 0.0
    reason: str = ""  # why it was kept: threshold, relative, top1, anaphora, lead


@dataclass(frozen=True)
class PrunedChunk:
    """A chunk after pruning: the kept text, every sentence's score and the token saving."""

    chunk: Chunk
    text: str
    sentences: tuple[SentenceScore, ...]
    tokens_before: int
    tokens_after: int
    dropped: bool = False
    reason: str = ""

    @property
    def ratio(self) -> float:
        """Share of the chunk's tokens removed (0 = nothing pruned, 1 = all)."""
        return 1.0 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0

    @property
    def highlights(self) -> tuple[SentenceScore, ...]:
        return tuple(s for s in self.sentences if s.kept)

    def as_chunk(self) -> Chunk:
        """The original chunk with its text replaced by the kept text (id and source unchanged)."""
        meta = {**self.chunk.metadata, "pruned": True, "tokens_before_pruning": self.tokens_before}
        return replace(self.chunk, text=self.text, metadata=meta)


@dataclass(frozen=True)
class PruneResult:
    """Pruning of a set of chunks, in input order."""

    chunks: tuple[PrunedChunk, ...]

    @property
    def tokens_before(self) -> int:
        return sum(c.tokens_before for c in self.chunks)

    @property
    def tokens_after(self) -> int:
        return sum(c.tokens_after for c in self.chunks)

    @property
    def ratio(self) -> float:
        return 1.0 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0

    def kept_chunks(self) -> list[Chunk]:
        """The surviving chunks with pruned text, for the context assembler."""
        return [c.as_chunk() for c in self.chunks if not c.dropped]

    @property
    def dropped(self) -> list[PrunedChunk]:
        return [c for c in self.chunks if c.dropped]


def prune_chunks(
    question: str, chunks: Sequence[Chunk], embeddings: Embeddings, settings: PruningSettings
) -> PruneResult:
    """Score every sentence of `chunks` against `question` and keep the relevant ones."""
    split = [split_sentences(c.text) for c in chunks]
    scores = score_sentences(question, chunks, split, embeddings, settings)
    best = max((s[0] for per_chunk in scores for s in per_chunk), default=0.0)
    return PruneResult(
        tuple(_prune_one(c, s, sc, best, settings) for c, s, sc in zip(chunks, split, scores, strict=True))
    )


def score_sentences(
    question: str,
    chunks: Sequence[Chunk],
    sentences: Sequence[Sequence[Sentence]],
    embeddings: Embeddings,
    settings: PruningSettings,
) -> list[list[tuple[float, float, float]]]:
    """(score, semantic, lexical) per sentence per chunk; one batched embedding call for all sentences."""
    texts = [_embed_text(c, s.text, settings) for c, sents in zip(chunks, sentences, strict=True) for s in sents]
    semantic = _cosines(question, texts, embeddings)
    lexical = _coverages(question, [s.text for sents in sentences for s in sents], settings.stopwords)
    flat = [
        ((settings.semantic_weight * sem + settings.lexical_weight * lex) / settings.weight_sum, sem, lex)
        for sem, lex in zip(semantic, lexical, strict=True)
    ]
    out: list[list[tuple[float, float, float]]] = []
    for sents in sentences:
        out.append(flat[: len(sents)])
        flat = flat[len(sents) :]
    return out


def _embed_text(chunk: Chunk, sentence: str, settings: PruningSettings) -> str:
    text = " ".join(sentence.split())
    return f"{chunk.title}: {text}" if settings.embed_with_title and chunk.title else text


def _cosines(question: str, texts: list[str], embeddings: Embeddings) -> list[float]:
    """max(0, cosine) of the question with each text; identical texts are embedded once."""
    if not texts:
        return []
    unique = sorted(set(texts))
    matrix = _normalised(np.asarray(embeddings.embed_documents(unique), dtype=np.float64))
    query = _normalised(np.asarray([embeddings.embed_query(question)], dtype=np.float64))[0]
    sims = dict(zip(unique, (matrix @ query).tolist(), strict=True))
    return [max(0.0, float(sims[t])) for t in texts]


def _normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0.0, 1.0, norms)


def _coverages(question: str, sentences: list[str], stopwords: frozenset[str]) -> list[float]:
    """IDF-weighted share of the question's content words present in each sentence."""
    query = sorted(set(_content_words(question, stopwords)))
    if not query or not sentences:
        return [0.0] * len(sentences)
    bags = [set(_content_words(s, stopwords)) for s in sentences]
    n = len(bags)
    weights = {w: math.log(1.0 + n / (1.0 + sum(w in b for b in bags))) for w in query}
    total = sum(weights.values())
    return [sum(weights[w] for w in query if w in bag) / total for bag in bags]


def _prune_one(
    chunk: Chunk,
    sentences: list[Sentence],
    scores: list[tuple[float, float, float]],
    best_overall: float,
    settings: PruningSettings,
) -> PrunedChunk:
    before = count_tokens(chunk.text)
    reasons = _keep_reasons(chunk, sentences, [s[0] for s in scores], best_overall, settings)
    rows = tuple(
        SentenceScore(
            s.text, s.start, s.end, round(sc, 6), i in reasons, round(se, 6), round(lx, 6), reasons.get(i, "")
        )
        for i, (s, (sc, se, lx)) in enumerate(zip(sentences, scores, strict=True))
    )
    if not reasons:
        best = max((s[0] for s in scores), default=0.0)
        why = "no sentences" if not sentences else f"best sentence score {best:.3f} < floor {settings.floor}"
        return PrunedChunk(chunk, "", rows, before, 0, dropped=True, reason=why)
    text = _assemble(chunk.text, sentences, sorted(reasons), settings.gap_marker)
    return PrunedChunk(chunk, text, rows, before, count_tokens(text))


def _keep_reasons(
    chunk: Chunk, sentences: list[Sentence], scores: list[float], best_overall: float, settings: PruningSettings
) -> dict[int, str]:
    """Index → reason for every kept sentence of one chunk (rules 1–5 of the module docstring)."""
    keep = {i: "threshold" for i, s in enumerate(scores) if s >= settings.threshold}
    if settings.relative is not None:
        bar = max(settings.floor, settings.relative * best_overall)
        for i, s in enumerate(scores):
            if s >= bar:
                keep.setdefault(i, "relative")
    if not keep and scores:
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))  # earliest wins a tie
        if scores[best] >= settings.floor:
            keep[best] = "top1"
    for i in sorted(keep):
        j = i
        for _ in range(settings.anaphora_hops):
            if j == 0 or not _is_anaphoric(sentences[j].text):
                break
            j -= 1
            keep.setdefault(j, "anaphora")
    if settings.keep_lead and keep and 0 not in keep and _names_title(sentences[0].text, chunk.title, settings):
        keep[0] = "lead"
    return keep


def _is_anaphoric(sentence: str) -> bool:
    first = _WORD.match(sentence.lstrip("\"'“‘([-*• "))
    return first is not None and first.group(0).lower() in _ANAPHORA


def _names_title(sentence: str, title: str, settings: PruningSettings) -> bool:
    """Whether the sentence mentions a content word of the title (its subject)."""
    words = set(_content_words(title, settings.stopwords))
    return bool(words) and bool(words & set(_content_words(sentence, settings.stopwords)))


def _content_words(text: str, stopwords: frozenset[str]) -> list[str]:
    """Lower-cased, suffix-folded `\\w` words of `text` that are not stopwords; a lone digit counts."""
    return content_words(_WORD.findall(text.lower()), stopwords, short_numbers=True, fold=True)


def _assemble(text: str, sentences: list[Sentence], kept: list[int], gap: str) -> str:
    """Kept sentences; adjacent ones copied verbatim from the chunk, gaps marked with `gap`."""
    runs: list[tuple[int, int]] = []
    for i in kept:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return gap.join(text[sentences[a].start : sentences[b].end] for a, b in runs)

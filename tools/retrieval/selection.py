"""Pool → keep selection: meta-aware MMR, caps, list handling, reserved coverage slots (seed 000 §2, §5).

Candidates are `ScoredChunk`s whose `score` is their (gated) relevance in [0, 1] and whose `rank`
is their original retrieval rank. MMR convention (Carbonell & Goldstein, SIGIR 1998, written with
a *diversity* weight λ as in seed 000):

    mmr(c) = (1 − λ) · rel'(c) − λ · max_{s ∈ selected} sim(c, s)

where rel' is the relevance plus the title-anchor bonus (+0.07, seed 000 §5) and the list-density
boost for list questions — bonuses only for chunks whose own relevance ≥ floor. λ = 0.45 by
default; adaptively 0.2 for factoid and 0.6 for list questions. When several candidates are within
`tie_epsilon` of the best mmr, the earlier original rank wins, then the smaller id.
With `redundancy_floor` f > 0, sim is replaced by max(0, sim − f) / (1 − f): only near-duplicates
are penalized, so two different passages on related entities (a multi-hop pair) both survive.

Exact duplicates never both enter the pool: chunks of different documents with the same text
(a corpus that repeats a section in two documents, as pydoc's "customization" and "specialnames"
do) are one candidate, the better-ranked copy (`unique_by_content`), before pool_k is applied.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import numpy as np

from anchorgate.tools.corpus.documents import Chunk, ScoredChunk
from anchorgate.tools.question.anchors.model import without_particles

QuestionKind = Literal["list", "factoid", "other"]
T = TypeVar("T")

_LIST_CUES = re.compile(
    r"\b(list|enumerate|name (all|every|some|the)|what are (the|some)|which\b[^?]*\b(are|were)|"
    r"sebutkan|daftar|apa saja|siapa saja|mana saja)\b",
    re.IGNORECASE,
)
_FACTOID_CUES = re.compile(
    r"\b(who|whom|when|where|how (many|much|old|long|far)|what (year|date|time|day)|"
    r"siapa|kapan|di ?mana|berapa|tahun berapa)\b",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*•·▪‣–]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+", re.IGNORECASE)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class SelectionSettings:
    """Knobs of context selection (defaults: seed 000 Config A; Config B sets reserve 5 + 3)."""

    pool_k: int = 24
    """Candidates considered (RETRIEVAL_POOL_K); the rest are ignored."""
    keep_k: int = 8
    """Chunks kept at most (RETRIEVAL_K)."""
    mmr_diversity: float = 0.45
    """λ for questions that are neither factoid nor list (and for all when adaptive is off)."""
    adaptive_diversity: bool = True
    """Use `factoid_diversity` / `list_diversity` for detected factoid / list questions."""
    factoid_diversity: float = 0.2
    """λ for factoid questions: relevance-heavy, the single best passage matters most."""
    list_diversity: float = 0.6
    """λ for list questions: diverse, items are spread over passages."""
    anchor_bonus: float = 0.07
    """Added when the chunk title contains a query anchor (only if relevance ≥ floor)."""
    relevance_floor: float = 0.20
    """Chunks below it get no bonus and are never used to fill reserve slots (seed 004)."""
    list_boost: float = 0.05
    """For list questions: added × list density (bullets, numbering, comma enumerations)."""
    per_source_cap: int = 2
    """At most this many chunks per domain/source (metadata "domain", else source, else doc_id); ≤0 = off."""
    list_per_doc_cap: int = 2
    """For list questions: at most this many chunks per document; ≤0 = off."""
    redundancy_floor: float = 0.0
    """Similarity below which two chunks count as not redundant at all (0 = plain MMR)."""
    tie_epsilon: float = 1e-6
    """MMR scores closer than this are ties, broken by original rank then id."""
    reserve_main: int = 0
    """With reserve_extra > 0: slots filled by MMR first (Config B: 5)."""
    reserve_extra: int = 0
    """Slots then filled for coverage of anchors / sources not yet covered (Config B: 3); any slot
    left up to keep_k afterwards is filled by MMR again."""


@dataclass(frozen=True)
class Pick:
    """Why one chunk was kept: its adjusted relevance, mmr score and the slot kind."""

    id: str
    relevance: float
    mmr: float
    reason: Literal["mmr", "reserve"]


@dataclass(frozen=True)
class SelectionResult:
    """Kept chunks in selection order (score = adjusted relevance) and a trace for telemetry."""

    selected: list[ScoredChunk]
    picks: list[Pick]
    question_kind: QuestionKind
    diversity: float
    capped_ids: list[str] = field(default_factory=list)
    duplicate_ids: list[str] = field(default_factory=list)
    """Candidates left out because a better-ranked candidate has the same text."""


def content_key(text: str) -> str:
    """Identity of a chunk's content: sha1 of its text with whitespace runs collapsed."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8"), usedforsecurity=False).hexdigest()


def unique_by_content(items: Iterable[T], text: Callable[[T], str]) -> tuple[list[T], list[T]]:
    """(first occurrence of every distinct text, the later copies), both in the given order.

    Give the items best first: the better-ranked copy is the one kept, so with a stable order
    (score, then rank, then id) the choice is deterministic.
    """
    seen: set[str] = set()
    kept: list[T] = []
    dropped: list[T] = []
    for item in items:
        key = content_key(text(item))
        (dropped if key in seen else kept).append(item)
        seen.add(key)
    return kept, dropped


def question_kind(question: str) -> QuestionKind:
    """"list" on enumeration cues (en/id), "factoid" on who/when/how-many-style cues, else "other"."""
    if _LIST_CUES.search(question):
        return "list"
    return "factoid" if _FACTOID_CUES.search(without_particles(question)) else "other"


def list_density(text: str) -> float:
    """How list-like a passage is, in [0, 1]: share of bulleted/numbered lines (≥ 2 lines), or
    the longest comma enumeration in one sentence (4+ commas → 1.0), whichever is larger."""
    lines = [line for line in text.splitlines() if line.strip()]
    bullets = sum(bool(_BULLET.match(line)) for line in lines)
    line_score = bullets / len(lines) if len(lines) >= 2 and bullets >= 2 else 0.0
    commas = max((s.count(",") for s in re.split(r"[.;!?\n]", text)), default=0)
    enum_score = min(commas / 4.0, 1.0) if commas >= 2 else 0.0
    return max(line_score, enum_score)


def contains_anchor(text: str, anchor: str) -> bool:
    """True when `anchor` occurs in `text` as a whole-word sequence, case-insensitively ("AO" ∉ "also")."""
    needle = anchor.casefold().strip()
    return bool(needle) and re.search(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", text.casefold()) is not None


def title_has_anchor(title: str, anchors: Sequence[str]) -> bool:
    """True when some anchor occurs in the title (seed 000 §5 title-match bonus)."""
    return any(contains_anchor(title, anchor) for anchor in anchors)


def source_key(chunk: Chunk) -> str:
    """The domain/source a chunk counts against for the per-source cap."""
    return str(chunk.metadata.get("domain") or chunk.source or chunk.doc_id)


def diversity_for(kind: QuestionKind, settings: SelectionSettings) -> float:
    """λ for a question kind (seed 000 §2: factoid → relevance-heavy, list → diverse)."""
    if not settings.adaptive_diversity or kind == "other":
        return settings.mmr_diversity
    return settings.factoid_diversity if kind == "factoid" else settings.list_diversity


def adjusted_relevance(
    candidate: ScoredChunk, anchors: Sequence[str], is_list: bool, settings: SelectionSettings
) -> float:
    """Relevance plus the title-anchor bonus and list boost, both only for relevant chunks."""
    base = candidate.score
    if base < settings.relevance_floor:
        return base
    if title_has_anchor(candidate.chunk.title, anchors):
        base += settings.anchor_bonus
    if is_list:
        base += settings.list_boost * list_density(candidate.chunk.text)
    return base


def _similarity_matrix(pool: Sequence[ScoredChunk], embeddings: np.ndarray | None) -> np.ndarray:
    """Cosine similarities between pool members (word-set Jaccard when no embeddings are given)."""
    if embeddings is not None:
        vectors = np.asarray(embeddings, dtype=np.float64)[: len(pool)]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms > 0, norms, 1.0)
        return np.asarray(vectors @ vectors.T)
    sets = [set(_WORD.findall(c.chunk.text.casefold())) for c in pool]
    sim = np.zeros((len(pool), len(pool)))
    for i, a in enumerate(sets):
        for j, b in enumerate(sets):
            sim[i, j] = len(a & b) / len(a | b) if a | b else 0.0
    return sim


def _near_duplicates(sim: np.ndarray, floor: float) -> np.ndarray:
    """max(0, sim − floor) / (1 − floor): similarity above the floor, rescaled to [0, 1]."""
    if floor <= 0.0:
        return sim
    if floor >= 1.0:
        raise ValueError(f"redundancy_floor must be below 1, got {floor}")
    return np.clip(sim - floor, 0.0, None) / (1.0 - floor)


class _State:
    """Mutable bookkeeping of one greedy selection run (never escapes `select`)."""

    def __init__(self, pool: Sequence[ScoredChunk], rel: list[float], sim: np.ndarray) -> None:
        self.pool, self.rel, self.sim = pool, rel, sim
        self.chosen: list[int] = []
        self.picks: list[Pick] = []
        self.sources: Counter[str] = Counter()
        self.docs: Counter[str] = Counter()
        self.capped: set[int] = set()

    def allowed(self, i: int, is_list: bool, settings: SelectionSettings) -> bool:
        chunk = self.pool[i].chunk
        if 0 < settings.per_source_cap <= self.sources[source_key(chunk)]:
            self.capped.add(i)
            return False
        if is_list and 0 < settings.list_per_doc_cap <= self.docs[chunk.doc_id]:
            self.capped.add(i)
            return False
        return True

    def mmr(self, i: int, diversity: float) -> float:
        redundancy = max((float(self.sim[i, j]) for j in self.chosen), default=0.0)
        return (1.0 - diversity) * self.rel[i] - diversity * redundancy

    def take(self, i: int, mmr: float, reason: Literal["mmr", "reserve"]) -> None:
        chunk = self.pool[i].chunk
        self.chosen.append(i)
        self.picks.append(Pick(chunk.id, self.rel[i], mmr, reason))
        self.sources[source_key(chunk)] += 1
        self.docs[chunk.doc_id] += 1


def _best(state: _State, options: list[int], key: list[float], eps: float) -> int:
    """Index with the highest key; keys within eps of the best tie → earlier rank, then id."""
    top = max(key[i] for i in options)
    tied = [i for i in options if key[i] >= top - eps]
    return min(tied, key=lambda i: (state.pool[i].rank, state.pool[i].chunk.id))


def _open(state: _State, is_list: bool, settings: SelectionSettings) -> list[int]:
    """Pool indices not chosen yet and not blocked by a cap."""
    chosen = set(state.chosen)
    return [i for i in range(len(state.pool)) if i not in chosen and state.allowed(i, is_list, settings)]


def _coverage_gain(state: _State, i: int, anchors: Sequence[str]) -> float:
    """Anchors this chunk adds that no chosen chunk covers (weight 1 each), + 0.5 for a new source."""

    def covers(j: int, anchor: str) -> bool:
        chunk = state.pool[j].chunk
        return contains_anchor(f"{chunk.title}\n{chunk.text}", anchor)

    missing = [a for a in anchors if a.strip() and not any(covers(j, a) for j in state.chosen)]
    new_source = source_key(state.pool[i].chunk) not in state.sources
    return sum(covers(i, a) for a in missing) + 0.5 * new_source


def _rank_key(candidate: ScoredChunk) -> tuple[float, int, str]:
    """Stable order of candidates: score desc, original rank asc, id asc."""
    return (-candidate.score, candidate.rank, candidate.chunk.id)


def select(
    question: str,
    candidates: Sequence[ScoredChunk],
    embeddings: np.ndarray | None = None,
    anchors: Sequence[str] = (),
    settings: SelectionSettings | None = None,
) -> SelectionResult:
    """Choose up to keep_k of the top pool_k candidates (seed 000 §2, §5; Config B reserve slots).

    `candidates[i].score` must be the chunk's relevance on the gate's [0, 1] scale (`tools.retrieval.gating`),
    `rank` its original retrieval rank. `embeddings` rows align with
    `candidates` (any scale; L2-normalized here); without them redundancy is word-set Jaccard.
    Candidates repeating a better-ranked candidate's text are dropped first (`duplicate_ids`).
    With reserve_extra > 0: reserve_main MMR slots, then reserve_extra coverage slots, then MMR
    again for any slots left up to keep_k.
    """
    s = settings or SelectionSettings()
    if embeddings is not None and len(embeddings) != len(candidates):
        raise ValueError(f"{len(embeddings)} embeddings for {len(candidates)} candidates")
    ordered = sorted(range(len(candidates)), key=lambda i: _rank_key(candidates[i]))
    unique, copies = unique_by_content(ordered, lambda i: candidates[i].chunk.text)
    top = unique[: s.pool_k]
    pool = [candidates[i] for i in top]
    emb = None if embeddings is None else np.asarray(embeddings)[top]
    kind = question_kind(question)
    is_list, diversity = kind == "list", diversity_for(kind, s)
    rel = [adjusted_relevance(c, anchors, is_list, s) for c in pool]
    state = _State(pool, rel, _near_duplicates(_similarity_matrix(pool, emb), s.redundancy_floor))
    reserving = s.reserve_extra > 0
    main_slots = min(s.reserve_main, s.keep_k) if reserving else s.keep_k
    _fill_mmr(state, main_slots, diversity, is_list, s)
    if reserving:
        _fill_reserve(state, anchors, diversity, is_list, s)
        _fill_mmr(state, s.keep_k, diversity, is_list, s)
    selected = [dataclasses.replace(pool[i], score=rel[i]) for i in state.chosen]
    capped = [pool[i].chunk.id for i in sorted(state.capped - set(state.chosen))]
    duplicates = [candidates[i].chunk.id for i in copies]
    return SelectionResult(selected, state.picks, kind, diversity, capped, duplicates)


def _fill_mmr(state: _State, slots: int, diversity: float, is_list: bool, s: SelectionSettings) -> None:
    """Greedy MMR until `slots` chunks are chosen or no allowed candidate is left."""
    while len(state.chosen) < slots:
        options = _open(state, is_list, s)
        if not options:
            return
        open_set = set(options)
        scores = [state.mmr(i, diversity) if i in open_set else 0.0 for i in range(len(state.pool))]
        best = _best(state, options, scores, s.tie_epsilon)
        state.take(best, scores[best], "mmr")


def _fill_reserve(
    state: _State, anchors: Sequence[str], diversity: float, is_list: bool, s: SelectionSettings
) -> None:
    """Reserve slots: the relevant chunk adding most uncovered anchors/sources (MMR breaks ties);
    plain MMR once nothing adds coverage."""
    limit = min(s.keep_k, len(state.chosen) + s.reserve_extra)
    while len(state.chosen) < limit:
        options = [i for i in _open(state, is_list, s) if state.pool[i].score >= s.relevance_floor]
        gains = {i: _coverage_gain(state, i, anchors) for i in options}
        useful = [i for i in options if gains[i] > 0]
        if not useful:
            _fill_mmr(state, limit, diversity, is_list, s)
            return
        scores = [state.mmr(i, diversity) if i in gains else 0.0 for i in range(len(state.pool))]
        # Coverage first, MMR second: a large constant keeps gain levels apart within the key.
        key = [gains.get(i, 0.0) * 1e3 + scores[i] for i in range(len(state.pool))]
        best = _best(state, useful, key, s.tie_epsilon)
        state.take(best, scores[best], "reserve")

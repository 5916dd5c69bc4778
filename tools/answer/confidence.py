"""Retrieval confidence, guarded query rewriting and DRAGIN generation confidence (seed 001).

Retrieval confidence (seed 001 §1, eqs. 1–8), from the top-K cosine distances d_i ∈ [0, 2]:
    s_i = 1 − min(d_i / 2, 1);  concentration = max(s) − mean(s)
    conf = max(s) · clamp(concentration / 0.3, 0, 1) · clamp(L / 6, 0.3, 1)    (L = query words)
conf ≥ 0.7 → bypass the rewrite.

Guarded rewriting (seed 001 §3): a rewrite / decomposition q' is kept only if cos(q, q') ≥ 0.9,
its entities equal the original's, its top distance is not worse by more than 0.15, and the
Jaccard overlap of retrieved sources is ≥ 0.2 — checked in that order; the first failure names
the decision. What is checked before and around it (empty, identical, other-language rewrites;
entities compared case-blind) is in `tools.answer.rewrite_guard`.

DRAGIN (seed 001 §2, eqs. 9–12): per token, renormalize the top-k logprobs to p_j, take the
Shannon entropy H_t in nats; conf = 1 − normalize(mean H_t). Seed 001 leaves `normalize` open;
here each H_t is divided by ln(k_t), its maximum for k_t candidates (so it lies in [0, 1]), or,
when `normalizer` is given, mean H / normalizer clipped to [0, 1] (the seed's example:
normalize(0.85) = 0.5 ⇔ normalizer 1.7). Missing logprobs ⇒ confidence 0 (uncertain).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from anchorgate.tools.text.stopwords import ENGLISH_STOPWORDS, INDONESIAN_STOPWORDS

TopLogprobs = Sequence[float] | Mapping[str, float]

# Capitalized words that start questions or instructions, not names.
_INSTRUCTIONS = "i explain describe list name give tell show find compare define please jelaskan sebutkan"
_NOT_ENTITIES = ENGLISH_STOPWORDS | INDONESIAN_STOPWORDS | frozenset(_INSTRUCTIONS.split())
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")
_NUMBER = re.compile(r"\w*\d[\w]*(?:[.,]\d+)*%?")
# Whole letter-only words: "Q" of "Q1" is not a word (the number rule takes "Q1").
_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?:['’-][^\W\d_]+)*(?!\w)")


def clamp(x: float, low: float, high: float) -> float:
    """min(max(x, low), high) — seed 001 eq. 5."""
    return min(max(x, low), high)


def distance_to_similarity(distance: float) -> float:
    """s = 1 − min(d/2, 1) for a cosine distance d ∈ [0, 2] — seed 001 eq. 1."""
    return 1.0 - min(max(distance, 0.0) / 2.0, 1.0)


def query_length(query: str) -> int:
    """L of seed 001 eq. 7: the number of words in the query."""
    return len(re.findall(r"\w+", query))


@dataclass(frozen=True)
class RetrievalConfidence:
    """Every intermediate of seed 001 §1, for logging."""

    similarities: tuple[float, ...]
    top: float
    mean: float
    concentration: float
    concentration_weight: float
    length_weight: float
    confidence: float
    bypass_rewrite: bool


def retrieval_confidence(
    distances: Sequence[float],
    query_words: int,
    concentration_scale: float = 0.3,
    length_norm: float = 6.0,
    bypass_threshold: float = 0.7,
) -> RetrievalConfidence:
    """Seed 001 eq. 8: conf = s1 · clamp(conc/scale, 0, 1) · clamp(L/norm, 0.3, 1); no hits → 0."""
    sims = tuple(distance_to_similarity(d) for d in distances)
    if not sims:
        return RetrievalConfidence((), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, False)
    top, mean = max(sims), sum(sims) / len(sims)
    concentration = top - mean
    conc_weight = clamp(concentration / concentration_scale, 0.0, 1.0)
    length_weight = clamp(query_words / length_norm, 0.3, 1.0)
    conf = top * conc_weight * length_weight
    return RetrievalConfidence(
        sims, top, mean, concentration, conc_weight, length_weight, conf, conf >= bypass_threshold
    )


def _norm(entity: str) -> str:
    return " ".join(entity.casefold().split())


def _capitalized_spans(text: str) -> list[str]:
    """Runs of capitalized words separated only by spaces, minus question/instruction words."""
    spans: list[str] = []
    current: list[str] = []
    last_end = -1
    for match in _WORD.finditer(text):
        word = match.group()
        is_name = word[0].isupper() and word.casefold() not in _NOT_ENTITIES
        adjacent = last_end >= 0 and text[last_end : match.start()].strip(" ") == ""
        if current and not (is_name and adjacent):
            spans.append(" ".join(current))
            current = []
        if is_name:
            current.append(word)
        last_end = match.end()
    if current:
        spans.append(" ".join(current))
    return spans


def extract_entities(text: str) -> frozenset[str]:
    """Casefolded entities by a simple rule: quoted strings, tokens with digits ("2019", "Q1",
    "3.5%") and runs of capitalized words ("US Open"), skipping question words like "Who"."""
    quoted = [a or b for a, b in _QUOTED.findall(text)]
    unquoted = _QUOTED.sub(" ", text)
    found = quoted + _NUMBER.findall(unquoted) + _capitalized_spans(unquoted)
    return frozenset(_norm(e) for e in found if e.strip())


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity of two vectors — seed 001 eq. 13 (0.0 when either is all zeros)."""
    u, v = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    denom = float(np.linalg.norm(u) * np.linalg.norm(v))
    return float(u @ v) / denom if denom > 0 else 0.0


def jaccard(a: Collection[str], b: Collection[str]) -> float:
    """|A ∩ B| / |A ∪ B| — seed 001 eq. 14. Two empty sets give 0.0: nothing to validate against."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


@dataclass(frozen=True)
class RewriteDecision:
    """Whether a rewrite is kept, with the measured values and the first failed check."""

    accepted: bool
    reason: str
    similarity: float
    top_distance_delta: float
    jaccard: float


@dataclass(frozen=True)
class RewriteThresholds:
    """Seed 001 §4 defaults."""

    min_similarity: float = 0.9
    top_distance_margin: float = 0.15
    min_jaccard: float = 0.2


def validate_rewrite(
    similarity: float,
    original_entities: Collection[str],
    rewrite_entities: Collection[str],
    original_top_distance: float,
    rewrite_top_distance: float,
    original_sources: Collection[str],
    rewrite_sources: Collection[str],
    thresholds: RewriteThresholds | None = None,
) -> RewriteDecision:
    """Seed 001 §3 validator. Reasons: BLOCK_SIMILARITY, BLOCK_ENTITIES, BLOCK_TOP_DISTANCE,
    BLOCK_JACCARD or ACCEPT. For a decomposition pass the union of the sub-queries' entities
    and sources. Entities compare as casefolded sets (`extract_entities` gives such sets)."""
    t = thresholds or RewriteThresholds()
    delta = rewrite_top_distance - original_top_distance
    jac = jaccard(original_sources, rewrite_sources)

    def decide(reason: str) -> RewriteDecision:
        return RewriteDecision(reason == "ACCEPT", reason, similarity, delta, jac)

    if similarity < t.min_similarity:
        return decide("BLOCK_SIMILARITY")
    if {_norm(e) for e in original_entities} != {_norm(e) for e in rewrite_entities}:
        return decide("BLOCK_ENTITIES")
    # The 1e-9 slack keeps 0.2 + 0.15 from failing on float rounding at exactly the margin.
    if delta > t.top_distance_margin + 1e-9:
        return decide("BLOCK_TOP_DISTANCE")
    if jac < t.min_jaccard:
        return decide("BLOCK_JACCARD")
    return decide("ACCEPT")


def _finite_logprobs(top: TopLogprobs) -> list[float]:
    values = top.values() if isinstance(top, Mapping) else top
    return [float(v) for v in values if math.isfinite(float(v))]


def token_entropy(top_logprobs: TopLogprobs) -> float:
    """Shannon entropy (nats) of one token's top-k candidates renormalized to sum 1 — eqs. 9–10."""
    logprobs = np.asarray(_finite_logprobs(top_logprobs), dtype=np.float64)
    if logprobs.size == 0:
        raise ValueError("no finite logprobs for this token")
    shifted = logprobs - logprobs.max()  # log-sum-exp shift: exact, and no overflow/underflow
    p = np.exp(shifted) / np.exp(shifted).sum()
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def _normalized(entropy: float, logprobs: list[float]) -> float:
    """H / ln(k): 0 for a single candidate (no choice), 1 for a token without candidates."""
    if not logprobs:
        return 1.0
    return entropy / math.log(len(logprobs)) if len(logprobs) > 1 else 0.0


@dataclass(frozen=True)
class GenerationConfidence:
    """DRAGIN summary of one generation."""

    confidence: float
    mean_entropy: float
    normalized_entropy: float
    n_tokens: int
    missing: bool
    uncertain: bool


def dragin_confidence(
    tokens: Sequence[TopLogprobs] | None, normalizer: float | None = None, threshold: float = 0.5
) -> GenerationConfidence:
    """conf = 1 − normalize(mean H) — seed 001 eq. 12; `uncertain` when conf < threshold (0.5).

    No logprobs at all ⇒ conf 0, missing=True. A token whose candidate list is empty counts as
    maximally uncertain (normalized entropy 1, raw entropy ln of the largest k seen).
    """
    lists = [_finite_logprobs(t) for t in tokens or []]
    present = [lp for lp in lists if lp]
    if not present:
        return GenerationConfidence(0.0, float("nan"), 1.0, len(lists), True, True)
    k_ref = max(2, max(len(lp) for lp in present))
    entropies = [token_entropy(lp) if lp else math.log(k_ref) for lp in lists]
    mean_h = float(np.mean(entropies))
    if normalizer is not None:
        normalized = clamp(mean_h / normalizer, 0.0, 1.0) if normalizer > 0 else 1.0
    else:
        normalized = float(np.mean([_normalized(h, lp) for h, lp in zip(entropies, lists, strict=True)]))
    conf = 1.0 - normalized
    return GenerationConfidence(conf, mean_h, normalized, len(lists), False, conf < threshold)


def yes_probability(first_tokens: Sequence[tuple[str, float]] | None) -> float | None:
    """P(YES) / (P(YES) + P(NO)) over the first position's candidates ("YES", "Yes", " yes", …).

    A small model's greedy yes/no is dominated by its bias; the ratio of the two masses still ranks
    supported answers above unsupported ones (docs/benchmark-log.md, judge check). None when neither word
    is among the candidates or the model reported none.
    """
    masses = {"yes": 0.0, "no": 0.0}
    for text, logprob in first_tokens or []:
        word = text.strip().lower()
        if word in masses and math.isfinite(logprob):
            masses[word] += math.exp(logprob)
    total = masses["yes"] + masses["no"]
    return round(masses["yes"] / total, 4) if total > 0 else None


def abstain_probability(first_tokens: Sequence[tuple[str, float]] | None, refusal: str) -> float | None:
    """Probability that the reply starts as `refusal` ("I don't know"): the first position's mass
    on tokens that begin it. None when the model reported no candidates.

    A greedy decoder answers whenever another first token is likelier, even when the refusal was
    nearly as likely; this number keeps that near-miss, so the gate can abstain on it.
    """
    if not first_tokens:
        return None
    target = refusal.strip().lower()
    mass = 0.0
    for text, logprob in first_tokens:
        piece = text.strip().lower()
        if piece and target.startswith(piece) and math.isfinite(logprob):
            mass += math.exp(logprob)
    return round(min(1.0, mass), 4)


def answer_span(reply: str) -> str:
    """The part of a reply that carries the answer: its first line, cut at the end of the first sentence.

    Seed 001 measures uncertainty "over the answer span, not the whole reply": a quoted draft's
    answer is its first line (the QUOTE line after it is copied under a grammar, near-certain by
    construction), a free draft's is its first sentence (later sentences elaborate).
    """
    first_line = reply.strip().split("\n", 1)[0]
    match = re.search(r"[.!?](?:\s|$)", first_line)
    return first_line[: match.end()].strip() if match else first_line


def answer_span_confidence(
    reply: str, tokens: Sequence[TopLogprobs] | None, count_tokens: Callable[[str], int], threshold: float = 0.5
) -> GenerationConfidence:
    """DRAGIN confidence over the reply's answer span only (`answer_span`).

    The span's length in model tokens is estimated with `count_tokens` (the logprob rows carry no
    token text), so the first n rows are the span's; never fewer than one row.
    """
    if not tokens:
        return dragin_confidence(tokens, threshold=threshold)
    n = max(1, min(len(tokens), count_tokens(answer_span(reply))))
    return dragin_confidence(list(tokens)[:n], threshold=threshold)

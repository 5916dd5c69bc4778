"""Support overlap: the share of answer sentences (claims) supported by the passages they cite.

A claim's support score mixes lexical evidence (share of its content words found in the cited
passages) and semantic evidence (best cosine between the claim and a sentence of those passages):
0.6·lexical + 0.4·semantic, an entailment proxy that needs no extra model. A claim without a
marker is checked against the passage the citation resolver attributes it to, if any.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from anchorgate.tools.answer_text import CITATION, cited_numbers, is_idk, strip_citations
from anchorgate.tools.citations import attribute_claim, word_share
from anchorgate.tools.sentences import split_sentences

LEXICAL_WEIGHT, SEMANTIC_WEIGHT = 0.6, 0.4


@dataclass(frozen=True)
class ClaimSupport:
    """One answer sentence and how well its cited passages support it."""

    text: str
    cited: list[int]
    lexical: float
    semantic: float
    score: float
    supported: bool


def answer_claims(answer: str) -> list[tuple[str, list[int]]]:
    """(claim text without markers, cited numbers); a lone "[1]." joins the sentence before it."""
    claims: list[tuple[str, list[int]]] = []
    for sentence in split_sentences(answer):
        text = strip_citations(sentence.text)
        numbers = cited_numbers(sentence.text)
        if not CITATION.sub("", sentence.text).strip(" .;,") and claims:
            previous, cited = claims[-1]
            claims[-1] = (previous, cited + [n for n in numbers if n not in cited])
            continue
        if text:
            claims.append((text, numbers))
    return claims


def support_report(
    answer: str,
    context: Sequence[dict[str, Any]],
    embeddings: Embeddings | None,
    threshold: float = 0.5,
) -> tuple[float, list[ClaimSupport]]:
    """(overlap, per-claim support). An "I don't know" or empty answer has overlap 0."""
    if is_idk(answer) or not context:
        return 0.0, []
    by_number = {int(p["n"]): p for p in context}
    claims = answer_claims(answer)
    cited_sets = [_cited_passages(text, numbers, by_number, context) for text, numbers in claims]
    semantic = _semantic_scores([text for text, _ in claims], cited_sets, embeddings)
    results = []
    for (text, _numbers), passages, sem in zip(claims, cited_sets, semantic, strict=True):
        lexical = word_share(text, " ".join(f"{p['title']} {p['text']}" for p in passages)) if passages else 0.0
        score = LEXICAL_WEIGHT * lexical + SEMANTIC_WEIGHT * sem if passages else 0.0
        cited = [int(p["n"]) for p in passages]
        results.append(ClaimSupport(text, cited, round(lexical, 4), round(sem, 4), round(score, 4), score >= threshold))
    overlap = sum(c.supported for c in results) / len(results) if results else 0.0
    return round(overlap, 4), results


def _cited_passages(
    text: str, numbers: list[int], by_number: dict[int, dict[str, Any]], context: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    valid = [by_number[n] for n in numbers if n in by_number]
    if valid or numbers:
        return valid  # a claim citing only non-existent passages is unsupported
    guess = attribute_claim(text, context)
    return [by_number[guess]] if guess is not None else []


def _semantic_scores(
    claims: list[str], cited_sets: list[list[dict[str, Any]]], embeddings: Embeddings | None
) -> list[float]:
    """Best cosine between each claim and any sentence of its cited passages (0 without a model)."""
    if embeddings is None or not claims:
        return [0.0] * len(claims)
    sentence_lists = [[s.text for p in ps for s in split_sentences(p["text"])] for ps in cited_sets]
    flat = [s for group in sentence_lists for s in group]
    if not flat:
        return [0.0] * len(claims)
    vectors = np.asarray(embeddings.embed_documents([*claims, *flat]), dtype="float32")
    claim_vecs, sentence_vecs = vectors[: len(claims)], vectors[len(claims) :]
    scores, offset = [], 0
    for i, group in enumerate(sentence_lists):
        block = sentence_vecs[offset : offset + len(group)]
        offset += len(group)
        scores.append(float(max(0.0, (block @ claim_vecs[i]).max())) if len(group) else 0.0)
    return scores


def claims_as_dicts(claims: Sequence[ClaimSupport]) -> list[dict[str, Any]]:
    """JSON-ready claim records for state and telemetry."""
    return [asdict(c) for c in claims]


def keep_supported(answer: str, claims: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """The answer without its unsupported sentences (markers kept) and how many were dropped.

    The answer is returned unchanged when no sentence is supported (the gate decides that case)
    or when the claims do not line up with the sentences (never guess).
    """
    pieces: list[list[str]] = []
    for sentence in split_sentences(answer):
        if not CITATION.sub("", sentence.text).strip(" .;,") and pieces:
            pieces[-1].append(sentence.text)
        elif strip_citations(sentence.text):
            pieces.append([sentence.text])
    if len(pieces) != len(claims) or not any(c["supported"] for c in claims):
        return answer, 0
    kept = [" ".join(p) for p, c in zip(pieces, claims, strict=True) if c["supported"]]
    return " ".join(kept), len(pieces) - len(kept)

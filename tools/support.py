"""Support overlap: the share of answer sentences (claims) supported by the passages they cite.

A claim's support score mixes lexical evidence (share of its content words found in the cited
passages) and semantic evidence (best cosine between the claim and a sentence of those passages):
0.6·lexical + 0.4·semantic, an entailment proxy that needs no extra model. A claim without a
marker is checked against the passage the citation resolver attributes it to, if any.
"""

from __future__ import annotations

import re
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
        lexical, score = _combined_score(text, passages, sem)
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


def _claim_pieces(answer: str) -> list[list[str]]:
    """The answer's sentences grouped as `answer_claims` groups them (a lone "[1]." joins its claim)."""
    pieces: list[list[str]] = []
    for sentence in split_sentences(answer):
        if not CITATION.sub("", sentence.text).strip(" .;,") and pieces:
            pieces[-1].append(sentence.text)
        elif strip_citations(sentence.text):
            pieces.append([sentence.text])
    return pieces


def keep_supported(answer: str, claims: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """The answer without its unsupported sentences (markers kept) and how many were dropped.

    The answer is returned unchanged when no sentence is supported (the gate decides that case)
    or when the claims do not line up with the sentences (never guess).
    """
    pieces = _claim_pieces(answer)
    if len(pieces) != len(claims) or not any(c["supported"] for c in claims):
        return answer, 0
    kept = [" ".join(p) for p, c in zip(pieces, claims, strict=True) if c["supported"]]
    return " ".join(kept), len(pieces) - len(kept)


def repair_citations(
    answer: str,
    context: Sequence[dict[str, Any]],
    embeddings: Embeddings | None,
    threshold: float = 0.5,
) -> tuple[str, list[dict[str, Any]]]:
    """The answer with misplaced markers moved to the passage that supports the claim, and the repairs.

    A small model often puts a right fact under the wrong number ("The Exies [1]" where [1] is the
    other band). A claim whose cited passages do not support it is re-cited to the single passage
    that does (support score ≥ `threshold`; the best one, the lower number on ties). Claims without
    markers are left to attribution, and a claim no passage supports keeps its markers, so the gate
    still sees it unsupported. Only markers change; the words never do.
    """
    if is_idk(answer) or not context:
        return answer, []
    pieces = [" ".join(piece) for piece in _claim_pieces(answer)]
    _overlap, claims = support_report(answer, context, embeddings, threshold)  # one batched pass
    if len(claims) != len(pieces):
        return answer, []  # claims and sentences do not line up: never guess
    # Only a claim that cites a marker and is not supported by it is worth scoring against every passage.
    todo = [i for i, (piece, claim) in enumerate(zip(pieces, claims, strict=True))
            if not claim.supported and cited_numbers(piece)]  # fmt: skip
    if not todo:
        return answer, []
    scores = _scores_per_passage([claims[i].text for i in todo], context, embeddings)
    repairs = []
    for i, row in zip(todo, scores, strict=True):
        best_score, best_n = max((score, -int(p["n"])) for score, p in zip(row, context, strict=True))
        if best_score >= threshold:
            repairs.append({"claim": claims[i].text, "from": cited_numbers(pieces[i]), "to": -best_n,
                            "score": round(best_score, 4)})  # fmt: skip
            pieces[i] = _with_single_marker(pieces[i], -best_n)
    return (" ".join(pieces), repairs) if repairs else (answer, [])


def _scores_per_passage(
    claims: list[str], context: Sequence[dict[str, Any]], embeddings: Embeddings | None
) -> list[list[float]]:
    """Support score of each claim against each single passage; every text is embedded once."""
    sentence_lists = [[s.text for s in split_sentences(p["text"])] for p in context]
    semantic = np.zeros((len(claims), len(context)), dtype="float32")
    flat = [s for group in sentence_lists for s in group]
    if embeddings is not None and flat:
        vectors = np.asarray(embeddings.embed_documents([*claims, *flat]), dtype="float32")
        similarity = vectors[: len(claims)] @ vectors[len(claims) :].T
        offset = 0
        for j, group in enumerate(sentence_lists):
            if group:
                semantic[:, j] = np.maximum(0.0, similarity[:, offset : offset + len(group)].max(axis=1))
            offset += len(group)
    return [[_combined_score(claim, [p], float(semantic[i, j]))[1] for j, p in enumerate(context)]
            for i, claim in enumerate(claims)]  # fmt: skip


def _combined_score(claim: str, passages: list[dict[str, Any]], semantic: float) -> tuple[float, float]:
    """(lexical share, support score) of a claim against passages; (0, 0) without passages."""
    if not passages:
        return 0.0, 0.0
    lexical = word_share(claim, " ".join(f"{p['title']} {p['text']}" for p in passages))
    return lexical, LEXICAL_WEIGHT * lexical + SEMANTIC_WEIGHT * semantic


def _with_single_marker(text: str, number: int) -> str:
    """`text` with its first marker replaced by [number] and the others removed."""
    seen = [False]

    def swap(_match: re.Match[str]) -> str:
        first = not seen[0]
        seen[0] = True
        return f"[{number}]" if first else ""

    replaced = CITATION.sub(swap, text)
    replaced = re.sub(r"\s+([.,;:!?])", r"\1", replaced)
    replaced = re.sub(r"([.;!?])(?:\1)+", r"\1", replaced)  # "[1][3]. [1]." ends in one stop
    return " ".join(replaced.split())

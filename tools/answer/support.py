"""Support overlap: the share of answer sentences (claims) supported by the passages they cite.

A claim's support score mixes lexical evidence (share of its content words found in the cited
passages) and semantic evidence (best cosine between the claim and a sentence of those passages):
0.6·lexical + 0.4·semantic, an entailment proxy that needs no extra model. A claim without a
marker is checked against the passage the citation resolver attributes it to, if any.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from anchorgate.tools.answer.claim_words import stems, term_share
from anchorgate.tools.answer.text import CITATION, cited_numbers, is_idk, strip_citations
from anchorgate.tools.text.sentences import split_sentences

LEXICAL_WEIGHT, SEMANTIC_WEIGHT = 0.6, 0.4

SUPPORTED_AT = 0.5  # claim support (0.6 lexical + 0.4 semantic) that counts as supported: the seed's


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
    context: Sequence[Mapping[str, Any]],
    embeddings: Embeddings | None,
    threshold: float = SUPPORTED_AT,
) -> tuple[float, list[ClaimSupport]]:
    """(overlap, per-claim support). An "I don't know" or empty answer has overlap 0.

    A claim with markers is scored against the passages it cites (none valid: unsupported); a claim
    without markers against its best passage (the lower number on ties). Words are matched as
    stems, without filler (tools/answer/claim_words.py).
    """
    if is_idk(answer) or not context:
        return 0.0, []
    claims = answer_claims(answer)
    grid = _ClaimGrid([text for text, _ in claims], context, embeddings)
    results = []
    for i, (text, numbers) in enumerate(claims):
        lexical, semantic, score, cited = grid.best(i, numbers)
        results.append(ClaimSupport(text, cited, round(lexical, 4), round(semantic, 4), round(score, 4),
                                    score >= threshold))  # fmt: skip
    overlap = sum(c.supported for c in results) / len(results) if results else 0.0
    return round(overlap, 4), results


class _ClaimGrid:
    """Lexical and semantic support of every claim against every passage, each text embedded once."""

    def __init__(self, claims: list[str], context: Sequence[Mapping[str, Any]], embeddings: Embeddings | None) -> None:
        self.context = list(context)
        self.numbers = [int(p["n"]) for p in self.context]
        self.terms = [stems(claim) for claim in claims]
        self.passage_stems = [stems(f"{p['title']} {p['text']}") for p in self.context]
        self.semantic = _semantic_grid(claims, self.context, embeddings)

    def score(self, i: int, columns: list[int]) -> tuple[float, float, float]:
        """(lexical, semantic, combined) of claim i against the passages in `columns` taken together."""
        if not columns:
            return 0.0, 0.0, 0.0
        lexical = term_share(self.terms[i], set().union(*(self.passage_stems[j] for j in columns)))
        semantic = max(float(self.semantic[i, j]) for j in columns)
        return lexical, semantic, LEXICAL_WEIGHT * lexical + SEMANTIC_WEIGHT * semantic

    def best(self, i: int, numbers: list[int]) -> tuple[float, float, float, list[int]]:
        """Claim i's support: against its cited passages, or its best single passage when it cites none."""
        if numbers:
            columns = [j for j, n in enumerate(self.numbers) if n in numbers]
            return (*self.score(i, columns), [self.numbers[j] for j in columns])
        if not self.context:
            return 0.0, 0.0, 0.0, []
        j = max(range(len(self.context)), key=lambda col: (self.score(i, [col])[2], -self.numbers[col]))
        return (*self.score(i, [j]), [self.numbers[j]])

    def row(self, i: int) -> list[float]:
        """Claim i's combined score against each single passage."""
        return [self.score(i, [j])[2] for j in range(len(self.context))]


def _semantic_grid(
    claims: list[str], context: Sequence[Mapping[str, Any]], embeddings: Embeddings | None
) -> np.ndarray:
    """Best cosine between each claim and any sentence of each passage (zeros without a model)."""
    grid = np.zeros((len(claims), len(context)), dtype="float32")
    sentence_lists = [[s.text for s in split_sentences(p["text"])] for p in context]
    flat = [s for group in sentence_lists for s in group]
    if embeddings is None or not claims or not flat:
        return grid
    vectors = np.asarray(embeddings.embed_documents([*claims, *flat]), dtype="float32")
    similarity = vectors[: len(claims)] @ vectors[len(claims) :].T
    offset = 0
    for j, group in enumerate(sentence_lists):
        if group:
            grid[:, j] = np.maximum(0.0, similarity[:, offset : offset + len(group)].max(axis=1))
        offset += len(group)
    return grid


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


def repair_citations(
    answer: str,
    context: Sequence[Mapping[str, Any]],
    embeddings: Embeddings | None,
    threshold: float = SUPPORTED_AT,
) -> tuple[str, list[dict[str, Any]]]:
    """The answer with misplaced or missing markers set to the passage that supports the claim, and the repairs.

    A small model often puts a right fact under the wrong number ("The Exies [1]" where [1] is the
    other band), or writes a right explanation with no marker at all. A claim whose cited passages
    do not support it, or that cites none, is cited to the single passage that supports it (support
    score ≥ `threshold`; the best one, the lower number on ties). A claim no passage supports keeps
    its markers (or none), so the gate still sees it unsupported. Only markers change; the words never do.
    """
    if is_idk(answer) or not context:
        return answer, []
    pieces = [" ".join(piece) for piece in _claim_pieces(answer)]
    claims = answer_claims(answer)
    if len(claims) != len(pieces):
        return answer, []  # claims and sentences do not line up: never guess
    grid = _ClaimGrid([text for text, _ in claims], context, embeddings)
    repairs = []
    for i, (text, numbers) in enumerate(claims):
        if numbers and grid.best(i, numbers)[2] >= threshold:
            continue
        best_score, best_n = max((score, -n) for score, n in zip(grid.row(i), grid.numbers, strict=True))
        if best_score >= threshold:
            repairs.append({"claim": text, "from": numbers, "to": -best_n, "score": round(best_score, 4)})
            pieces[i] = _with_single_marker(pieces[i], -best_n) if numbers else _with_marker_added(pieces[i], -best_n)
    return (" ".join(pieces), repairs) if repairs else (answer, [])


def _with_marker_added(text: str, number: int) -> str:
    """`text` (a sentence without markers) with [number] before its closing punctuation."""
    body = text.rstrip()
    stop = len(body) - len(body.rstrip(".!?;:"))
    return f"{body[: len(body) - stop]} [{number}]{body[len(body) - stop :]}"


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

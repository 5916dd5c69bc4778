"""Rerankers behind one interface: pointwise embedding rescoring, then pairwise LLM ranking (PRP).

Seed 003 (§1.1.2) retrieves wide, rescores pointwise with embedding similarity, then lets a small
LLM compare passages two at a time with the Pairwise Ranking Prompting template of Qin et al.
(2023, "Large Language Models are Effective Text Rankers with Pairwise Ranking Prompting").
Every reranker returns the new order plus what it cost (LLM calls and tokens), so the budget gate
can account for it. Ties always keep the incoming order (stable, deterministic).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage

from anchorgate.prompts import render
from anchorgate.tools.corpus.documents import ScoredChunk
from anchorgate.tools.llm.usage import estimate_prompt_tokens
from anchorgate.tools.text.tokens import count_tokens, truncate_to_tokens

Outcome = Literal["upper", "lower", "tie", "skipped"]


@dataclass(frozen=True)
class PairwiseComparison:
    """One pair judgement: the chunk ids compared, the per-call votes and the decision."""

    upper: str  # chunk id that was ranked higher before the comparison
    lower: str
    votes: tuple[Outcome, ...]
    outcome: Outcome
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class RerankResult:
    """Candidates in their new order (`rank` = new 1-based position) and the LLM spend."""

    candidates: tuple[ScoredChunk, ...]
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    comparisons: tuple[PairwiseComparison, ...] = ()
    skipped: int = 0  # comparisons not made because the token budget would not allow them

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Reranker(Protocol):
    """Anything that reorders scored candidates for a question."""

    def rerank(self, question: str, candidates: Sequence[ScoredChunk]) -> RerankResult: ...


def _renumbered(candidates: Sequence[ScoredChunk]) -> tuple[ScoredChunk, ...]:
    return tuple(replace(c, rank=i) for i, c in enumerate(candidates, start=1))


def _minmax(values: Sequence[float]) -> list[float]:
    low, high = min(values), max(values)
    return [1.0 if high == low else (v - low) / (high - low) for v in values]


@dataclass
class PointwiseEmbeddingReranker:
    """Rescore by cosine(question, "title: text"), optionally blended with the incoming score.

    score = blend · max(0, cos) + (1 − blend) · minmax(incoming score). The incoming score is
    min-max normalised over the candidates because retrieval scores live on other scales (RRF
    ≈ 0.016). `keep` truncates the list after rescoring (seed 003: dense 32 → pointwise top-m).
    """

    embeddings: Embeddings
    blend: float = 1.0
    keep: int | None = None
    with_title: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.blend <= 1.0:
            raise ValueError("blend must be in [0, 1]")

    def rerank(self, question: str, candidates: Sequence[ScoredChunk]) -> RerankResult:
        if not candidates:
            return RerankResult(())
        texts = [self._text(c) for c in candidates]
        matrix = np.asarray(self.embeddings.embed_documents(texts), dtype=np.float64)
        query = np.asarray(self.embeddings.embed_query(question), dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
        cosines = (matrix @ query) / np.where(norms == 0.0, 1.0, norms)
        prior = _minmax([c.score for c in candidates])
        scores = [
            self.blend * max(0.0, float(cos)) + (1.0 - self.blend) * p for cos, p in zip(cosines, prior, strict=True)
        ]
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))  # ties keep incoming order
        ranked = [replace(candidates[i], score=round(scores[i], 6)) for i in order]
        return RerankResult(_renumbered(ranked[: self.keep] if self.keep is not None else ranked))

    def _text(self, candidate: ScoredChunk) -> str:
        chunk = candidate.chunk
        return f"{chunk.title}: {chunk.text}" if self.with_title and chunk.title else chunk.text


_VERDICT = re.compile(r"^(?:(?:output|answer|the answer is)\s*:?\s*)?(?:passage\s*)?([ab])$")
_LEADING = re.compile(r"^passage ([ab]) (?!(?:and|or|nor|vs|versus)\b)\w")  # not "Passage A or Passage B"
_MENTION = re.compile(r"passage\s*([ab])\b")


def parse_preference(text: str) -> Literal["A", "B"] | None:
    """The preferred passage in a PRP answer, or None (a tie) when the answer is unclear.

    "Passage A", "A", "passage b.", "**Passage B** is more relevant than Passage A" → A/B. An answer
    naming both passages counts only when it opens with one as its subject; an echo of the
    instruction ("Passage A or Passage B") or "A passage about …" is a tie.
    """
    cleaned = re.sub(r"[^\w\s]", " ", text.lower())
    cleaned = " ".join(cleaned.split())
    whole = _VERDICT.match(cleaned)
    if whole:
        return "A" if whole.group(1) == "a" else "B"
    leading = _LEADING.match(cleaned)  # "Passage B is more relevant than Passage A"
    if leading:
        return "A" if leading.group(1) == "a" else "B"
    letters = {m.group(1) for m in _MENTION.finditer(cleaned)}
    if len(letters) == 1:
        return "A" if letters == {"a"} else "B"
    return None


def _message_text(message: BaseMessage) -> str:
    return str(message.text)


@dataclass
class _Spend:
    calls: int = 0
    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion


@dataclass
class PairwiseLLMReranker:
    """PRP with a bounded number of comparisons (seed 003; Qin et al. 2023, PRP-Sliding).

    `passes` bubble-sort passes run over the top `top_m` candidates from the bottom up: the lower
    passage moves up when the LLM prefers it, so one pass lifts the most relevant passage to the
    top (pass p stops at position p). At most `max_comparisons` pair judgements are made.
    With `both_orders`, each pair is asked as (A=upper, B=lower) and (A=lower, B=upper) to cancel
    the model's position bias; the pair swaps only when the lower passage gets more votes
    (a disagreement or an unparseable answer is a tie, and a tie keeps the incoming order).
    If the remaining `token_budget` fits only one of the two prompts, one order is asked; if it
    fits none, the comparison is skipped and recorded. The check uses the project's prompt
    estimate (`usage.estimate_prompt_tokens`: exact for the local model, a padded tiktoken count
    otherwise) plus `completion_reserve`. Tokens spent come from the reply's `usage_metadata`
    when present, else tiktoken counts of prompt and completion.
    Pairwise reranking yields no scores: the window's incoming scores are re-dealt in descending
    order so that score order equals the new order for any later sort by score.
    """

    llm: BaseChatModel
    top_m: int = 8
    passes: int = 1
    max_comparisons: int = 8
    both_orders: bool = True
    passage_token_cap: int = 160
    completion_reserve: int = 8  # tokens kept free for the answer when checking the budget
    token_budget: int | None = None
    with_title: bool = True
    prompt_overrides: dict[str, str] | None = None

    def rerank(
        self, question: str, candidates: Sequence[ScoredChunk], *, token_budget: int | None = None
    ) -> RerankResult:
        """Reorder the top `top_m` of `candidates`; `token_budget` overrides the instance's for this call."""
        budget = self.token_budget if token_budget is None else token_budget
        order = list(candidates)
        window = min(self.top_m, len(order))
        spend, log = _Spend(), list[PairwiseComparison]()
        for p in range(self.passes):
            for i in range(window - 2, p - 1, -1):
                if len(log) >= self.max_comparisons:
                    break
                record = self._compare(question, order[i], order[i + 1], spend, budget)
                log.append(record)
                if record.outcome == "lower":
                    order[i], order[i + 1] = order[i + 1], order[i]
        scores = sorted((c.score for c in order[:window]), reverse=True)
        order[:window] = [replace(c, score=s) for c, s in zip(order[:window], scores, strict=True)]
        skipped = sum(r.outcome == "skipped" for r in log)
        return RerankResult(_renumbered(order), spend.calls, spend.prompt, spend.completion, tuple(log), skipped)

    def _passage(self, candidate: ScoredChunk) -> str:
        chunk = candidate.chunk
        text = " ".join(chunk.text.split())
        if self.with_title and chunk.title:
            text = f"({chunk.title}) {text}"
        return truncate_to_tokens(text, self.passage_token_cap)

    def _prompt(self, question: str, a: ScoredChunk, b: ScoredChunk) -> str:
        a_text, b_text = self._passage(a), self._passage(b)
        return render("prp_pairwise", self.prompt_overrides, query=question, passage_a=a_text, passage_b=b_text)

    def _compare(
        self, question: str, upper: ScoredChunk, lower: ScoredChunk, spend: _Spend, budget: int | None
    ) -> PairwiseComparison:
        """Ask one or both orders (as the budget allows) and combine the votes."""
        asks = [(self._prompt(question, upper, lower), False)]
        if self.both_orders:
            asks.append((self._prompt(question, lower, upper), True))
        votes: list[Outcome] = []
        before_prompt, before_completion = spend.prompt, spend.completion
        for prompt, flipped in asks:
            message = HumanMessage(content=prompt)
            needed = estimate_prompt_tokens(self.llm, [message]) + self.completion_reserve
            if budget is not None and spend.total + needed > budget:
                break  # the next prompt would break the hard budget: not asked
            choice = self._ask(message, spend)
            if choice is None:
                votes.append("tie")
            else:
                votes.append("upper" if (choice == "A") != flipped else "lower")
        used_p, used_c = spend.prompt - before_prompt, spend.completion - before_completion
        return PairwiseComparison(upper.chunk.id, lower.chunk.id, tuple(votes), _decide(votes), used_p, used_c)

    def _ask(self, message: HumanMessage, spend: _Spend) -> Literal["A", "B"] | None:
        prompt = str(message.content)
        reply = self.llm.invoke([message])
        completion = _message_text(reply)
        usage = getattr(reply, "usage_metadata", None) or {}
        spend.calls += 1
        if usage.get("input_tokens") or usage.get("output_tokens"):
            spend.prompt += int(usage.get("input_tokens", 0))
            spend.completion += int(usage.get("output_tokens", 0))
        else:
            spend.prompt += count_tokens(prompt)
            spend.completion += count_tokens(completion)
        return parse_preference(completion)


def _decide(votes: Sequence[Outcome]) -> Outcome:
    if not votes:
        return "skipped"
    up, down = votes.count("upper"), votes.count("lower")
    return "upper" if up > down else "lower" if down > up else "tie"


@dataclass
class SequentialReranker:
    """Rerankers applied in turn (seed 003: pointwise, then pairwise); costs are summed."""

    stages: Sequence[Reranker]

    def rerank(self, question: str, candidates: Sequence[ScoredChunk]) -> RerankResult:
        current = RerankResult(_renumbered(candidates))
        calls = prompt = completion = skipped = 0
        comparisons: list[PairwiseComparison] = []
        for stage in self.stages:
            current = stage.rerank(question, current.candidates)
            calls += current.llm_calls
            prompt += current.prompt_tokens
            completion += current.completion_tokens
            skipped += current.skipped
            comparisons.extend(current.comparisons)
        return RerankResult(current.candidates, calls, prompt, completion, tuple(comparisons), skipped)

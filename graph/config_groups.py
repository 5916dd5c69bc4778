"""The seven groups of settings `Config` (graph/config.py) holds, each field with its default, description and rule.

A field declares what it allows beside its default (graph/bounds.py); graph/config_checks.py reads
the declarations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from anchorgate.graph.bounds import CountPair, OrderedPair, Range, Rule, ScaleTable, Templates, Text
from anchorgate.graph.config_rules import (
    CUT,
    MAX_BACKOFF_S,
    MAX_COUNT,
    MAX_QUESTION_CHARS,
    MAX_RETRIES,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_TOKENS,
    MAX_WAIT_S,
    MAX_WEIGHT,
    MAX_WINDOW,
    MIN_CHUNK_TOKENS,
    MIN_WINDOW,
    SHARE,
)
from anchorgate.tools.llm.faults import DEFAULT_BACKOFF_MAX_S, DEFAULT_BACKOFF_S, DEFAULT_RETRIES

GateMode = Literal["none", "baug"]
JudgePolicy = Literal["never", "gray_zone", "always"]
JudgeStyle = Literal["verdict", "yes_no", "answerable", "quote"]
RetrievalMode = Literal["dense", "hybrid"]
FusionKind = Literal["rrf", "weighted"]
RerankerKind = Literal["none", "pointwise", "pairwise"]
AnswerStyle = Literal["free", "quoted", "auto"]
SecondReadingPolicy = Literal["off", "record", "withdraw"]
RoundStrategy = Literal["question", "hyde", "rewrite", "auto"]


def _f(default: Any, description: str, allowed: Rule | None = None) -> Any:
    """A dataclass field with its description and the values it allows in metadata.

    Studio shows the description; `anchorgate config` both; `Config.validate` checks `allowed`
    (graph/bounds.py). A text setting without a rule gets `Text` (no NUL character).
    """
    if allowed is None and isinstance(default, str):
        allowed = Text()
    metadata = {"description": description, "allowed": allowed}
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass(kw_only=True)
class ResourceSettings:
    """Where the corpus, the indexes, the checkpoints and the vectors are."""

    corpus: str = _f("pydoc", "Corpus: 'pydoc' (Python Language Reference), a folder, or a JSONL file.")
    embedding_model: str = _f(
        "",
        "Embedding model of the corpus index: empty or auto = chosen by the corpus's languages at index time"
        " (all-MiniLM-L6-v2 for English, multilingual-e5-small for other or mixed languages); minilm; e5;"
        " or a sentence-transformers folder. A query must use the model its corpus was indexed with.",
    )
    cache_dir: str = _f("", "Cache folder for model, indexes, checkpoints; empty = $ANCHORGATE_CACHE.")
    checkpoint_db: str = _f("", "SQLite file or postgresql:// URL; empty = <cache_dir>/checkpoints.sqlite.")
    vector_store: str = _f(
        "faiss",
        "Retrieval store: faiss = the in-process FAISS + BM25 index; a postgresql:// URL = pgvector + BM25 computed"
        " in PostgreSQL on that server (it may be checkpoint_db's), same fusion and gate (docs/deployment.md).",
    )
    vector_collection: str = _f(
        "", "Collection of the PostgreSQL vector store; empty = one named after the corpus and chunking."
    )
    services_id: str = _f("", "Id of an in-process bundle registered by an app or test; empty = build.")
    chunk_tokens: int = _f(
        120,
        "Target chunk size in tokens (structure-first, then recursive split); consecutive chunks of one section"
        " share a sixth of it.",
        allowed=Range(MIN_CHUNK_TOKENS, MAX_WINDOW),
    )

    @property
    def chunk_overlap_tokens(self) -> int:
        """Tokens consecutive chunks of one section share: a sixth of a chunk (20 of 120, the seed's)."""
        return self.chunk_tokens // 6


@dataclass(kw_only=True)
class RetrievalSettings:
    """What is fetched, fused and selected as evidence."""

    mode: RetrievalMode = _f("dense", "dense = FAISS only; hybrid = FAISS + BM25 fused.")
    fusion: FusionKind = _f("rrf", "Hybrid fusion: rrf (reciprocal rank, k=60) or weighted (min-max scores).")
    dense_weight: float = _f(
        0.5,
        "Dense share of the weighted fusion, BM25 gets the rest (0.8 measured best: docs/benchmark-log.md).",
        allowed=SHARE,
    )
    pool_k: int = _f(24, "Candidates fetched per retriever worker before selection.", allowed=Range(1, MAX_COUNT))
    k: int = _f(8, "Chunks kept for the generator after selection.", allowed=Range(1, MAX_COUNT))
    use_anchors: bool = _f(False, "Extract anchors and fan out one retriever worker per anchor.")
    max_anchor_workers: int = _f(
        6, "Most anchor workers per round (the full question always has one).", allowed=Range(0, MAX_COUNT)
    )
    bridge_links: int = _f(
        0,
        "Passages added by following title mentions in the best hits (multi-hop; 0 = off).",
        allowed=Range(0, MAX_COUNT),
    )
    bridge_weight: float = _f(
        1.0,
        "Weight of the bridge hop's ranking in the cross-worker fusion (others: 1).",
        allowed=Range(0.0, MAX_WEIGHT),
    )
    mmr_diversity: float = _f(
        0.0,
        "MMR diversity weight (0 = pure relevance, seed default 0.45), adapted to the question: factoid"
        " questions lean to relevance, list questions to diversity.",
        allowed=SHARE,
    )
    anchor_bonus: float = _f(0.0, "Score bonus when a relevant chunk's title contains a query anchor.", allowed=SHARE)
    relevance_floor: float = _f(
        0.0,
        "Chunks below this semantic+keyword relevance never enter the pool (on a multilingual-e5 index,"
        " e5_scale may name another value).",
        allowed=SHARE,
    )
    per_source_cap: int = _f(0, "Most chunks per domain/source (0 = no cap).", allowed=Range(0, MAX_COUNT))
    list_reserve: tuple[int, int] = _f(
        (0, 0),
        "List questions: main,extra = slots filled by score, then slots reserved for anchors and sources not yet"
        " covered (0,0 = none).",
        allowed=CountPair(MAX_COUNT),
    )
    reranker: RerankerKind = _f("none", "Optional reranker after fusion: pointwise or pairwise (LLM PRP).")
    pruning_threshold: float = _f(
        0.0,
        "Prune the context to sentences at least this relevant to the question; 0 = no pruning (0.3: 90 % of"
        " gold sentences kept, −51 % tokens).",
        allowed=SHARE,
    )
    e5_scale: dict[str, float] = _f(
        {},
        "Cuts on another scale for an index embedded with multilingual-e5-small, whose cosines are not"
        " MiniLM's: {setting: value}, replacing retrieval.relevance_floor or gate.second_reading_below_relevance"
        " there (A/B/C: 0.20 and 0.5; docs/benchmark-log.md, 2026-11-24 and 2026-11-26).",
        allowed=ScaleTable(("retrieval.relevance_floor", "gate.second_reading_below_relevance")),
    )


@dataclass(kw_only=True)
class BudgetSettings:
    """Hard ceilings: tokens, evidence and rounds."""

    token_budget: int = _f(
        2400,
        "Hard ceiling on prompt+completion tokens of all LLM calls per question. At most 10**7: a run makes a few"
        " dozen calls, each within one context window, so a larger ceiling is no ceiling.",
        allowed=Range(1, MAX_TOKENS),
    )
    max_context_tokens: int = _f(
        900, "Hard cap on evidence tokens in one generator prompt.", allowed=Range(0, MAX_TOKENS)
    )
    round2_context_tokens: int = _f(
        700, "Evidence cap in round 2 (keeps the worst case bounded).", allowed=Range(0, MAX_TOKENS)
    )
    max_output_tokens: int = _f(
        160,
        "Most completion tokens of one answer (at most n_ctx's cap: no model writes past its window).",
        allowed=Range(1, MAX_WINDOW),
    )
    max_rounds: int = _f(
        1, "Retrieval rounds (the anchor one-shot retry does not count as a round).", allowed=Range(1, MAX_ROUNDS)
    )
    min_round_tokens: int = _f(
        400,
        "Tokens that must remain to start another retrieval round or the anchor one-shot retry.",
        allowed=Range(0, MAX_TOKENS),
    )


@dataclass(kw_only=True)
class GateSettings:
    """The budget gate (BAUG): when a run stops, retrieves more, reflects or abstains."""

    mode: GateMode = _f("none", "none = always STOP after one pass (baseline); baug = the budget gate.")
    overlap_tau: float = _f(
        0.45, "Support overlap needed to STOP (above 1: overlap never stops a run on its own).", allowed=CUT
    )
    gray_zone: tuple[float, float] = _f(
        (0.3, 0.45), "Overlap range where the judge is consulted.", allowed=OrderedPair((0.0, 1.0))
    )
    strong_evidence: float = _f(
        0.5,
        "Best passage relevance the evidence needs to count as strong (signal evidence_strong: the auto round"
        " strategy spends no round on a decline over strong evidence).",
        allowed=SHARE,
    )
    factoid_one_shot: bool = _f(False, "One anchor-constrained retry when an essential anchor is missing.")
    follow_hops: bool = _f(
        False,
        'A question composed of nested descriptions ("the spouse of the author of X") is planned as single-hop'
        " sub-questions (tools/question/hop_plan.py) and answered hop by hop: round 1 answers hop 1, and an answer"
        " the gate would stop on while a hop is left goes on to the next hop with it filled in"
        " (RETRIEVE_NEXT_HOP); a run that cannot reach the last hop abstains (ABSTAIN_INCOMPLETE_HOPS), never"
        " with the bridge answer. Hops spend the same token budget. The final answer is also read against the"
        " kind of thing asked (signal answer_wrong_kind): a place for 'in what year', a state for 'which"
        " country' or the bridge entity itself is withdrawn (RETRIEVE_/ABSTAIN_WRONG_KIND_ANSWER).",
    )
    abstain_unanchored_answers: bool = _f(
        False,
        "An answer whose cited passages hold none of the question's named anchors, while other passages hold"
        " them and no title mention links the two (signal answer_unanchored), answers a neighbouring question:"
        " another round when one is left, else ABSTAIN_UNANCHORED_ANSWER (NoMIRACL-id, HotpotQA:"
        " docs/benchmark-log.md).",
    )
    chinese_quote_check: bool = _f(
        False,
        "A quoted answer to a Chinese question is read against the question (signal answer_off_question,"
        " tools/answer/question_match.py): its quotes must hold the answer's numbers, the year the question names,"
        " half the question's nouns and any superlative it asks. One that does not answers another question:"
        " another round when one is left (RETRIEVE_OFF_QUESTION_ANSWER), else ABSTAIN_OFF_QUESTION_ANSWER.",
    )
    second_reading: SecondReadingPolicy = _f(
        "off",
        "A quoted answer is read a second time over the same passages in reverse order (one more reader call,"
        " tools/answer/second_reading.py): off; record = measure only (signal answer_inconsistent); withdraw = an"
        " answer the second reading does not give again is withdrawn: another round while one is left"
        " (RETRIEVE_INCONSISTENT_ANSWER), else ABSTAIN_INCONSISTENT_ANSWER.",
    )
    second_reading_below_relevance: float = _f(
        1.0,
        "The second reading is paid for only when the best passage's relevance is below this (1 = every"
        " quoted answer, 0 = never; retrieval.e5_scale may name another value for multilingual-e5). A/B/C: 0:"
        " on English ClapNQ it withdrew right answers the two readings worded differently and stopped no"
        " wrong one (docs/benchmark-log.md).",
        allowed=CUT,
    )
    round_strategy: RoundStrategy = _f(
        "question",
        "What a new retrieval round asks besides one worker per missing anchor (graph/round_strategy.py):"
        " question = the question again; hyde = the question through HyDE's hypothetical passage in round 2;"
        " rewrite = a guarded LLM rewrite of the question, the question itself when the guard rejects it;"
        " auto = chosen from the signals: a rewrite for a missing anchor or an inconsistent answer, HyDE for low"
        " support with every anchor covered, and no round at all when the model declined on strong evidence.",
    )


@dataclass(kw_only=True)
class JudgeSettings:
    """The LLM judge the gate consults on an answer."""

    policy: JudgePolicy = _f(
        "never",
        "When the LLM judge is called: never; gray_zone (support overlap in gate.gray_zone); always.",
    )
    style: JudgeStyle = _f(
        "verdict",
        "verdict = one word SUPPORTED/PARTIAL/UNSUPPORTED; yes_no = P(YES) from the first token's logprobs"
        " against judge.accept_p (more accurate with the packaged model: docs/benchmark-log.md; no PARTIAL, so"
        " no REFLECT); answerable = as yes_no, but asks whether the passages state the answer to exactly this"
        " question; quote = the reader answers again with a verified quote and the draft must agree.",
    )
    accept_p: float = _f(0.3, "yes_no judge: P(YES) / (P(YES) + P(NO)) at or above this is SUPPORTED.", allowed=SHARE)
    grounding_min: float = _f(
        0.8,
        "Before any LLM call the judge checks a quoted answer's own words (the question's not counted)"
        " against the judged passages (tools/answer/grounding.py): a share below this is UNSUPPORTED with"
        " no call; 0 = off. 0.8 chosen on HaluEval items 1-100, held out 101-200 (docs/benchmark-log.md).",
        allowed=SHARE,
    )
    max_calls: int = _f(1, "Most judge calls per question.", allowed=Range(0, MAX_COUNT))
    bridged_answers: bool = _f(
        True,
        "Consult the judge on a two-hop answer too (signal answer_bridged: its cited passages miss a firm"
        " question anchor another passage holds). The judge reads only the cited passages, so it cannot see"
        " the link: on HotpotQA its P(YES) told right from wrong answers no better than chance"
        " (docs/benchmark-log.md).",
    )


@dataclass(kw_only=True)
class AnswerSettings:
    """How the reader answers and cites."""

    style: AnswerStyle = _f(
        "free",
        "free = sentences with [n] markers; quoted = the shortest answer, then the sentence that states it copied"
        " from a passage (QUOTE [n]: …, checked; a grammar holds llama.cpp to it); auto = quoted for questions"
        " that ask for a name, date, number, place, yes/no or a choice, free for open questions.",
    )
    repair_citations: bool = _f(
        False, "Re-cite a claim its cited passages do not support to the one passage that does (no LLM)."
    )


@dataclass(kw_only=True)
class LLMSettings:
    """The chat model and how it is called."""

    model: str = _f(
        "local",
        "Chat model spec: local (Qwen2.5-Coder-1.5B), local-1.5b, local-0.5b, gguf:/path.gguf, openai:<model>,"
        " ollama:<model>.",
    )
    temperature: float = _f(
        0.0,
        "Sampling temperature of every LLM call (0 = deterministic; 2 = the APIs' maximum).",
        allowed=Range(0.0, 2.0),
    )
    seed: int = _f(
        42,
        "Random seed given to the model and every stochastic step (0 to 2**32 - 1: llama.cpp's seed is 32 bits).",
        allowed=Range(0, MAX_SEED),
    )
    n_ctx: int = _f(
        4096,
        "Context window of the local llama.cpp model. At least 512: the packaged answer prompts (~150 tokens), a"
        " short question, one 120-token chunk and a 160-token answer; at most 2**17, Qwen2.5's longest context"
        " (llama.cpp allocates the cache for the whole window up front).",
        allowed=Range(MIN_WINDOW, MAX_WINDOW),
    )
    timeout_s: float = _f(
        300.0,
        "Seconds one call (one attempt) to a model server may take before it counts as failed"
        " (ABSTAIN_LLM_TIMEOUT). A local llama.cpp model has no timeout: on a busy machine it is slow, not failed.",
        allowed=Range(0.0, MAX_WAIT_S, low_open=True),
    )
    max_retries: int = _f(
        DEFAULT_RETRIES,
        "Retries of an LLM call the server refused, dropped or failed (connection error, HTTP 5xx, HTTP 429);"
        " 0 = none. Timeouts and malformed replies are not retried. The OpenAI client's own retries are these:"
        " budgeted calls retry here with the client's off; the reranker and the eval peer chain let the client retry.",
        allowed=Range(0, MAX_RETRIES),
    )
    retry_backoff_s: tuple[float, float] = _f(
        (DEFAULT_BACKOFF_S, DEFAULT_BACKOFF_MAX_S),
        "first,longest: seconds before the first retry of a failed LLM call, each further retry waiting twice"
        " as long up to the longest (no jitter).",
        allowed=OrderedPair((0.0, MAX_BACKOFF_S)),
    )
    max_question_chars: int = _f(2000, "Longest question accepted.", allowed=Range(1, MAX_QUESTION_CHARS))
    prompt_overrides: dict[str, str] = _f(
        {}, "Prompt templates by name that replace the packaged ones.", allowed=Templates()
    )


GROUPS: dict[str, type] = {
    "resources": ResourceSettings,
    "retrieval": RetrievalSettings,
    "budget": BudgetSettings,
    "gate": GateSettings,
    "judge": JudgeSettings,
    "answer": AnswerSettings,
    "llm": LLMSettings,
}

PRESET_DESCRIPTION = "Name of the preset these values started from (baseline, A, B, C)."

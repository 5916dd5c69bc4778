"""The one configuration dataclass: every knob of a run, each with a description.

It is also the LangGraph context schema, so Studio shows every field with its description and a
person can change the preset, the budget, the model or a prompt per run. Hard budgets live here;
spend lives in the graph state. Per-run values win over environment variables.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, Literal, get_args, get_origin, get_type_hints

from anchorgate.graph.bounds import OrderedPair, Range, Relative, Rule, Templates, Text, check_setting, shown
from anchorgate.tools.errors import ConfigError
from anchorgate.tools.llm.faults import DEFAULT_BACKOFF_MAX_S, DEFAULT_BACKOFF_S, DEFAULT_RETRIES

GateMode = Literal["none", "baug"]
JudgePolicy = Literal["never", "gray_zone", "weak_evidence", "always"]
JudgeStyle = Literal["verdict", "yes_no", "answerable", "quote"]
RetrievalMode = Literal["dense", "hybrid"]
FusionKind = Literal["rrf", "weighted"]
RerankerKind = Literal["none", "pointwise", "pairwise"]
AnswerStyle = Literal["free", "quoted", "auto"]
SecondReadingPolicy = Literal["off", "record", "withdraw"]
Round2Strategy = Literal["hyde", "rewrite", "auto"]


# What a number setting may be (graph/bounds.py). The caps refuse only values nobody can mean, before
# they reach llama.cpp (32-bit sizes), a checkpoint (64-bit integers) or a timer; each says why.
SHARE = Range(0.0, 1.0)  # a probability, a share, a weight of two parts, a cosine or relevance score
CUT = Range(0.0, 2.0)  # a threshold on a score in [0, 1]: above 1 no score reaches it (1.01 = every score below)
MAX_TOKENS = 10**7  # token amounts: a run makes a few dozen calls, each within one context window
MIN_WINDOW = 512  # the packaged answer prompts (~150 tokens), a short question, one 120-token chunk, a 160-token answer
MAX_WINDOW = 2**17  # Qwen2.5's longest context (with YaRN); llama.cpp allocates its KV cache up front (~3.8 GB, 1.5B)
MIN_CHUNK_TOKENS = 16  # tools/corpus/chunking.py's smallest chunk
MAX_COUNT = 10_000  # passages, workers, comparisons, calls per question: the presets use at most 24
MAX_WEIGHT = 100.0  # a fusion weight; the other rankings weigh 1
MAX_ROUNDS = 100  # each round is at least one LLM call; the presets use at most 2
MAX_SEED = 2**32 - 1  # llama.cpp's seed is a 32-bit unsigned int
MAX_TOP_LOGPROBS = 20  # the OpenAI API's top_logprobs limit
MAX_QUESTION_CHARS = 100_000  # ~25,000 tokens: more than the default window holds
MAX_RETRIES = 100
MAX_BACKOFF_S = 3600.0  # an hour between retries: a longer wait is a stuck run, not a retry
MAX_WAIT_S = 86_400.0  # a day for one LLM call: a longer timeout is none


def steps_needed(max_rounds: int) -> int:
    """LangGraph steps of the longest run `max_rounds` allow (graph/builder.py).

    Round 1 is 8 steps (intake, anchor_predictor, retriever_worker, fuse_and_select, generator,
    signals, judge, gate); the anchor one-shot retry 7 (round_planner, then the workers on); every
    further round 9 (round_planner, query_rewriter, hyde_writer, then the workers on); the one
    reflection 4 (reflector, signals, judge, gate); the finalizer 1. LangGraph's limit must be one
    above the steps a run takes (a chain of n nodes needs recursion_limit n + 1), hence the last 1.
    """
    return 8 + 7 + 9 * (max_rounds - 1) + 4 + 1 + 1


MAX_STEPS = steps_needed(MAX_ROUNDS)
STEPS_OF_ROUNDS = Relative(lambda c: steps_needed(c.max_rounds), "12 + 9 × max_rounds", reads="max_rounds")


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
class Config:
    """All settings of one question-answering run. Presets fill these; `--set key=value` overrides."""

    preset: str = _f("baseline", "Name of the preset these values started from (baseline, A, B, C).")
    # --- resources -------------------------------------------------------------------------------
    corpus: str = _f("pydoc", "Corpus: 'pydoc' (Python Language Reference), a folder, or a JSONL file.")
    llm: str = _f(
        "local",
        "Chat model spec: local (Qwen2.5-Coder-1.5B), local-1.5b, local-0.5b, gguf:/path.gguf, openai:<model>,"
        " ollama:<model>.",
    )
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
    # --- chunking --------------------------------------------------------------------------------
    chunk_tokens: int = _f(
        120,
        "Target chunk size in tokens (structure-first, then recursive split).",
        allowed=Range(MIN_CHUNK_TOKENS, MAX_WINDOW),
    )
    chunk_overlap_tokens: int = _f(
        20,
        "Tokens shared by consecutive chunks of one section.",
        allowed=Range(0, Relative(lambda c: c.chunk_tokens, "chunk_tokens", reads="chunk_tokens"), high_open=True),
    )
    # --- retrieval and selection -----------------------------------------------------------------
    retrieval_mode: RetrievalMode = _f("dense", "dense = FAISS only; hybrid = FAISS + BM25 fused.")
    fusion: FusionKind = _f("rrf", "Hybrid fusion: rrf (reciprocal rank, k=60) or weighted (min-max scores).")
    dense_weight: float = _f(
        0.5,
        "Dense share of the hybrid fusion, BM25 gets the rest (weighted 0.8 measured best: docs/benchmark-log.md).",
        allowed=SHARE,
    )
    retrieval_pool_k: int = _f(
        24, "Candidates fetched per retriever worker before selection.", allowed=Range(1, MAX_COUNT)
    )
    retrieval_k: int = _f(8, "Chunks kept for the generator after selection.", allowed=Range(1, MAX_COUNT))
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
    rank_fusion_weight: float = _f(
        0.7, "Selection relevance = w * fused-rank score + (1 - w) * gated relevance.", allowed=SHARE
    )
    mmr_diversity: float = _f(0.0, "MMR diversity weight (0 = pure relevance, seed default 0.45).", allowed=SHARE)
    mmr_redundancy_floor: float = _f(
        0.0,
        "MMR counts chunk similarity only above this cosine (near-duplicates); 0 = plain MMR.",
        allowed=Range(0.0, 1.0, high_open=True),
    )
    adaptive_mmr: bool = _f(False, "Factoid questions lean to relevance, list questions to diversity.")
    anchor_bonus: float = _f(0.0, "Score bonus when a relevant chunk's title contains a query anchor.", allowed=SHARE)
    relevance_floor: float = _f(
        0.0,
        "Chunks below this semantic+keyword relevance never enter the pool (an index embedded with"
        " multilingual-e5 uses e5_relevance_floor instead).",
        allowed=SHARE,
    )
    e5_relevance_floor: float = _f(
        0.0,
        "relevance_floor for an index embedded with multilingual-e5-small, whose cosine scale is not"
        " MiniLM's (A/B/C: 0.20, the seed's floor; docs/benchmark-log.md, 2026-11-24: the e5 relevance floor).",
        allowed=SHARE,
    )
    per_source_cap: int = _f(0, "Most chunks per domain/source (0 = no cap).", allowed=Range(0, MAX_COUNT))
    list_reserve_main: int = _f(
        0, "List questions: slots filled by score before coverage reserve.", allowed=Range(0, MAX_COUNT)
    )
    list_reserve_extra: int = _f(
        0, "List questions: slots reserved for anchors/sources not yet covered.", allowed=Range(0, MAX_COUNT)
    )
    reranker: RerankerKind = _f("none", "Optional reranker after fusion: pointwise or pairwise (LLM PRP).")
    rerank_max_comparisons: int = _f(8, "Most pairwise LLM comparisons per question.", allowed=Range(0, MAX_COUNT))
    rerank_token_budget: int = _f(
        700, "Most tokens the pairwise reranker may spend per question.", allowed=Range(0, MAX_TOKENS)
    )
    use_pruning: bool = _f(False, "Prune context to the sentences relevant to the question.")
    pruning_threshold: float = _f(
        0.3,
        "Sentence relevance needed to keep a sentence (0.3: 90 % of gold sentences kept, −51 % tokens).",
        allowed=SHARE,
    )
    # --- budgets ---------------------------------------------------------------------------------
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
    token_budget: int = _f(
        2400,
        "Hard ceiling on prompt+completion tokens of all LLM calls per question. At most 10**7: a run makes a few"
        " dozen calls, each within one context window, so a larger ceiling is no ceiling.",
        allowed=Range(1, MAX_TOKENS),
    )
    max_rounds: int = _f(
        1, "Retrieval rounds (the anchor one-shot retry does not count as a round).", allowed=Range(1, MAX_ROUNDS)
    )
    recursion_limit: int = _f(
        40,
        "LangGraph step limit; our own round counters end loops well before. At least the steps of the longest run"
        " max_rounds allows, 12 + 9 × max_rounds (graph/config.py: steps_needed), so the limit never ends a run.",
        allowed=Range(STEPS_OF_ROUNDS, MAX_STEPS),
    )
    # --- gate (BAUG) -----------------------------------------------------------------------------
    gate: GateMode = _f("none", "none = always STOP after one pass (baseline); baug = the budget gate.")
    overlap_tau: float = _f(
        0.45, "Support overlap needed to STOP (above 1: overlap never stops a run on its own).", allowed=CUT
    )
    gray_zone: tuple[float, float] = _f(
        (0.3, 0.45), "Overlap range where the judge is consulted.", allowed=OrderedPair((0.0, 1.0))
    )
    judge_policy: JudgePolicy = _f(
        "never",
        "When the LLM judge is called: never; gray_zone (support overlap in gray_zone); weak_evidence (the"
        " gray zone, or an answer whose best passage's gated relevance is below judge_relevance_max); always.",
    )
    judge_relevance_max: float = _f(
        0.55,
        "weak_evidence policy: an answer whose best passage is less relevant than this is judged. 0.55"
        " chosen on ClapNQ questions 1-20, held out 21-40 (docs/benchmark-log.md).",
        allowed=CUT,
    )
    judge_style: JudgeStyle = _f(
        "verdict",
        "verdict = one word SUPPORTED/PARTIAL/UNSUPPORTED; yes_no = P(YES) from the first token's logprobs"
        " against judge_accept_p (more accurate with the packaged model: docs/benchmark-log.md; no PARTIAL, so"
        " no REFLECT);"
        " answerable = as yes_no, but asks whether the passages state the answer to exactly this question"
        " (catches an on-topic answer to a neighbouring question);"
        " quote = the reader answers again with a verified quote and the draft must agree (score vs judge_accept_p).",
    )
    judge_accept_p: float = _f(
        0.3, "yes_no judge: P(YES) / (P(YES) + P(NO)) at or above this is SUPPORTED.", allowed=SHARE
    )
    judge_grounding_min: float = _f(
        0.8,
        "Before any LLM call the judge checks a quoted answer's own words (the question's not counted)"
        " against the judged passages (tools/answer/grounding.py): a share below this is UNSUPPORTED with"
        " no call; 0 = off. 0.8 chosen on HaluEval items 1-100, held out 101-200 (docs/benchmark-log.md).",
        allowed=SHARE,
    )
    judge_max_calls: int = _f(1, "Most judge calls per question.", allowed=Range(0, MAX_COUNT))
    judge_bridged_answers: bool = _f(
        True,
        "Consult the judge on a two-hop answer too (signal answer_bridged: its cited passages miss a firm"
        " question anchor another passage holds). The judge reads only the cited passages, so it cannot see"
        " the link: on HotpotQA its P(YES) told right from wrong answers no better than chance"
        " (docs/benchmark-log.md).",
    )
    novelty_epsilon: float = _f(0.1, "New-hits ratio below which more retrieval is pointless.", allowed=CUT)
    support_threshold: float = _f(
        0.5, "Claim support score (0.6 lexical + 0.4 semantic) that counts as supported.", allowed=SHARE
    )
    min_round_tokens: int = _f(
        400, "Tokens that must remain to start another retrieval round.", allowed=Range(0, MAX_TOKENS)
    )
    repair_citations: bool = _f(
        False, "Re-cite a claim its cited passages do not support to the one passage that does (no LLM)."
    )
    drop_unsupported: bool = _f(False, "Finalizer drops answer sentences no passage supports (no uncited claim).")
    factoid_one_shot: bool = _f(False, "One anchor-constrained retry when an essential anchor is missing.")
    abstain_unanchored_answers: bool = _f(
        False,
        "An answer whose cited passages hold none of the question's named anchors, while other passages hold"
        " them and no title mention links the two (signal answer_unanchored), answers a neighbouring question:"
        " another round when one is left, else ABSTAIN_UNANCHORED_ANSWER (NoMIRACL-id, HotpotQA:"
        " docs/benchmark-log.md).",
    )
    factoid_min_tokens_left: int = _f(
        300, "Tokens that must remain for the anchor one-shot retry.", allowed=Range(0, MAX_TOKENS)
    )
    use_hyde: bool = _f(False, "Round 2 retrieves with a hypothetical answer passage (HyDE).")
    round2_strategy: Round2Strategy = _f(
        "hyde",
        "What a new retrieval round asks besides one worker per missing anchor (graph/round_strategy.py):"
        " hyde = the question, through HyDE in round 2 when use_hyde is on (the behaviour before this setting);"
        " rewrite = a guarded LLM rewrite of the question, the question itself when the guard rejects it;"
        " auto = chosen from the signals: a rewrite for a missing anchor or an inconsistent answer, HyDE for low"
        " support with every anchor covered (a rewrite when use_hyde is off), and no round at all when the model"
        " declined on strong evidence (the gate then decides as if no round were left).",
    )
    rewrite_min_similarity: float = _f(
        0.9,
        "Guarded rewrite: cosine to the question (the index's embedding model) needed to keep it (seed 001).",
        allowed=SHARE,
    )
    rewrite_top_distance_margin: float = _f(
        0.15,
        "Guarded rewrite: how much farther (cosine distance) its best dense hit may be than the question's (seed 001).",
        allowed=Range(0.0, 2.0),
    )
    rewrite_min_source_jaccard: float = _f(
        0.2,
        "Guarded rewrite: Jaccard overlap of the documents it and the question retrieve needed to keep it (seed 001).",
        allowed=SHARE,
    )
    dragin_threshold: float = _f(0.5, "Generation confidence (1 - normalised entropy) below = uncertain.", allowed=CUT)
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
        " quoted answer, 0 = never; an index embedded with multilingual-e5 uses"
        " e5_second_reading_below_relevance instead). A/B/C: 0: on English ClapNQ it withdrew right answers"
        " the two readings worded differently and stopped no wrong one (docs/benchmark-log.md).",
        allowed=CUT,
    )
    e5_second_reading_below_relevance: float = _f(
        1.0,
        "second_reading_below_relevance for an index embedded with multilingual-e5-small (A/B/C: 0.5, the"
        " strong-evidence cut: above it the readings disagreed as often on answerable as on unanswerable"
        " NoMIRACL-id questions; docs/benchmark-log.md).",
        allowed=CUT,
    )
    abstain_p_max: float = _f(
        1.0,
        "Abstain (ABSTAIN_MODEL_UNSURE) when the model's first-token probability of replying"
        ' "I don\'t know" is above this, even though it answered; 1.0 = off.',
        allowed=SHARE,
    )
    # --- answer stage ----------------------------------------------------------------------------
    answer_style: AnswerStyle = _f(
        "free",
        "free = sentences with [n] markers; quoted = the shortest answer, then the sentence that states it copied"
        " from a passage (QUOTE [n]: …, checked; a grammar holds llama.cpp to it); auto = quoted for questions"
        " that ask for a name, date, number, place, yes/no or a choice, free for open questions.",
    )
    free_style_fallback: bool = _f(
        False,
        'When a quoted draft declines ("I don\'t know" to the shortest-answer prompt) or answers nothing (an echo'
        " of the question), ask once more in the free style (sentences with [n] markers) over the same passages;"
        " the free answer becomes the draft unless it declines too. The small reader declines the short form on"
        " questions it answers in sentences. Off in every preset: measured in B, it traded about two right answers"
        " for one wrong (docs/benchmark-log.md, 2026-11-27: free-style fallback, ClapNQ 221-280).",
    )
    retry_min_relevance: float = _f(
        0.5,
        "Best passage relevance the evidence needs to count as strong (signal evidence_strong: round2_strategy"
        " auto spends no round on a decline over strong evidence).",
        allowed=SHARE,
    )
    # --- generation ------------------------------------------------------------------------------
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
    logprobs_top_k: int = _f(
        5,
        "Top-k logprobs requested per token for the uncertainty signal (at most 20, the OpenAI API's limit).",
        allowed=Range(0, MAX_TOP_LOGPROBS),
    )
    max_question_chars: int = _f(2000, "Longest question accepted.", allowed=Range(1, MAX_QUESTION_CHARS))
    llm_timeout_s: float = _f(
        300.0,
        "Seconds one call (one attempt) to a model server may take before it counts as failed"
        " (ABSTAIN_LLM_TIMEOUT). A local llama.cpp model has no timeout: on a busy machine it is slow, not failed.",
        allowed=Range(0.0, MAX_WAIT_S, low_open=True),
    )
    llm_max_retries: int = _f(
        DEFAULT_RETRIES,
        "Retries of an LLM call the server refused, dropped or failed (connection error, HTTP 5xx, HTTP 429);"
        " 0 = none. Timeouts and malformed replies are not retried. The OpenAI client's own retries are these:"
        " budgeted calls retry here with the client's off; the reranker and the eval peer chain let the client retry.",
        allowed=Range(0, MAX_RETRIES),
    )
    llm_retry_backoff_s: float = _f(
        DEFAULT_BACKOFF_S,
        "Seconds before the first retry of a failed LLM call; each further retry waits twice as long (no jitter).",
        allowed=Range(0.0, MAX_BACKOFF_S),
    )
    llm_retry_backoff_max_s: float = _f(
        DEFAULT_BACKOFF_MAX_S,
        "Longest wait in seconds between two LLM call retries.",
        allowed=Range(0.0, MAX_BACKOFF_S),
    )
    judge_retries: int = _f(1, "Extra judge attempts when its verdict cannot be parsed.", allowed=Range(0, MAX_RETRIES))
    judge_context_tokens: int = _f(
        450, "Evidence cap of the judge's prompt (the passages the draft cites).", allowed=Range(0, MAX_TOKENS)
    )
    prompt_overrides: dict[str, str] = _f(
        {}, "Prompt templates by name that replace the packaged ones.", allowed=Templates()
    )

    def __post_init__(self) -> None:
        # Studio and the server build the context straight from JSON, where the gray zone is a list:
        # a tuple of whatever it holds, its shape checked with everything else.
        if isinstance(self.gray_zone, list):
            self.gray_zone = tuple(self.gray_zone)
        self.validate()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (tuples become lists)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))

    def replace(self, **changes: Any) -> Config:
        """A copy with `changes` applied and validated (unknown keys are a ConfigError)."""
        known = set(field_names())
        for key in changes:
            if key not in known:
                close = difflib.get_close_matches(str(key), known, n=3)
                hint = f"did you mean {', '.join(close)}?" if close else "run `anchorgate config` for the keys"
                raise ConfigError(f"unknown setting {key!r}", hint)
        return dataclasses.replace(self, **changes)  # __post_init__ validates the copy

    def validate(self) -> None:
        """Raise ConfigError on the first setting its declaration does not allow: type, choices, range, shape.

        Fields are checked in the order they are declared, so a bound read from another setting
        (`Relative`, e.g. recursion_limit's from max_rounds) reads one already checked.
        """
        for f in fields(self):
            value = getattr(self, f.name)
            _check_type(f.name, value, _default_of(f))
            _check_choice(f.name, value)
            check_setting(f.name, value, f.metadata["allowed"], self)


def _default_of(f: dataclasses.Field[Any]) -> Any:
    return f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[operator]


def _check_type(name: str, value: Any, default: Any) -> None:
    """Values from JSON (Studio, the HTTP API) must have the field's type: no "5" for an int."""
    expected: tuple[type, ...] = (type(default),)
    if isinstance(default, float):
        expected = (float, int)
    elif isinstance(default, tuple):
        expected = (tuple, list)
    wrong_bool = isinstance(value, bool) and not isinstance(default, bool)
    if wrong_bool or not isinstance(value, expected):
        raise ConfigError(f"{name} must be of type {type(default).__name__}, got {shown(value)}", allowed_values(name))


def _check_choice(name: str, value: Any) -> None:
    choices = _choices().get(name)
    if choices and value not in choices:
        raise ConfigError(f"{name}={shown(value)} is not one of {list(choices)}")


@cache
def _choices() -> dict[str, tuple[Any, ...]]:
    """The allowed values of each Literal-typed setting."""
    hints = get_type_hints(Config)
    return {name: get_args(hint) for name, hint in hints.items() if get_origin(hint) is Literal}


def allowed_values(name: str) -> str:
    """What setting `name` may hold, in words (`anchorgate config`, error hints); "" when any value of its type."""
    by_name = {f.name: f for f in fields(Config)}
    choices = _choices().get(name)
    if choices:
        return f"allowed: one of {', '.join(map(str, choices))}"
    if isinstance(_default_of(by_name[name]), bool):
        return "allowed: true or false"
    rule = by_name[name].metadata["allowed"]
    if rule is None or isinstance(rule, Text):  # any text is what a text setting is: nothing to add
        return ""
    return f"allowed: {rule.describe(name)}"


def describe_fields() -> list[tuple[str, str, str]]:
    """(name, type, description) for every field, for `anchorgate config` and the docs."""
    return [(f.name, str(f.type), f.metadata["description"]) for f in fields(Config)]


def field_names() -> list[str]:
    """Every configuration key."""
    return [f.name for f in fields(Config)]


def parse_value(key: str, raw: str) -> Any:
    """Convert a `--set key=value` string to the type of field `key`."""
    by_name = {f.name: f for f in fields(Config)}
    if key not in by_name:
        close = difflib.get_close_matches(key, by_name, n=3)
        hint = f"did you mean {', '.join(close)}?" if close else "run `anchorgate config` for the keys"
        raise ConfigError(f"unknown setting {key!r}", hint)
    default = getattr(Config(), key)
    try:
        return _coerce(default, raw)
    except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
        message = f"cannot read {key}={shown(raw)} as {type(default).__name__}: {exc}"
        raise ConfigError(message, allowed_values(key)) from exc


def _coerce(default: Any, raw: str) -> Any:
    if isinstance(default, bool):
        lowered = raw.strip().lower()
        if lowered in {"1", "true", "yes", "on"}:
            return True
        if lowered in {"0", "false", "no", "off"}:
            return False
        raise ValueError("expected true or false")
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, tuple):
        return tuple(float(part) for part in raw.split(","))
    if isinstance(default, dict):
        value = json.loads(raw)
        if not isinstance(value, dict):
            raise ValueError("expected a JSON object")
        return value
    return raw


def parse_assignments(assignments: list[str]) -> dict[str, Any]:
    """`["key=value", …]` → typed overrides; a malformed item names itself in the error."""
    overrides: dict[str, Any] = {}
    for item in assignments:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set expects key=value, got {item!r}")
        overrides[key.strip()] = parse_value(key.strip(), raw)
    return overrides

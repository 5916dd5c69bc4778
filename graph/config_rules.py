"""What a number setting may be: the shared ranges and caps the declarations in graph/config.py use.

The caps refuse only values nobody can mean, before they reach llama.cpp (32-bit sizes), a
checkpoint (64-bit integers) or a timer; each says why.
"""

from __future__ import annotations

from anchorgate.graph.bounds import Range

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
MAX_QUESTION_CHARS = 100_000  # ~25,000 tokens: more than the default window holds
MAX_RETRIES = 100
MAX_BACKOFF_S = 3600.0  # an hour between retries: a longer wait is a stuck run, not a retry
MAX_WAIT_S = 86_400.0  # a day for one LLM call: a longer timeout is none


def steps_needed(max_rounds: int) -> int:
    """LangGraph steps of the longest run `max_rounds` allow (graph/builder.py): the run's recursion limit.

    Round 1 is 8 steps (intake, anchor_predictor, retriever_worker, fuse_and_select, generator,
    signals, judge, gate); the anchor one-shot retry 7 (round_planner, then the workers on); every
    further round 9 (round_planner, query_rewriter, hyde_writer, then the workers on); the one
    reflection 4 (reflector, signals, judge, gate); the finalizer 1. LangGraph's limit must be one
    above the steps a run takes (a chain of n nodes needs recursion_limit n + 1), hence the last 1.
    Our own round counters end every loop first, so the limit never ends a run.
    """
    return 8 + 7 + 9 * (max_rounds - 1) + 4 + 1 + 1

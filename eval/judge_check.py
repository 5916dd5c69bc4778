"""How good is the judge? HaluEval QA: accept the right answer, reject the hallucinated one.

For each HaluEval item the judge (the judge node's prompts, verdict reader and single re-ask for
the configured `judge_style`: `agents.judge.judge_messages` / `read_verdict`) sees the item's
knowledge passage, the question and, in two separate calls, the right answer and the
hallucinated answer.

* accept_right_rate: share of right answers judged SUPPORTED;
* reject_hallucinated_rate: share of hallucinated answers judged UNSUPPORTED or PARTIAL (PARTIAL
  sends the gate to REFLECT, never to STOP, so it is not an acceptance); the strict variant
  counts UNSUPPORTED only;
* accuracy: the mean of the two (both answer kinds are equally many), so a judge that always
  gives the same label scores 0.5 — read `labels` alongside it.
A reply with no verdict after the re-ask counts as wrong for either kind and is counted in
`malformed`. A failed call (the server unavailable, rate limited, silent or malformed) is not a
verdict: it stops the check with one `error:` line and exit 69 (`eval.cli`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from anchorgate.agents.generator import QUOTED_STOPS, quoted_messages
from anchorgate.agents.judge import JUDGE_MAX_TOKENS, judge_messages, quote_verdict, read_verdict, reask_message
from anchorgate.api import resolve_config
from anchorgate.eval.errors import EvalDataError
from anchorgate.eval.llm_cache import SqliteJsonCache
from anchorgate.eval.runner import cache_file, cache_namespace, load_eval_dataset
from anchorgate.graph.config import Config
from anchorgate.tools.datasets import QAItem
from anchorgate.tools.documents import Chunk
from anchorgate.tools.llm import load_chat_model
from anchorgate.tools.llm_calls import first_token_candidates
from anchorgate.tools.llm_faults import with_client_limits
from anchorgate.tools.packing import pack_context
from anchorgate.tools.quoted_draft import draft_grammar
from anchorgate.tools.usage import usage_record

REJECTING = ("UNSUPPORTED", "PARTIAL")


def _documents(item: QAItem, config: Config) -> str:
    """The knowledge passage(s), packed as the judge sees evidence."""
    chunks = [Chunk(p.id, p.id, p.title, p.text, p.source) for p in item.passages]
    if not chunks and item.extra.get("knowledge"):
        chunks = [Chunk("knowledge", "knowledge", "", str(item.extra["knowledge"]))]
    return pack_context(chunks, config.judge_context_tokens).text


async def judge_once(
    model: BaseChatModel, config: Config, documents: str, question: str, answer: str
) -> dict[str, Any]:
    """One verdict (with the judge's re-ask on an unparseable reply) and its token usage."""
    messages = judge_messages(config, documents, question, answer)
    prompt = completion = 0
    label: str | None = None
    confidence: float | None = None
    for _attempt in range(config.judge_retries + 1):
        reply = await model.ainvoke(messages, max_tokens=JUDGE_MAX_TOKENS)
        record = usage_record("judge", messages, reply)
        prompt, completion = prompt + record["prompt"], completion + record["completion"]
        logprobs = reply.response_metadata.get("logprobs")
        logprobs = logprobs if isinstance(logprobs, list) else None
        verdict = read_verdict(config, str(reply.content), logprobs, first_token_candidates(reply))
        if verdict is not None:
            label, confidence = verdict.label, verdict.confidence
            break
        messages = [*messages, AIMessage(str(reply.content)), reask_message(config)]
    return {"label": label, "confidence": confidence, "prompt": prompt, "completion": completion}


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy figures from per-item rows {id, right, hallucinated} (labels)."""
    n = len(rows)
    accepted = sum(r["right"] == "SUPPORTED" for r in rows)
    rejected = sum(r["hallucinated"] in REJECTING for r in rows)
    strict = sum(r["hallucinated"] == "UNSUPPORTED" for r in rows)
    return {
        "items": n,
        "accuracy": _rate(accepted + rejected, 2 * n),
        "accept_right_rate": _rate(accepted, n),
        "reject_hallucinated_rate": _rate(rejected, n),
        "reject_hallucinated_strict_rate": _rate(strict, n),
        "labels": {kind: dict(Counter(str(r[kind]) for r in rows)) for kind in ("right", "hallucinated")},
        "malformed": sum((r["right"] is None) + (r["hallucinated"] is None) for r in rows),
        "confidence_auc": confidence_auc(rows),
    }


def confidence_auc(rows: list[dict[str, Any]]) -> float | None:
    """How often a right answer's judge confidence beats a hallucinated one's (ties count half).

    Meaningful for `judge_style=yes_no`, whose confidence is P(YES); None when any is missing.
    """
    right = [r.get("right_confidence") for r in rows]
    wrong = [r.get("hallucinated_confidence") for r in rows]
    if not rows or any(v is None for v in [*right, *wrong]):
        return None
    wins = sum((a > b) + 0.5 * (a == b) for a in right for b in wrong)  # type: ignore[operator]
    return round(wins / (len(right) * len(wrong)), 4)


async def quote_judge_pair(
    model: BaseChatModel, config: Config, item: QAItem, answers: tuple[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`judge_style=quote`: one quoted extraction per item, then both answers checked against it."""
    passages = [{"n": n, "title": p.title, "text": p.text} for n, p in enumerate(item.passages, start=1)] or [
        {"n": 1, "title": "", "text": str(item.extra.get("knowledge", ""))}
    ]
    messages = quoted_messages(config, _documents(item, config), item.question, "answer_quoted_user")
    grammar = {"grammar": draft_grammar(passages)} if getattr(model, "supports_grammar", False) else {}
    reply = await model.ainvoke(messages, max_tokens=config.max_output_tokens, stop=list(QUOTED_STOPS), **grammar)
    record = usage_record("judge", messages, reply)
    results = []
    for answer in answers:
        verdict = quote_verdict(answer, str(reply.content), passages, item.question, config.judge_accept_p)
        results.append({"label": verdict.label, "confidence": verdict.confidence, "prompt": 0, "completion": 0,
                        "extraction": str(reply.content)})  # fmt: skip
    results[0].update(prompt=record["prompt"], completion=record["completion"])  # one call serves both
    return results[0], results[1]


async def _judge_item(
    model: BaseChatModel, config: Config, item: QAItem, hallucinated: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    if config.judge_style == "quote":
        return await quote_judge_pair(model, config, item, (item.answers[0], hallucinated))
    documents = _documents(item, config)
    right = await judge_once(model, config, documents, item.question, item.answers[0])
    wrong = await judge_once(model, config, documents, item.question, hallucinated)
    return right, wrong


async def _judge_all(
    items: tuple[QAItem, ...], model: BaseChatModel, config: Config
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    rows: list[dict[str, Any]] = []
    tokens = {"prompt": 0, "completion": 0}
    for item in items:
        hallucinated = item.extra.get("hallucinated_answer")
        if not item.answers or not hallucinated:
            raise EvalDataError(f"item {item.id!r} lacks a right or a hallucinated answer (is this HaluEval QA?)")
        right, wrong = await _judge_item(model, config, item, str(hallucinated))
        for result in (right, wrong):
            tokens["prompt"] += result["prompt"]
            tokens["completion"] += result["completion"]
        rows.append({
            "id": item.id, "right": right["label"], "hallucinated": wrong["label"],
            "right_confidence": right["confidence"], "hallucinated_confidence": wrong["confidence"],
            **({"extraction": right["extraction"]} if "extraction" in right else {}),
        })  # fmt: skip
    return rows, tokens


def judge_accuracy(
    dataset_path: str | Path,
    limit: int | None = None,
    llm_spec: str = "local",
    *,
    overrides: dict[str, Any] | None = None,
    llm_cache: str | Path | None = None,
    model: BaseChatModel | None = None,
) -> dict[str, Any]:
    """Judge accuracy on a HaluEval QA file or folder (see the module docstring for the figures).

    `model` replaces the chat model built from `llm_spec` (tests); `llm_cache` as in `run_eval`.
    """
    config = resolve_config("A", {**(overrides or {}), "llm": llm_spec})
    dataset = load_eval_dataset(dataset_path, "halueval", limit=limit)
    if model is None:
        model = load_chat_model(config.llm, temperature=config.temperature, seed=config.seed, n_ctx=config.n_ctx,
                                top_logprobs=config.logprobs_top_k, max_tokens=JUDGE_MAX_TOKENS,
                                cache_dir=config.cache_dir)  # fmt: skip
    # bounded like every LLM call: the run's timeout, the client's own retries = llm_max_retries
    model = with_client_limits(model, config.llm_timeout_s, config.llm_max_retries)
    path = cache_file(llm_cache, config)
    cache = SqliteJsonCache(path, cache_namespace(config)) if path is not None else None
    if cache is not None:
        model = model.model_copy(update={"cache": cache})
    try:
        rows, tokens = asyncio.run(_judge_all(dataset.items, model, config))
    finally:
        if cache is not None:
            cache.close()
    summary = summarize(rows)
    return {**summary, "dataset": str(dataset_path), "llm": config.llm, "tokens": tokens,
            "llm_cache": cache.stats() if cache is not None else None, "per_item": rows}  # fmt: skip

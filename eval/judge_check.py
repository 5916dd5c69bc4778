"""How good is the judge? HaluEval QA: accept the right answer, reject the hallucinated one.

For each HaluEval item the judge (the judge node's prompts, verdict reader and re-ask loop for
the configured `judge_style`: `agents.judge.judge_messages` / `ask_for_verdict`) sees the item's
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
from langchain_core.messages import AIMessage, BaseMessage

from anchorgate.agents.judge import (
    JUDGE_CONTEXT_TOKENS,
    JUDGE_MAX_TOKENS,
    ask_for_verdict,
    judge_messages,
    quote_verdict,
)
from anchorgate.api import resolve_config
from anchorgate.eval.datasets import QAItem
from anchorgate.eval.errors import EvalDataError
from anchorgate.eval.llm_cache import SqliteJsonCache
from anchorgate.eval.runner import cache_file, cache_namespace, load_eval_dataset
from anchorgate.graph.config import Config
from anchorgate.tools.answer.grounding import answer_grounding
from anchorgate.tools.answer.quoted_draft import draft_grammar
from anchorgate.tools.answer.reader import QUOTED_STOPS, quoted_messages
from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.llm.calls import CallOutcome
from anchorgate.tools.llm.chat_models import load_chat_model
from anchorgate.tools.llm.faults import with_client_limits
from anchorgate.tools.llm.usage import usage_record
from anchorgate.tools.retrieval.packing import pack_context
from anchorgate.tools.services import TOP_LOGPROBS

REJECTING = ("UNSUPPORTED", "PARTIAL")


def _documents(item: QAItem, config: Config) -> str:
    """The knowledge passage(s), packed as the judge sees evidence."""
    chunks = [Chunk(p.id, p.id, p.title, p.text, p.source) for p in item.passages]
    if not chunks and item.extra.get("knowledge"):
        chunks = [Chunk("knowledge", "knowledge", "", str(item.extra["knowledge"]))]
    return pack_context(chunks, JUDGE_CONTEXT_TOKENS).text


async def judge_once(
    model: BaseChatModel, config: Config, documents: str, question: str, answer: str
) -> dict[str, Any]:
    """One verdict (the judge node's loop: a re-ask on an unparseable reply) and its token usage.

    Unbudgeted and unguarded on purpose: the check measures the judge, and a failed call raises
    (the check stops on it, `eval.cli`)."""

    async def ask(messages: list[BaseMessage]) -> CallOutcome:
        reply = await model.ainvoke(messages, max_tokens=JUDGE_MAX_TOKENS)
        message = reply if isinstance(reply, AIMessage) else AIMessage(content=str(reply.content))
        return CallOutcome(message, usage_record("judge", messages, reply))

    verdict, records = await ask_for_verdict(config, judge_messages(config, documents, question, answer), ask)
    return {
        "label": verdict.label if verdict else None,
        "confidence": verdict.confidence if verdict else None,
        "prompt": sum(r["prompt"] for r in records),
        "completion": sum(r["completion"] for r in records),
    }


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
    passages = passage_dicts(item)
    messages = quoted_messages(config, _documents(item, config), item.question, "answer_quoted_user")
    grammar: dict[str, Any] = {"grammar": draft_grammar(passages)} if getattr(model, "supports_grammar", False) else {}
    reply = await model.ainvoke(
        messages, max_tokens=config.budget.max_output_tokens, stop=list(QUOTED_STOPS), **grammar
    )
    record = usage_record("judge", messages, reply)
    results = []
    for answer in answers:
        verdict = quote_verdict(answer, str(reply.content), passages, item.question, config.judge.accept_p)
        results.append({"label": verdict.label, "confidence": verdict.confidence, "prompt": 0, "completion": 0,
                        "extraction": str(reply.content)})  # fmt: skip
    results[0].update(prompt=record["prompt"], completion=record["completion"])  # one call serves both
    return results[0], results[1]


def passage_dicts(item: QAItem) -> list[dict[str, Any]]:
    """The item's passages (its knowledge string when it has none), numbered as the judge sees them."""
    return [{"n": n, "title": p.title, "text": p.text} for n, p in enumerate(item.passages, start=1)] or [
        {"n": 1, "title": "", "text": str(item.extra.get("knowledge", ""))}
    ]


def _ungrounded(grounding: float) -> dict[str, Any]:
    """The judge node's verdict on an answer whose words are not in the passages: no call made."""
    return {"label": "UNSUPPORTED", "confidence": grounding, "prompt": 0, "completion": 0}


async def _judge_item(
    model: BaseChatModel, config: Config, item: QAItem, hallucinated: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both answers' verdicts, each with its grounding; an ungrounded answer costs no call, as in the node."""
    answers = (item.answers[0], hallucinated)
    groundings = [answer_grounding(answer, passage_dicts(item), item.question) for answer in answers]
    grounded = [g >= config.judge.grounding_min for g in groundings]
    if config.judge.style == "quote" and any(grounded):
        verdicts = list(await quote_judge_pair(model, config, item, answers))
    else:
        documents = _documents(item, config)
        verdicts = [await judge_once(model, config, documents, item.question, answer) if ok else {}
                    for answer, ok in zip(answers, grounded, strict=True)]  # fmt: skip
    for n, grounding in enumerate(groundings):
        verdict = verdicts[n]
        if not grounded[n]:  # keeps the tokens of a quote call made for the other answer
            verdict = {**_ungrounded(grounding), "prompt": verdict.get("prompt", 0),
                       "completion": verdict.get("completion", 0)}  # fmt: skip
        verdicts[n] = {**verdict, "grounding": grounding}
    return verdicts[0], verdicts[1]


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
            "right_grounding": right["grounding"], "hallucinated_grounding": wrong["grounding"],
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
    config = resolve_config("A", {**(overrides or {}), "llm.model": llm_spec})
    dataset = load_eval_dataset(dataset_path, "halueval", limit=limit)
    if model is None:
        llm = config.llm
        model = load_chat_model(llm.model, temperature=llm.temperature, seed=llm.seed, n_ctx=llm.n_ctx,
                                top_logprobs=TOP_LOGPROBS, max_tokens=JUDGE_MAX_TOKENS,
                                cache_dir=config.resources.cache_dir)  # fmt: skip
    # bounded like every LLM call: the run's timeout, the client's own retries = llm.max_retries
    model = with_client_limits(model, config.llm.timeout_s, config.llm.max_retries)
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
    return {**summary, "dataset": str(dataset_path), "llm": config.llm.model, "tokens": tokens,
            "llm_cache": cache.stats() if cache is not None else None, "per_item": rows}  # fmt: skip

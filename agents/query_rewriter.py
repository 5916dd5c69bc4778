"""Query rewriter: a guarded LLM rewrite of the question for a new retrieval round (seed 001 §3).

The model (temperature 0, the budgeted `budgeted_call`) rewrites the question, putting the anchors
the round planner names first. The guard then decides whether the rewrite may search:

  BLOCK_EMPTY / BLOCK_IDENTICAL / BLOCK_LANGUAGE   no words, the question's words again, another
                                                   language (`tools.question.rewrite_guard.screen_rewrite`)
  BLOCK_SIMILARITY  cosine to the question (the index's embedding model) below
                    `rewrite_min_similarity` (seed 001: 0.9)
  BLOCK_ENTITIES    a name, number, date or quoted string of the question dropped or one added
  BLOCK_TOP_DISTANCE / BLOCK_JACCARD   post-validation on the index: its best dense hit farther
                    than the question's by more than the margin, or too few documents in common
  SKIPPED_<kind>    no rewrite: the call did not fit the budget or failed
  ACCEPT            the rewrite replaces the question worker's query

A rejected rewrite never reaches retrieval: the round asks the question itself, or HyDE's passage
when the plan names HyDE as the fallback. Every attempt is logged (`rewrite_log`, telemetry
`rewrites`) with its reason and measured values.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.prompts import render
from anchorgate.tools.llm.budgeted import budgeted_call
from anchorgate.tools.llm.calls import CallOutcome
from anchorgate.tools.llm.usage import spend_update
from anchorgate.tools.question.rewrite_guard import entity_changes, rewrite_entity_sets, screen_rewrite
from anchorgate.tools.question.rewrite_validation import RewriteThresholds, cosine, validate_rewrite
from anchorgate.tools.retrieval.vector_backend import dense_hits
from anchorgate.tools.services import Services, aservices_for

REWRITE_MAX_TOKENS = 64
# Labels and quotes a small model wraps its one line in ("Rewritten question: "…"").
_LABEL = re.compile(r"^\s*(?:rewritten question|rewritten query|search query|question|query)\s*:\s*", re.IGNORECASE)
_WRAPPERS = "\"'`“”‘’ "


@dataclass(frozen=True)
class RewriteCheck:
    """The guard's verdict on one rewrite, with what it measured (None where it stopped before measuring)."""

    accepted: bool
    reason: str
    similarity: float | None = None
    top_distance_delta: float | None = None
    jaccard: float | None = None
    dropped: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


def clean_rewrite(reply: str) -> str:
    """The rewrite in a reply: its first non-empty line without a label or wrapping quotes."""
    line = next((text for text in reply.splitlines() if text.strip()), "")
    return _LABEL.sub("", line).strip(_WRAPPERS).strip()


def focus_sentence(anchors: list[str]) -> str:
    """The prompt's `{focus}`: the anchors the rewrite should put first ("" when none)."""
    return f" Make sure it names {', '.join(anchors)} explicitly." if anchors else ""


def _retrieval(config: Config, services: Services, vector: list[float]) -> tuple[float, set[str]]:
    """(top cosine distance, documents) of a dense search: seed 001's post-validation inputs."""
    hits = dense_hits(config, services, vector, config.retrieval.k)
    top = 1.0 - float(hits[0][1]) if hits else 2.0
    return top, {chunk.doc_id for chunk, _ in hits}


async def guard_rewrite(question: str, rewrite: str, config: Config, services: Services) -> RewriteCheck:
    """Screen, then measure (similarity, entities, retrieval) and apply seed 001's validator."""
    screened = screen_rewrite(question, rewrite)
    if screened is not None:
        return RewriteCheck(False, screened)
    # both as queries: the model's query form (e5's "query: " prefix) on each side
    original_vec = await services.embeddings.aembed_query(question)
    rewrite_vec = await services.embeddings.aembed_query(rewrite)
    similarity = round(cosine(original_vec, rewrite_vec), 4)
    (top_q, docs_q), (top_r, docs_r) = await asyncio.gather(
        asyncio.to_thread(_retrieval, config, services, original_vec),
        asyncio.to_thread(_retrieval, config, services, rewrite_vec),
    )
    thresholds = RewriteThresholds()
    before, after = rewrite_entity_sets(question, rewrite)
    decision = validate_rewrite(similarity, before, after, top_q, top_r, docs_q, docs_r, thresholds)
    dropped, added = entity_changes(question, rewrite)
    return RewriteCheck(
        decision.accepted, decision.reason, similarity, round(decision.top_distance_delta, 4),
        round(decision.jaccard, 4), dropped, added,
    )  # fmt: skip


def _skipped(outcome: CallOutcome) -> RewriteCheck | None:
    """SKIPPED_BUDGET, SKIPPED_<fault> … when the call made no reply; None when it did."""
    if outcome.reply is not None:
        return None
    return RewriteCheck(False, f"SKIPPED_{outcome.record.get('skipped') or 'NO_REPLY'}")


def _with_rewrite(queries: list[dict[str, Any]], rewrite: str) -> list[dict[str, Any]]:
    """This round's question worker asks the rewrite instead (renamed, so telemetry shows whose hits they are)."""
    return [
        {"worker": q["worker"].replace("question", "rewrite", 1), "query": rewrite, "dense_query": rewrite}
        if q["worker"].startswith("question")
        else q
        for q in queries
    ]


async def rewrite_query(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The guarded rewrite as the question worker's query, or the plan's fallback; the attempt logged."""
    config = runtime.context
    started = time.perf_counter()
    services = await aservices_for(config)
    plan = (state.get("round_plans") or [{}])[-1]
    question = state["question"]
    prompt = render(
        "rewrite", config.llm.prompt_overrides, question=question, focus=focus_sentence(plan.get("focus", []))
    )
    outcome = await budgeted_call(
        config, [HumanMessage(prompt)], stage="rewrite", usage=state.get("usage", {}), max_tokens=REWRITE_MAX_TOKENS
    )
    rewrite = clean_rewrite(outcome.text)[: config.llm.max_question_chars]
    check = _skipped(outcome) or await guard_rewrite(question, rewrite, config, services)
    fallback = "rewrite" if check.accepted else str(plan.get("fallback", "question"))
    entry = {"round": state.get("round", 1), "rewrite": rewrite, **asdict(check), "fallback": fallback}
    queries = state.get("pending_queries", [])
    return {
        "rewrite_pending": False,
        "rewrite_log": [entry],
        "pending_queries": _with_rewrite(queries, rewrite) if check.accepted else queries,
        "hyde_use": fallback == "hyde",
        "calls": [outcome.record],
        "usage": spend_update(outcome.record),
        "latency": {"query_rewriter": time.perf_counter() - started},
    }

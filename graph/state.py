"""Graph state: a narrow input, the internal round state, and a stable output contract.

Accumulating channels declare reducers with `Annotated`. Evidence is merged by chunk id: a chunk
found by several workers keeps its best score, the pass it was first found in and the list of
workers that found it. Token spend and latencies add up per stage/node. Every accumulating
channel has an explicit reset, because one checkpoint thread may carry several questions.
Nodes return partial updates and never mutate what they were given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypedDict, cast

from anchorgate.graph.signals import GateDecision, Signals
from anchorgate.tools.llm.usage import add_usage
from anchorgate.tools.question.anchors import AnchorKind, QuestionType
from anchorgate.tools.retrieval.evidence import Evidence


class AnchorRecord(TypedDict):
    """An anchor in graph state: `tools.question.anchors.Anchor` as a dict (agents/anchor_predictor.py)."""

    text: str
    kind: AnchorKind
    essential: bool  # coverage needs it: missing from the evidence, it blocks a STOP
    confidence: float  # how sure the rule is that the span is an anchor
    aliases: Sequence[str]  # other spellings that count as the anchor ("AO" for "Australian Open")
    inferred: bool  # guessed without capitalisation cues: retried for, never abstained for


def merge_evidence(current: list[Evidence] | None, update: list[Evidence] | None) -> list[Evidence]:
    """Reducer: merge by chunk id (best score, first pass, each worker's rank); `[{"reset": True}]` empties."""
    if update and cast(Mapping[str, Any], update[0]).get("reset"):  # the reset marker is not evidence
        current, update = [], update[1:]
    merged = {e["id"]: e for e in current or []}
    order = [e["id"] for e in current or []]
    for item in update or []:
        known = merged.get(item["id"])
        if known is None:
            merged[item["id"]] = item
            order.append(item["id"])
            continue
        ranks = dict(known.get("ranks", {}))
        for worker, rank in item.get("ranks", {}).items():
            ranks[worker] = min(rank, ranks.get(worker, rank))
        best = item if item["score"] > known["score"] else known
        passes = sorted(set(known.get("passes", [known["pass"]])) | set(item.get("passes", [item["pass"]])))
        merged[item["id"]] = {**best, "pass": passes[0], "passes": passes, "ranks": ranks}
    return [merged[cid] for cid in order]


def append_log(current: list[dict[str, Any]] | None, update: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Reducer: append records; an update starting with {"reset": True} starts a new log."""
    if update and update[0].get("reset"):
        return list(update[1:])
    return [*(current or []), *update]


def add_latency(current: dict[str, float] | None, update: dict[str, float]) -> dict[str, float]:
    """Reducer: seconds per node, summed over rounds; {"__reset__": 0} starts over."""
    merged = {} if "__reset__" in update else dict(current or {})
    for node, seconds in update.items():
        if node != "__reset__":
            merged[node] = round(merged.get(node, 0.0) + seconds, 4)
    return merged


class InputState(TypedDict):
    """What a caller sends: just the question (settings travel in the run context)."""

    question: str


class OutputState(TypedDict, total=False):
    """What a caller gets back."""

    answer: str  # in the question's Chinese script; citations' quotes stay verbatim passage text
    short_answer: str
    citations: list[dict[str, Any]]
    decision: str
    reason: str
    rounds: int
    tokens: dict[str, Any]
    telemetry: dict[str, Any]
    hops: list[dict[str, Any]]  # a multi-hop question's chain: each hop's question, answer and citations ([]: one hop)


class State(InputState, OutputState, total=False):
    """Internal round state persisted by the checkpointer."""

    settings: dict[str, Any]  # the run's Config (JSON form), so resume and replay go on with the same settings
    question_type: QuestionType
    anchors: list[AnchorRecord]
    round: int  # retrieval rounds used (the anchor one-shot retry is not a round)
    pass_no: int  # retrieval passes made (rounds + one-shot retries)
    one_shot_used: bool
    reflected: bool
    judge_calls: int
    judge: dict[str, Any] | None  # latest verdict {label, supported, confidence, raw, error}
    hyde_use: bool  # the planned pass asks HyDE for its dense query first
    hyde_text: str
    rewrite_pending: bool  # the planned pass asks the query rewriter first (agents/query_rewriter.py)
    rewrite_log: Annotated[list[dict[str, Any]], append_log]  # guarded rewrites: {round, rewrite, accepted, reason, …}
    round_plans: Annotated[list[dict[str, Any]], append_log]  # each round's plan: {round, strategy, why, …}
    pending_queries: list[dict[str, Any]]  # the next pass's worker queries {worker, query, dense_query}
    evidence: Annotated[list[Evidence], merge_evidence]
    context: list[Evidence]  # the numbered passages the generator saw, in order (with "n")
    context_text: str
    context_tokens: int
    pruning: dict[str, Any]
    draft: str
    draft_logprobs: list[list[float]] | None
    draft_abstain_p: float | None  # P(the reply starts with "I don't know"), from the first token
    draft_structure: dict[str, Any] | None  # quoted drafts: status, quotes and their checks, answer grounding
    second_reading: dict[str, Any] | None  # {answer: the first reading's, second: the reversed reading's, agree}
    draft_source: str  # fingerprint of the generator's prompt the draft answers ("" once another node rewrote it)
    drafts_reused: int  # passes whose context was unchanged, so the generator kept its draft instead of a call
    signals: Signals
    gate_decision: GateDecision
    usage: Annotated[dict[str, dict[str, int]], add_usage]
    calls: Annotated[list[dict[str, Any]], append_log]
    gate_log: Annotated[list[dict[str, Any]], append_log]
    latency: Annotated[dict[str, float], add_latency]
    overflow: Annotated[list[dict[str, Any]], append_log]
    citation_repairs: Annotated[list[dict[str, Any]], append_log]  # markers moved to the supporting passage
    asked_question: str  # the question as asked, when `question` is the current hop of a multi-hop plan
    hop_plan: list[str]  # the multi-hop plan (`gate.follow_hops`): hop k may name hop j's answer as #j; [] = one hop
    hop: int  # the hop `question` holds (0-based)
    hop_plan_reason: str  # why the question is planned as it is (tools/question/hop_plan.py)
    hop_chain: Annotated[list[dict[str, Any]], append_log]  # answered inner hops: {hop, question, answer, citations}


class WorkerState(TypedDict):
    """Private input of one retriever worker (sent with `Send`)."""

    question: str
    worker: str
    query: str
    dense_query: str
    pass_no: int


# Updates that empty every accumulating channel: a thread may carry several questions.
RESET_CHANNELS: dict[str, Any] = {
    "evidence": [{"reset": True}],
    "usage": {"__reset__": {}},
    "calls": [{"reset": True}],
    "gate_log": [{"reset": True}],
    "latency": {"__reset__": 0.0},
    "overflow": [{"reset": True}],
    "citation_repairs": [{"reset": True}],
    "rewrite_log": [{"reset": True}],
    "round_plans": [{"reset": True}],
    "hop_chain": [{"reset": True}],
}

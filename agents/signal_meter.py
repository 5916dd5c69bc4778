"""Signal meter: measures what the gate decides on, every round, and keeps it in state.

Support overlap (and its change), novelty (new-hits ratio of the latest pass), essential-anchor
coverage (and its change), retrieval confidence (seed 001), generation confidence from token
entropy (DRAGIN; missing logprobs ⇒ uncertain), the judge's verdict on this very draft, and the
tokens and rounds left. Each signal's name, type and meaning is declared once, in `graph/signals.py`.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, TypedDict

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.gate import needs_judge
from anchorgate.graph.signals import DraftStatus, Signals
from anchorgate.graph.state import Evidence, State
from anchorgate.tools.answer.answer_links import NAMED_KINDS, answer_bridged, answer_unanchored
from anchorgate.tools.answer.confidence import answer_span_confidence, dragin_confidence, retrieval_confidence
from anchorgate.tools.answer.question_match import is_chinese_question, off_question
from anchorgate.tools.answer.quoted_draft import non_answer
from anchorgate.tools.answer.support import SUPPORTED_AT, claims_as_dicts, support_report
from anchorgate.tools.answer.text import is_idk
from anchorgate.tools.llm.usage import totals
from anchorgate.tools.question.anchors import Anchor, anchor_coverage
from anchorgate.tools.question.asked_type import answer_fits, asked_type, is_bridge_answer
from anchorgate.tools.question.hop_plan import plan_hops
from anchorgate.tools.retrieval.evidence_strength import measure_strength
from anchorgate.tools.services import aservices_for
from anchorgate.tools.text.tokens import count_tokens


def draft_key(draft: str) -> str:
    """Identity of a draft, so a judge verdict is only reused for the text it judged."""
    return hashlib.sha1(draft.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def novelty(evidence: list[Evidence], pass_no: int) -> float:
    """Share of the latest pass's chunks not retrieved in an earlier pass (1.0 on the first)."""
    latest = [e for e in evidence if pass_no in e.get("passes", [e["pass"]])]
    if not latest:
        return 0.0
    return round(sum(e["pass"] == pass_no for e in latest) / len(latest), 4)


def _retrieval_confidence(state: State) -> float:
    """Seed 001 confidence from the question worker's cosine distances (d = 1 − cos)."""
    mine = [
        (e["ranks"]["question"], dense)
        for e in state.get("evidence", [])
        if "question" in e.get("ranks", {}) and (dense := e.get("dense")) is not None
    ]
    mine.sort(key=lambda ranked: ranked[0])
    distances = [1.0 - float(dense) for _, dense in mine[:5]]
    if not distances:
        return 0.0
    return round(retrieval_confidence(distances, len(state["question"].split())).confidence, 4)


def off_question_lacks(state: State, idk: bool) -> str | None:
    """What a quoted answer's quotes lack of what a Chinese question asks ("number,terms"; "" for nothing),
    or None when not read: the check is off, the question is not Chinese, or the draft is not quoted."""
    structure = state.get("draft_structure") or {}
    if idk or structure.get("status") != "quoted" or not is_chinese_question(state["question"]):
        return None
    quotes = [q for q in structure.get("quotes", []) if q.get("status") != "absent"]
    titles = {int(p["n"]): p["title"] for p in state.get("context", [])}
    lacks = off_question(
        state["question"],
        str(structure.get("answer", "")),
        [q.get("match") or q["text"] for q in quotes],
        [titles[q["found_in"]] for q in quotes if q.get("found_in") in titles],
    )
    return ",".join(lacks)


def wrong_kind(state: State, idk: bool, hop_next: bool) -> str | None:
    """Why a quoted answer does not answer what the question asks: "kind" (a place for "in what year", a
    state for "which country"), "bridge" (an earlier hop's answer, or the name a description of the
    question is about; not read while `hop_next`: an inner hop's answer is the bridge by design, and the
    gate goes on to the next hop); "" for neither; None when not read (a free or declined draft)."""
    structure = state.get("draft_structure") or {}
    answer = str(structure.get("answer", "")).strip()
    if idk or structure.get("status") != "quoted" or not answer:
        return None
    if answer_fits(asked_type(state["question"]), answer) is False:  # the current hop's question when hopping
        return "kind"
    if hop_next:
        return ""
    plan = plan_hops(state.get("asked_question") or state["question"])
    earlier = [str(h["answer"]) for h in state.get("hop_chain", []) if "answer" in h]
    return "bridge" if is_bridge_answer(answer, plan, earlier) else ""


def inconsistent(state: State) -> bool | None:
    """The second reading did not give the current draft's answer again; None when it was not read again
    (off, a free or declined draft, no budget) or the draft has changed since (a retry rewrote it)."""
    reading = state.get("second_reading")
    if not reading or reading.get("answer") != (state.get("draft_structure") or {}).get("answer"):
        return None
    return not reading.get("agree")


class QuotedSignals(TypedDict):
    """The signals a quoted draft decides (see `Signals` for each)."""

    draft_status: DraftStatus
    quote_verified: bool | None
    answer_grounding: float | None
    overlap: float
    non_answer: str | None


def quoted_signals(
    structure: dict[str, Any] | None,
    overlap: float,
    grounding_min: float,
    question: str,
    yes_no_question: bool,
) -> QuotedSignals:
    """Signals of a quoted draft; a verified, grounded quote counts as full support.

    The quote was found in the passages (verbatim, or nearly) and the answer's words are in it:
    the answer is supported even when the answer alone ("yes", "1889") shares little with the
    passage it cites. An unverified quote leaves the overlap to the usual claim measure.
    """
    if not structure:
        return {"draft_status": "free", "quote_verified": None, "answer_grounding": None, "overlap": overlap,
                "non_answer": None}  # fmt: skip
    empty = None
    quotes = structure.get("quotes", [])
    if structure["status"] == "quoted":
        empty = non_answer(structure.get("answer", ""), question, yes_no_question)
    found = any(q["status"] != "absent" for q in quotes)
    grounding = float(structure.get("grounding", 0.0))
    grounded = structure["status"] == "quoted" and found and grounding >= grounding_min
    return {
        "draft_status": structure["status"],
        "quote_verified": bool(structure.get("verified")) or found,
        "answer_grounding": grounding,
        "overlap": 0.0 if empty else 1.0 if grounded else overlap,
        "non_answer": empty,
    }


async def measure(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The round's signals plus whether the judge should be consulted now."""
    config = runtime.context
    started = time.perf_counter()
    draft, context = state.get("draft", ""), state.get("context", [])
    embeddings = (await aservices_for(config)).embeddings if config.gate.mode != "none" else None
    overlap, claims = support_report(draft, context, embeddings, SUPPORTED_AT)
    anchors = [
        Anchor(a["text"], a["kind"], a["essential"], a["confidence"], tuple(a.get("aliases", ())))
        for a in state.get("anchors", [])
    ]
    inferred = {a["text"] for a in state.get("anchors", []) if a.get("inferred")}
    coverage, missing = anchor_coverage(anchors, [f"{p['title']} {p['text']}" for p in context])
    # a hop links named things; a year or number the cited passage lacks is a doubt about the answer
    named = [a for a in anchors if a.text not in inferred and a.kind in NAMED_KINDS]
    previous = state.get("signals")  # {} before the first measurement
    judge = state.get("judge") or {}
    generation = dragin_confidence(state.get("draft_logprobs"))
    answer_conf = answer_span_confidence(
        (state.get("draft_structure") or {}).get("raw") or draft,
        state.get("draft_logprobs"),
        count_tokens,
    )
    spent = totals(state.get("usage", {}))["total"]
    idk = bool(draft) and is_idk(draft)
    # the question type the anchor predictor classified once, not classified again every round
    yes_no = state.get("question_type") == "yes_no"
    quoted = quoted_signals(state.get("draft_structure"), overlap, SUPPORTED_AT, state["question"], yes_no)
    firm_covered = all(a.text in inferred for a in missing)
    strength = measure_strength(state["question"], context, firm_covered, config.gate.strong_evidence)
    hop_next = state.get("hop", 0) < len(state.get("hop_plan") or [None]) - 1
    signals: Signals = {
        "round": state.get("round", 1),
        "pass_no": state.get("pass_no", 1),
        "has_context": bool(context),
        "has_draft": bool(draft),
        "budget_skipped": any(
            c.get("skipped") == "BUDGET" and c["stage"] == "generate" for c in state.get("calls", [])
        ),
        "idk": idk or bool(quoted["non_answer"]),  # an answer that answers nothing declines
        "overlap": quoted["overlap"],
        "overlap_delta": round(quoted["overlap"] - (previous["overlap"] if previous else 0.0), 4),
        "draft_status": quoted["draft_status"],
        "non_answer": quoted["non_answer"],
        "quote_verified": quoted["quote_verified"],
        "answer_grounding": quoted["answer_grounding"],
        "top_relevance": strength.top_relevance,
        "answer_type": strength.answer_type,
        "answer_type_present": strength.answer_type_present,
        "evidence_strong": strength.strong,
        "claims": claims_as_dicts(claims),
        "novelty": novelty(state.get("evidence", []), state.get("pass_no", 1)),
        "coverage": round(coverage, 4),
        "coverage_delta": round(coverage - (previous["coverage"] if previous else 0.0), 4),
        "missing_anchors": [a.text for a in missing],
        "missing_firm_anchors": [a.text for a in missing if a.text not in inferred],
        "retrieval_confidence": _retrieval_confidence(state),
        "gen_confidence": round(generation.confidence, 4),
        "gen_uncertain": generation.uncertain,
        "answer_confidence": None if answer_conf.missing else round(answer_conf.confidence, 4),
        # a model that reports no logprobs (some servers) turns the signal off, on the record
        "uncertainty_off": "no logprobs from the model" if answer_conf.missing and draft and not idk else None,
        "abstain_p": state.get("draft_abstain_p"),
        "judge_label": judge.get("label") if judge.get("draft_key") == draft_key(draft) else None,
        "judge_calls": state.get("judge_calls", 0),
        "reflected": state.get("reflected", False),
        "one_shot_used": state.get("one_shot_used", False),
        "tokens_spent": spent,
        "tokens_left": config.budget.token_budget - spent,
        "rounds_left": config.budget.max_rounds - state.get("round", 1),
        "question_type": state.get("question_type", "other"),
        "answer_bridged": bool(draft) and not idk and answer_bridged(named, draft, context),
        "answer_unanchored": bool(draft) and not idk and answer_unanchored(named, draft, context),
        "answer_inconsistent": inconsistent(state),
        "answer_off_question": off_question_lacks(state, idk) if config.gate.chinese_quote_check else None,
        "answer_wrong_kind": wrong_kind(state, idk, hop_next) if config.gate.follow_hops else None,
        "hop_next": hop_next,
    }
    signals["judge_needed"] = needs_judge(signals, config)
    return {"signals": signals, "latency": {"signals": time.perf_counter() - started}}

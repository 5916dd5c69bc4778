"""The signal contract: what the meter measures, what the gate decides, logs and records.

`Signals` declares every signal once: its type and, in its `About`, what it measures and how far
it travels — the gate's input only ("gate"), also each gate-log entry ("log", telemetry
`gate[].signals`), or also the evaluation record's gate summary ("record"). Every list of names is
derived from it (`LOGGED_SIGNALS`, `RECORDED_SIGNALS`, `SIGNAL_NAMES`), so adding a signal is one
line here plus its measurement in `agents/signal_meter.py`; a key that is not declared is a mypy
error (`signals["typo"]`) wherever `Signals` is the type.

A signal that withdraws an answer the gate would stop on carries its row of the gate's table in its
`About` (`Withdrawal`: enabling setting, retrieve and abstain reasons, whether the judge is skipped);
`graph/gate.py` reads the rows in declaration order. Adding a withdrawal rule is its declaration and
two reasons here, its measurement, and its setting in `graph/config_groups.py`.

The gate's answer is an `Action` and a `GateReason` (described in `graph/gate.py`); a run that
ended on an LLM fault carries a `FaultReason` instead (`tools/llm/faults.py`), and a run that
reached the finalizer without any decision `ABSTAIN_NO_DECISION`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired, TypedDict, get_args, get_origin, get_type_hints

from anchorgate.tools.question.anchors import QuestionType

Keep = Literal["gate", "log", "record"]


@dataclass(frozen=True)
class Withdrawal:
    """A signal's row in the gate's table: it withdraws an answer the gate would stop on while the
    setting holds one of the values in `on`. Another round (`retrieve`) while one can start, else
    `abstain`; `skips_judge`: withdrawn whatever the judge says, so no judge call is spent."""

    setting: str
    on: tuple[object, ...]
    retrieve: GateReason
    abstain: GateReason
    skips_judge: bool


@dataclass(frozen=True)
class About:
    """What a signal measures, where it is kept besides the gate's input (see the module docstring),
    and its withdrawal row if it withdraws answers."""

    text: str
    keep: Keep = "gate"
    withdraws: Withdrawal | None = None


DraftStatus = Literal["free", "quoted", "declined", "malformed"]
JudgeLabel = Literal["SUPPORTED", "PARTIAL", "UNSUPPORTED"]


class Signals(TypedDict):
    """One round's measurements (agents/signal_meter.py), read by `graph.gate.decide`."""

    round: Annotated[int, About("retrieval rounds used (the anchor one-shot retry is not a round)")]
    pass_no: Annotated[int, About("retrieval passes made (rounds plus one-shot retries)")]
    has_context: Annotated[bool, About("the generator saw at least one passage")]
    has_draft: Annotated[bool, About("the generator wrote a draft (its call is skipped when the budget is spent)")]
    budget_skipped: Annotated[bool, About("the generator's call was not made for lack of budget")]
    idk: Annotated[bool, About("the draft declines (“I don't know”) or its answer answers nothing", "log")]
    overlap: Annotated[float, About("share of the draft's claims the passages support (a grounded quote: 1)", "record")]
    overlap_delta: Annotated[float, About("overlap minus the previous measurement's", "log")]
    draft_status: Annotated[DraftStatus, About("free (free style), or the quoted draft's shape", "record")]
    non_answer: Annotated[str | None, About("why a quoted answer answers nothing (the question's words…)", "log")]
    quote_verified: Annotated[bool | None, About("a quote of the draft is in a passage (None: free style)", "record")]
    answer_grounding: Annotated[float | None, About("share of the quoted answer's words in its quote", "record")]
    top_relevance: Annotated[float, About("the best context passage's gated relevance", "record")]
    answer_type: Annotated[str, About("the answer shape the question asks for: date, number, name or any")]
    answer_type_present: Annotated[bool, About("a passage holds an answer of that shape", "record")]
    evidence_strong: Annotated[bool, About("top relevance, firm anchors and answer type all hold", "record")]
    claims: Annotated[list[dict[str, Any]], About("each claim's support (text, cited, lexical, semantic, supported)")]
    novelty: Annotated[float, About("share of the latest pass's chunks no earlier pass found", "log")]
    coverage: Annotated[float, About("share of essential anchors found in the context passages", "record")]
    coverage_delta: Annotated[float, About("coverage minus the previous measurement's", "log")]
    missing_anchors: Annotated[list[str], About("essential anchors in no context passage", "log")]
    missing_firm_anchors: Annotated[list[str], About("the missing anchors not inferred from a lower-case question")]
    retrieval_confidence: Annotated[float, About("seed 001 confidence from the question worker's top-5 cosines", "log")]
    gen_confidence: Annotated[float, About("DRAGIN: 1 − normalised mean token entropy of the reply", "record")]
    gen_uncertain: Annotated[bool, About("gen_confidence < 0.5, the seed's cut (no logprobs: uncertain)", "log")]
    answer_confidence: Annotated[float | None, About("the same over the answer span (None: no logprobs)", "record")]
    uncertainty_off: Annotated[str | None, About("why answer uncertainty is off for this draft, else None", "log")]
    abstain_p: Annotated[float | None, About("P(the reply opens with “I don't know”), first token", "record")]
    judge_label: Annotated[JudgeLabel | None, About("the judge's verdict on this very draft (None: not judged)", "log")]
    judge_calls: Annotated[int, About("judge calls made for this question")]
    reflected: Annotated[bool, About("the one self-edit or answer retry has been spent")]
    one_shot_used: Annotated[bool, About("the anchor one-shot retry has been spent")]
    tokens_spent: Annotated[int, About("tokens spent on this question so far, every stage")]
    tokens_left: Annotated[int, About("token_budget − tokens_spent", "log")]
    rounds_left: Annotated[int, About("max_rounds − round", "log")]
    question_type: Annotated[QuestionType, About("the question's type, classified once by the anchor predictor")]
    answer_bridged: Annotated[
        bool, About("the cited passages miss a firm anchor another passage holds (two hops)", "record")
    ]
    answer_unanchored: Annotated[
        bool,
        About(
            "the cited passages hold no firm named anchor, another passage does, no title mention links them",
            "record",
            Withdrawal(
                "gate.abstain_unanchored_answers",
                (True,),
                "RETRIEVE_UNANCHORED_ANSWER",
                "ABSTAIN_UNANCHORED_ANSWER",
                skips_judge=True,
            ),
        ),
    ]
    answer_inconsistent: Annotated[
        bool | None,
        About(
            "a second reading of the passages in reverse order did not give the answer again (None: not read)",
            "record",
            Withdrawal(
                "gate.second_reading",
                ("withdraw",),
                "RETRIEVE_INCONSISTENT_ANSWER",
                "ABSTAIN_INCONSISTENT_ANSWER",
                skips_judge=True,
            ),
        ),
    ]
    answer_off_question: Annotated[
        str | None,
        About(
            "what a quoted answer's quotes lack of what a Chinese question asks: number, year, terms, superlative"
            " (None: not read; empty: nothing)",
            "record",
            Withdrawal(
                "gate.chinese_quote_check",
                (True,),
                "RETRIEVE_OFF_QUESTION_ANSWER",
                "ABSTAIN_OFF_QUESTION_ANSWER",
                skips_judge=True,
            ),
        ),
    ]
    answer_wrong_kind: Annotated[
        str | None,
        About(
            "a quoted answer not of the kind the question asks (kind) or the bridge entity of an inner question"
            " (bridge); empty: neither; None: not read",
            "record",
            Withdrawal(
                "gate.follow_hops",
                (True,),
                "RETRIEVE_WRONG_KIND_ANSWER",
                "ABSTAIN_WRONG_KIND_ANSWER",
                skips_judge=True,
            ),
        ),
    ]
    hop_next: Annotated[bool, About("a multi-hop plan has a hop after the one this draft answers", "record")]
    judge_needed: NotRequired[Annotated[bool, About("consult the judge before the gate (from the signals above)")]]


def _about(hint: Any) -> About:
    """The `About` of one declared signal (under `NotRequired` for an optional one)."""
    if get_origin(hint) is NotRequired:
        hint = get_args(hint)[0]
    return next(m for m in hint.__metadata__ if isinstance(m, About))


SIGNALS: dict[str, About] = {name: _about(hint) for name, hint in get_type_hints(Signals, include_extras=True).items()}
SIGNAL_NAMES: tuple[str, ...] = tuple(SIGNALS)
LOGGED_SIGNALS: tuple[str, ...] = tuple(name for name, about in SIGNALS.items() if about.keep != "gate")
RECORDED_SIGNALS: tuple[str, ...] = tuple(name for name, about in SIGNALS.items() if about.keep == "record")
WITHDRAWALS: tuple[tuple[str, Withdrawal], ...] = tuple(
    (name, about.withdraws) for name, about in SIGNALS.items() if about.withdraws is not None
)
"""(signal, its withdrawal row) in declaration order: the order the gate reads them."""

Action = Literal["STOP", "RETRIEVE_MORE", "REFLECT", "ABSTAIN"]
ACTIONS: tuple[Action, ...] = get_args(Action)
GateReason = Literal[
    "STOP_OVERLAP_OK", "STOP_NO_NEW_HITS", "STOP_BUDGET", "STOP_SINGLE_PASS",
    "RETRIEVE_ANCHOR_ONE_SHOT", "RETRIEVE_MISSING_ANCHOR", "RETRIEVE_LOW_SUPPORT", "RETRIEVE_JUDGE_UNSUPPORTED",
    "RETRIEVE_UNANCHORED_ANSWER",
    "RETRIEVE_INCONSISTENT_ANSWER",
    "RETRIEVE_OFF_QUESTION_ANSWER",
    "RETRIEVE_WRONG_KIND_ANSWER",
    "RETRIEVE_NEXT_HOP",
    "REFLECT_FIXABLE_FLAW",
    "ABSTAIN_UNVERIFIED_QUOTE", "ABSTAIN_MISSING_ANCHOR", "ABSTAIN_LOW_SUPPORT", "ABSTAIN_JUDGE_REJECTED",
    "ABSTAIN_MODEL_IDK", "ABSTAIN_NO_EVIDENCE", "ABSTAIN_BUDGET",
    "ABSTAIN_UNANCHORED_ANSWER", "ABSTAIN_INCONSISTENT_ANSWER", "ABSTAIN_OFF_QUESTION_ANSWER",
    "ABSTAIN_WRONG_KIND_ANSWER",
    "ABSTAIN_INCOMPLETE_HOPS",
]  # fmt: skip
FaultReason = Literal[
    "ABSTAIN_LLM_UNAVAILABLE", "ABSTAIN_LLM_RATE_LIMITED", "ABSTAIN_LLM_TIMEOUT", "ABSTAIN_LLM_MALFORMED",
    "ABSTAIN_LLM_ERROR",
]  # fmt: skip
Reason = GateReason | FaultReason | Literal["ABSTAIN_NO_DECISION"]
GATE_REASONS: tuple[GateReason, ...] = get_args(GateReason)
Decision = tuple[Action, GateReason]


class GateDecision(TypedDict):
    """The decision the graph routes on (state `gate_decision`)."""

    action: Action
    reason: Reason

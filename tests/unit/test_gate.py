"""Table-driven tests of the BAUG decision: every action and every reason."""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

from anchorgate.graph.config import Config
from anchorgate.graph.gate import decide, needs_judge
from anchorgate.graph.presets import load_preset
from anchorgate.graph.signals import ACTIONS, GATE_REASONS, Signals

A = load_preset("A")
B = load_preset("B")
BASELINE = load_preset("baseline")
ALWAYS = A.replace(**{"judge.policy": "always"})
REREAD_A = A.replace(**{"gate.second_reading": "withdraw"})
REREAD_B = B.replace(**{"gate.second_reading": "withdraw"})
ZH_A = A.replace(**{"gate.chinese_quote_check": True})
ZH_B = B.replace(**{"gate.chinese_quote_check": True})
HOPS_A = A.replace(**{"gate.follow_hops": True})
HOPS_B = B.replace(**{"gate.follow_hops": True})
ONE_HOP_JUDGE = ALWAYS.replace(**{"judge.bridged_answers": False})


def _neutral(hint: Any) -> Any:
    """A declared signal's neutral value: None if it may be None, a Literal's first value, else False, 0, 0.0, []."""
    if get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint):
        return None
    if get_origin(hint) is Literal:
        return get_args(hint)[0]
    return (get_origin(hint) or hint)()


# every declared signal (the contract, graph/signals.py), neutral; `sig` sets a healthy round on top
NEUTRAL = {name: _neutral(get_type_hints(Signals)[name]) for name in sorted(Signals.__required_keys__)}


def sig(**changes: Any) -> dict[str, Any]:
    """A healthy round-1 signal set with every declared signal; each case changes what it tests.

    Missing anchors are read off the question's spelling (firm) unless a case says otherwise.
    """
    unknown = set(changes) - set(NEUTRAL) - set(Signals.__optional_keys__)
    assert not unknown, f"not declared in graph/signals.py: {sorted(unknown)}"
    base: dict[str, Any] = {
        **NEUTRAL,
        "round": 1,
        "pass_no": 1,
        "has_context": True,
        "has_draft": True,
        "overlap": 0.8,
        "novelty": 1.0,
        "tokens_left": 1200,
        "draft_status": "free",
    }
    firm = {"missing_firm_anchors": changes.get("missing_anchors", [])}
    return {**base, **firm, **changes}


CASES: list[tuple[str, Config, dict[str, Any], tuple[str, str]]] = [
    ("baseline answers", BASELINE, sig(overlap=0.0), ("STOP", "STOP_SINGLE_PASS")),
    ("baseline idk", BASELINE, sig(idk=True), ("ABSTAIN", "ABSTAIN_MODEL_IDK")),
    ("baseline no evidence", BASELINE, sig(has_context=False, has_draft=False), ("ABSTAIN", "ABSTAIN_NO_EVIDENCE")),
    ("baseline no budget", BASELINE, sig(has_draft=False, budget_skipped=True), ("ABSTAIN", "ABSTAIN_BUDGET")),
    ("supported and covered", A, sig(), ("STOP", "STOP_OVERLAP_OK")),
    ("gray zone confirmed by judge", A, sig(overlap=0.35, judge_label="SUPPORTED"), ("STOP", "STOP_OVERLAP_OK")),
    (
        "judge overrules overlap",
        A,
        sig(judge_label="UNSUPPORTED", one_shot_used=True),
        ("ABSTAIN", "ABSTAIN_JUDGE_REJECTED"),
    ),
    ("missing anchor: one-shot", A, sig(missing_anchors=["2017"]), ("RETRIEVE_MORE", "RETRIEVE_ANCHOR_ONE_SHOT")),
    ("one-shot needs tokens", A, sig(missing_anchors=["2017"], tokens_left=250), ("ABSTAIN", "ABSTAIN_MISSING_ANCHOR")),
    (
        "anchor never found",
        A,
        sig(missing_anchors=["2017"], one_shot_used=True, pass_no=2),
        ("ABSTAIN", "ABSTAIN_MISSING_ANCHOR"),
    ),
    ("low support, A has one round", A, sig(overlap=0.1), ("ABSTAIN", "ABSTAIN_LOW_SUPPORT")),
    ("model said idk", A, sig(idk=True, overlap=0.0), ("ABSTAIN", "ABSTAIN_MODEL_IDK")),
    (
        "nothing passed the floor",
        A,
        sig(has_context=False, has_draft=False, overlap=0.0),
        ("ABSTAIN", "ABSTAIN_NO_EVIDENCE"),
    ),
    ("generator skipped for budget", A, sig(has_draft=False, budget_skipped=True), ("ABSTAIN", "ABSTAIN_BUDGET")),
    ("small flaw: reflect once", A, sig(overlap=0.35, judge_label="PARTIAL"), ("REFLECT", "REFLECT_FIXABLE_FLAW")),
    (
        "reflect only once",
        A,
        sig(overlap=0.35, judge_label="PARTIAL", reflected=True),
        ("ABSTAIN", "ABSTAIN_LOW_SUPPORT"),
    ),
    ("B: low support, round 2", B, sig(overlap=0.1), ("RETRIEVE_MORE", "RETRIEVE_LOW_SUPPORT")),
    (
        "B: judge unsupported, round 2",
        B,
        sig(judge_label="UNSUPPORTED"),
        ("RETRIEVE_MORE", "RETRIEVE_JUDGE_UNSUPPORTED"),
    ),
    (
        "B: missing anchor after one-shot",
        B,
        sig(missing_anchors=["AO"], one_shot_used=True, pass_no=2),
        ("RETRIEVE_MORE", "RETRIEVE_MISSING_ANCHOR"),
    ),
    ("B: no budget for round 2", B, sig(overlap=0.1, tokens_left=300), ("ABSTAIN", "ABSTAIN_LOW_SUPPORT")),
    (
        "B: round 2 stagnant, gray zone ok",
        B,
        sig(round=2, pass_no=2, overlap=0.35, novelty=0.0, judge_label="SUPPORTED", one_shot_used=True),
        ("STOP", "STOP_OVERLAP_OK"),
    ),
    (
        "B: last round, gray zone, judge ran earlier",
        B,
        sig(round=2, pass_no=3, overlap=0.35, novelty=0.05),
        ("ABSTAIN", "ABSTAIN_LOW_SUPPORT"),
    ),
    (
        "quote in no passage",
        A,
        sig(draft_status="quoted", quote_verified=False, overlap=0.0, one_shot_used=True),
        ("ABSTAIN", "ABSTAIN_UNVERIFIED_QUOTE"),
    ),
    (
        "never-judge: stagnant gray zone stops",
        A.replace(**{"judge.policy": "never"}),
        sig(pass_no=2, overlap=0.35, novelty=0.0),
        ("STOP", "STOP_NO_NEW_HITS"),
    ),
    (
        "never-judge: gray zone out of budget stops",
        A.replace(**{"judge.policy": "never"}),
        sig(overlap=0.35, tokens_left=100),
        ("STOP", "STOP_BUDGET"),
    ),
    (
        "unjudged two-hop answer: gray zone stops as with no judge",
        ONE_HOP_JUDGE,
        sig(overlap=0.35, tokens_left=100, answer_bridged=True),
        ("STOP", "STOP_BUDGET"),
    ),
    (
        "judged one-hop answer: gray zone without a verdict abstains",
        ONE_HOP_JUDGE,
        sig(overlap=0.35, tokens_left=100),
        ("ABSTAIN", "ABSTAIN_LOW_SUPPORT"),
    ),
    (
        "A: answer from a passage unlinked to the anchors",
        A,
        sig(answer_unanchored=True),
        ("ABSTAIN", "ABSTAIN_UNANCHORED_ANSWER"),
    ),  # fmt: skip
    (
        "unanchored answers allowed",
        A.replace(**{"gate.abstain_unanchored_answers": False}),
        sig(answer_unanchored=True),
        ("STOP", "STOP_OVERLAP_OK"),
    ),  # fmt: skip
    ("baseline ignores the signal", BASELINE, sig(answer_unanchored=True), ("STOP", "STOP_SINGLE_PASS")),
    ("B: unanchored answer, round 2", B, sig(answer_unanchored=True), ("RETRIEVE_MORE", "RETRIEVE_UNANCHORED_ANSWER")),
    (
        "B: unanchored again after a stagnant round 2",
        B,
        sig(answer_unanchored=True, round=2, pass_no=2, novelty=0.0, judge_calls=1),
        ("ABSTAIN", "ABSTAIN_UNANCHORED_ANSWER"),
    ),
    (
        "A: an answer a second reading does not repeat is withdrawn",
        REREAD_A,
        sig(answer_inconsistent=True),
        ("ABSTAIN", "ABSTAIN_INCONSISTENT_ANSWER"),
    ),  # fmt: skip
    ("A: a repeated answer stands", REREAD_A, sig(answer_inconsistent=False), ("STOP", "STOP_OVERLAP_OK")),
    (
        "record only: an inconsistent answer stands",
        A.replace(**{"gate.second_reading": "record"}),
        sig(answer_inconsistent=True),
        ("STOP", "STOP_OVERLAP_OK"),
    ),  # fmt: skip
    (
        "B: an inconsistent answer spends round 2",
        REREAD_B,
        sig(answer_inconsistent=True),
        ("RETRIEVE_MORE", "RETRIEVE_INCONSISTENT_ANSWER"),
    ),  # fmt: skip
    (
        "B: inconsistent again after round 2",
        REREAD_B,
        sig(answer_inconsistent=True, round=2, pass_no=2),
        ("ABSTAIN", "ABSTAIN_INCONSISTENT_ANSWER"),
    ),  # fmt: skip
    (
        "A: an inconsistent gray-zone answer the judge confirmed is withdrawn",
        REREAD_A,
        sig(answer_inconsistent=True, overlap=0.35, judge_label="SUPPORTED", tokens_left=100),
        ("ABSTAIN", "ABSTAIN_INCONSISTENT_ANSWER"),
    ),  # fmt: skip
    (
        "an unanchored gray-zone answer the judge confirmed is withdrawn",
        A,
        sig(answer_unanchored=True, overlap=0.35, judge_label="SUPPORTED"),
        ("ABSTAIN", "ABSTAIN_UNANCHORED_ANSWER"),
    ),
    (
        "A: a quote that lacks what a Chinese question asks",
        ZH_A,
        sig(answer_off_question="number,terms"),
        ("ABSTAIN", "ABSTAIN_OFF_QUESTION_ANSWER"),
    ),  # fmt: skip
    ("A: quotes that state it all stand", ZH_A, sig(answer_off_question=""), ("STOP", "STOP_OVERLAP_OK")),
    (
        "B: an off-question quote spends round 2",
        ZH_B,
        sig(answer_off_question="year"),
        ("RETRIEVE_MORE", "RETRIEVE_OFF_QUESTION_ANSWER"),
    ),  # fmt: skip
    (
        "check off: the answer stands",
        A.replace(**{"gate.chinese_quote_check": False}),
        sig(answer_off_question="terms"),
        ("STOP", "STOP_OVERLAP_OK"),
    ),  # fmt: skip
    (
        "hops: a place where a year is asked is withdrawn",
        HOPS_A,
        sig(answer_wrong_kind="kind"),
        ("ABSTAIN", "ABSTAIN_WRONG_KIND_ANSWER"),
    ),  # fmt: skip
    (
        "hops: the bridge entity as the answer spends round 2",
        HOPS_B,
        sig(answer_wrong_kind="bridge"),
        ("RETRIEVE_MORE", "RETRIEVE_WRONG_KIND_ANSWER"),
    ),  # fmt: skip
    ("hops: an answer of the asked kind stands", HOPS_A, sig(answer_wrong_kind=""), ("STOP", "STOP_OVERLAP_OK")),
    ("hops off: the kind is not read", A, sig(answer_wrong_kind="kind"), ("STOP", "STOP_OVERLAP_OK")),
    (
        "an inner hop's supported answer goes on to the next hop",
        A,
        sig(hop_next=True),
        ("RETRIEVE_MORE", "RETRIEVE_NEXT_HOP"),
    ),  # fmt: skip
    (
        "no budget for the next hop: abstain, never the bridge",
        A,
        sig(hop_next=True, tokens_left=100),
        ("ABSTAIN", "ABSTAIN_INCOMPLETE_HOPS"),
    ),  # fmt: skip
]


@pytest.mark.parametrize(("name", "config", "signals", "expected"), CASES, ids=[c[0] for c in CASES])
def test_decision_table(name: str, config: Config, signals: dict[str, Any], expected: tuple[str, str]) -> None:
    assert decide(signals, config) == expected


def test_every_action_and_reason_is_reachable() -> None:
    assert {expected[0] for *_, expected in CASES} == set(ACTIONS)
    assert {expected[1] for *_, expected in CASES} == set(GATE_REASONS)


def test_each_reason_names_its_action() -> None:
    for *_, (action, reason) in CASES:
        assert reason.startswith(action.removesuffix("_MORE") + "_")


def test_a_signal_set_names_only_declared_signals() -> None:
    with pytest.raises(AssertionError, match="tokens_lfet"):
        sig(tokens_lfet=5)


def test_decide_is_pure() -> None:
    signals = sig(missing_anchors=["2017"])
    before = repr(signals)
    assert decide(signals, A) == decide(signals, A)
    assert repr(signals) == before


@pytest.mark.parametrize(
    ("config", "signals", "expected"),
    [
        (A, sig(overlap=0.35), True),  # gray zone
        (A, sig(overlap=0.8), False),  # clearly supported: no call
        (A, sig(overlap=0.1), False),  # clearly unsupported: no call
        (A, sig(overlap=0.35, judge_calls=1), False),  # at most one call per question
        (A, sig(overlap=0.35, idk=True), False),
        (B, sig(overlap=0.9), True),  # always
        (BASELINE, sig(overlap=0.35), False),
        (A.replace(**{"judge.policy": "never"}), sig(overlap=0.35), False),
        (ALWAYS, sig(overlap=0.8), True),  # supported wording is judged too
        (ALWAYS, sig(overlap=0.8, idk=True), False),  # nothing to judge
        (ALWAYS, sig(overlap=0.8, answer_bridged=True), True),  # two hops judged by default
        (
            ONE_HOP_JUDGE,
            sig(overlap=0.8, answer_bridged=True),
            False,
        ),  # the judge can't see the link
        (ONE_HOP_JUDGE, sig(overlap=0.8), True),  # a one-passage answer still is judged
        (B, sig(overlap=0.9, answer_unanchored=True), False),  # withdrawn whatever the judge says
        (B.replace(**{"gate.abstain_unanchored_answers": False}), sig(overlap=0.9, answer_unanchored=True), True),
        (REREAD_B, sig(overlap=0.9, answer_inconsistent=True), False),  # withdrawn whatever the judge says
        (
            B.replace(**{"gate.second_reading": "record"}),
            sig(overlap=0.9, answer_inconsistent=True),
            True,
        ),  # measured only
    ],
)
def test_judge_policy(config: Config, signals: dict[str, Any], expected: bool) -> None:
    assert needs_judge(signals, config) is expected

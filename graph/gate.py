"""BAUG — the Budget-Aware Uncertainty Gate (seed 000 §3): a pure decision over measured signals.

`decide(signals, config)` returns one of STOP, RETRIEVE_MORE, REFLECT, ABSTAIN with a reason.
It reads only numbers the signals node measured (support overlap, anchor coverage, novelty,
judge verdict, generation confidence, tokens and rounds left); it changes nothing. The graph's
router reads the decision the gate node stored, so routing is a pure function of state. The signals,
actions and reasons are declared once, in `graph/signals.py`.

Reasons:
  STOP_OVERLAP_OK            overlap ≥ τ (or the judge confirmed a gray-zone overlap), every
                             essential anchor in the evidence, the judge not against.
  STOP_NO_NEW_HITS           overlap in the gray zone, anchors covered, judge not against, and the
                             last retrieval found nothing new: another round would not help.
  STOP_BUDGET                the same, but no budget remains for another round.
  STOP_SINGLE_PASS           gate disabled (baseline): the draft stands unless it declined.
  RETRIEVE_ANCHOR_ONE_SHOT   an essential anchor is missing: one anchor-constrained retry.
  RETRIEVE_MISSING_ANCHOR / RETRIEVE_LOW_SUPPORT / RETRIEVE_JUDGE_UNSUPPORTED
                             another round while rounds, budget and new hits remain.
  REFLECT_FIXABLE_FLAW       the judge found a small fixable flaw: one self-edit.
  ABSTAIN_MODEL_IDK          the model declined. An answer that answers nothing counts as declining (signal
                             `non_answer`): only the question's own words ("Lilu" to "… Lilu is
                             what?"), or yes/no to a question that is not a yes/no question.
  ABSTAIN_UNVERIFIED_QUOTE   a quoted draft whose quotes are in no passage and whose answer the
                             passages do not support.
  ABSTAIN_MISSING_ANCHOR     an essential anchor spelled in the question (not one inferred from a
                             lower-case question) is in no passage after the one-shot retry.
  ABSTAIN_LOW_SUPPORT, ABSTAIN_JUDGE_REJECTED, ABSTAIN_NO_EVIDENCE, ABSTAIN_BUDGET
  RETRIEVE_UNANCHORED_ANSWER / ABSTAIN_UNANCHORED_ANSWER
                             the answer's cited passages hold none of the question's named anchors,
                             other passages hold them, and no title mention links the two (signal
                             `answer_unanchored`, `gate.abstain_unanchored_answers`): it answers a
                             neighbouring question. Another round while one is left, else abstain.
  RETRIEVE_INCONSISTENT_ANSWER / ABSTAIN_INCONSISTENT_ANSWER
                             a supported answer the reader did not give again when it read the same
                             passages in reverse order (signal `answer_inconsistent`, `gate.second_reading`
                             withdraw). Another round while one is left, else abstain; no judge call.
  RETRIEVE_NEXT_HOP / ABSTAIN_INCOMPLETE_HOPS
                             a multi-hop plan (`gate.follow_hops`) has a hop after the one this answer
                             answers (signal `hop_next`): an answer the gate would stop on goes on to
                             the next hop while tokens are left, else the run abstains: a bridge entity
                             is never the final answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from anchorgate.graph.config import Config
from anchorgate.graph.signals import WITHDRAWALS, Decision, GateReason, JudgeLabel, Signals

NOVELTY_EPSILON = 0.1  # a later pass with under this share of new passages ends the search (seed 000)


@dataclass(frozen=True)
class WithdrawalRule:
    """One row of the gate's table: a measured reason to withdraw an answer the gate would stop on.

    The rule fires when its signal is truthy and its setting holds one of the values in `on`. A fired
    rule asks for another round (`retrieve`) while one can start (`can_start_round`); with none left it
    abstains (`abstain`). `skips_judge`: the answer is withdrawn whatever the judge says, so no judge
    call is spent. The rows are declared with their signals (`graph.signals.Withdrawal`); a rule stays
    when `bench/ablate.py` shows what it buys on held-out rows (BENCHMARKS.md).
    """

    signal: str
    setting: str
    on: tuple[object, ...]
    retrieve: GateReason
    abstain: GateReason
    skips_judge: bool

    def fires(self, signals: Signals, config: Config) -> bool:
        """The rule is on and its signal says the answer should go."""
        return bool(config.get(self.setting) in self.on and signals.get(self.signal))


WITHDRAWAL_RULES: tuple[WithdrawalRule, ...] = tuple(
    WithdrawalRule(name, row.setting, row.on, row.retrieve, row.abstain, row.skips_judge) for name, row in WITHDRAWALS
)
"""The withdrawal rules, in the order they are read: the first that fires decides."""


def decide(signals: Signals, config: Config, *, round_allowed: bool = True) -> Decision:
    """The gate's action and reason for the current round.

    `round_allowed=False` decides as if no retrieval round could start (the round planner's question
    when the round it would plan cannot help); an anchor one-shot retry, which is not a round, may
    still be asked for.
    """
    if config.gate.mode == "none":
        return _single_pass(signals)
    decision = _decide(signals, config, round_allowed)
    if decision[0] == "STOP" and signals.get("hop_next"):  # an inner hop's answer is a bridge, not the answer
        if signals["tokens_left"] >= config.budget.min_round_tokens:
            return "RETRIEVE_MORE", "RETRIEVE_NEXT_HOP"
        return "ABSTAIN", "ABSTAIN_INCOMPLETE_HOPS"
    return decision


def _decide(signals: Signals, config: Config, round_allowed: bool) -> Decision:
    if not signals["has_draft"] and signals["budget_skipped"]:
        return "ABSTAIN", "ABSTAIN_BUDGET"
    judge = signals.get("judge_label")
    anchors_ok = not _firm_missing(signals)
    if _can_reflect(signals, config, judge):  # a flaw the judge named is fixed before any STOP
        return "REFLECT", "REFLECT_FIXABLE_FLAW"
    if _supported(signals, config, judge) and anchors_ok:
        return withdrawn(signals, config, round_allowed) or ("STOP", "STOP_OVERLAP_OK")
    retry = _retrieval_retry(signals, config, judge, round_allowed)
    if retry is not None:
        return "RETRIEVE_MORE", retry
    return _final(signals, config, judge, anchors_ok)


def can_start_round(signals: Signals, config: Config, round_allowed: bool = True) -> bool:
    """Another retrieval round can start: rounds and tokens are left and the last pass found something new."""
    return (
        round_allowed
        and signals["round"] < config.budget.max_rounds
        and signals["tokens_left"] >= config.budget.min_round_tokens
        and not _stagnant(signals, config)
    )


def withdrawn(signals: Signals, config: Config, round_allowed: bool = True) -> Decision | None:
    """The first fired withdrawal rule's decision on an answer the gate would stop on, or None."""
    for rule in WITHDRAWAL_RULES:
        if not rule.fires(signals, config):
            continue
        if can_start_round(signals, config, round_allowed):
            return "RETRIEVE_MORE", rule.retrieve
        return "ABSTAIN", rule.abstain
    return None


def _single_pass(signals: Signals) -> Decision:
    if not signals["has_context"]:
        return "ABSTAIN", "ABSTAIN_NO_EVIDENCE"
    if not signals["has_draft"] and signals["budget_skipped"]:
        return "ABSTAIN", "ABSTAIN_BUDGET"
    if signals["idk"]:
        return "ABSTAIN", "ABSTAIN_MODEL_IDK"
    return "STOP", "STOP_SINGLE_PASS"


def _supported(signals: Signals, config: Config, judge: JudgeLabel | None) -> bool:
    """Overlap at τ, or in the gray zone with the judge's explicit OK; never against the judge."""
    if _declined(signals) or not signals["has_draft"] or judge == "UNSUPPORTED":
        return False
    overlap = float(signals["overlap"])
    return overlap >= config.gate.overlap_tau or (judge == "SUPPORTED" and overlap >= config.gate.gray_zone[0])


def _declined(signals: Signals) -> bool:
    """The model said "I don't know"."""
    return bool(signals["idk"])


def _can_reflect(signals: Signals, config: Config, judge: JudgeLabel | None) -> bool:
    return (
        judge == "PARTIAL"
        and not signals["reflected"]
        and signals["has_draft"]
        and signals["tokens_left"] >= config.budget.min_round_tokens
    )


def _firm_missing(signals: Signals) -> list[str]:
    """Missing essential anchors that block a STOP: those read off the question's own spelling.

    An anchor inferred from a lower-case question ("you're so vain") is a guess at the topic; its
    absence earns the one-shot retrieval but never an abstention (docs/benchmark-log.md: a false missing
    anchor on 18–22 % of held-out lower-case questions).
    """
    return list(signals.get("missing_firm_anchors", signals["missing_anchors"]))


def _retrieval_retry(
    signals: Signals, config: Config, judge: JudgeLabel | None, round_allowed: bool = True
) -> GateReason | None:
    """Why another retrieval pass is worth its tokens, or None."""
    if (
        config.gate.factoid_one_shot
        and signals["missing_anchors"]
        and not signals["one_shot_used"]
        and signals["tokens_left"] >= config.budget.min_round_tokens
    ):
        return "RETRIEVE_ANCHOR_ONE_SHOT"
    if not can_start_round(signals, config, round_allowed):
        return None
    if signals["missing_anchors"]:
        return "RETRIEVE_MISSING_ANCHOR"
    return "RETRIEVE_JUDGE_UNSUPPORTED" if judge == "UNSUPPORTED" else "RETRIEVE_LOW_SUPPORT"


def _stagnant(signals: Signals, config: Config) -> bool:
    """A later pass that brought (almost) nothing new: more of the same will not help."""
    return signals["pass_no"] > 1 and float(signals["novelty"]) < NOVELTY_EPSILON


def _final(signals: Signals, config: Config, judge: JudgeLabel | None, anchors_ok: bool) -> Decision:
    """No retry left: stop on a gray-zone answer the evidence and judge allow, else abstain."""
    if not signals["has_context"]:
        return "ABSTAIN", "ABSTAIN_NO_EVIDENCE"
    if signals["idk"] or not signals["has_draft"]:
        return "ABSTAIN", "ABSTAIN_BUDGET" if signals["budget_skipped"] else "ABSTAIN_MODEL_IDK"
    if judge == "UNSUPPORTED":
        return "ABSTAIN", "ABSTAIN_JUDGE_REJECTED"
    if not anchors_ok:
        return "ABSTAIN", "ABSTAIN_MISSING_ANCHOR"
    if signals.get("draft_status") == "quoted" and not signals.get("quote_verified"):
        return "ABSTAIN", "ABSTAIN_UNVERIFIED_QUOTE"
    gray = float(signals["overlap"]) >= config.gate.gray_zone[0] and judge != "PARTIAL"
    judge_ok = judge == "SUPPORTED" or (judge is None and _judge_waived(signals, config))
    if gray and judge_ok:
        stop: Decision = ("STOP", "STOP_NO_NEW_HITS" if _stagnant(signals, config) else "STOP_BUDGET")
        return withdrawn(signals, config, round_allowed=False) or stop
    return "ABSTAIN", "ABSTAIN_LOW_SUPPORT"


def _judge_waived(signals: Signals, config: Config) -> bool:
    """No judge is to be asked of this answer: none is configured, or it is a two-hop answer the
    judge cannot see the link of (`judge.bridged_answers` off). Its silence is then no verdict."""
    return config.judge.policy == "never" or (signals["answer_bridged"] and not config.judge.bridged_answers)


def needs_judge(signals: Signals, config: Config) -> bool:
    """Whether to spend a judge call now: policy, the per-question cap, the gray zone."""
    if config.gate.mode == "none" or _judge_waived(signals, config):
        return False
    if any(rule.skips_judge and rule.fires(signals, config) for rule in WITHDRAWAL_RULES):
        return False  # withdrawn whatever the judge says
    if signals["judge_calls"] >= config.judge.max_calls or not signals["has_draft"] or _declined(signals):
        return False
    if config.judge.policy == "always":
        return True
    low, high = config.gate.gray_zone
    return low <= float(signals["overlap"]) < high

"""The gate's withdrawal rules are one table (`graph.gate.WITHDRAWAL_RULES`): each row is read the same way.

A row names a declared signal, a setting of `Config`, a retrieve and an abstain reason of the gate,
and whether a fired rule skips the judge. A fired rule withdraws an answer the gate would stop on:
another round while `can_start_round`, else its abstention (when its setting says so), else the
answer stands. The round planner's "no round" question is `decide(..., round_allowed=False)`, which
decides exactly as the same signals would with every round spent.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchorgate.graph.config import Config, field_names
from anchorgate.graph.gate import WITHDRAWAL_RULES, WithdrawalRule, can_start_round, decide, needs_judge
from anchorgate.graph.presets import load_preset
from anchorgate.graph.signals import GATE_REASONS, SIGNAL_NAMES, SIGNALS, WITHDRAWALS
from tests.unit.test_gate import sig

A = load_preset("A")
B = load_preset("B")
FIELDS = set(field_names())


def _on(rule: WithdrawalRule, config: Config) -> Config:
    return config.replace(**{rule.setting: rule.on[-1]})


def _off(rule: WithdrawalRule, config: Config) -> Config:
    default = Config().get(rule.setting)  # every rule is off by default
    assert default not in rule.on
    return config.replace(**{rule.setting: default})


@pytest.mark.parametrize("rule", WITHDRAWAL_RULES, ids=[r.signal for r in WITHDRAWAL_RULES])
def test_each_row_names_a_declared_signal_setting_and_reasons(rule: WithdrawalRule) -> None:
    assert rule.signal in SIGNAL_NAMES
    assert rule.setting in FIELDS
    assert rule.retrieve in GATE_REASONS and rule.retrieve.startswith("RETRIEVE_")
    assert rule.abstain in GATE_REASONS and rule.abstain.startswith("ABSTAIN_")


@pytest.mark.parametrize("rule", WITHDRAWAL_RULES, ids=[r.signal for r in WITHDRAWAL_RULES])
def test_a_fired_rule_retrieves_while_a_round_can_start_then_abstains(rule: WithdrawalRule) -> None:
    fired = sig(**{rule.signal: True})
    one_round, two_rounds = _on(rule, A), _on(rule, B).replace(**{"judge.policy": "never"})
    assert decide(fired, one_round) == ("ABSTAIN", rule.abstain)
    assert decide(fired, two_rounds) == ("RETRIEVE_MORE", rule.retrieve)
    assert decide({**fired, "round": 2}, two_rounds) == ("ABSTAIN", rule.abstain)
    assert decide(fired, _off(rule, A)) == ("STOP", "STOP_OVERLAP_OK")  # switched off: the answer stands
    assert decide(sig(), one_round) == ("STOP", "STOP_OVERLAP_OK")  # not fired: nothing withdrawn
    assert needs_judge(fired, _on(rule, B)) is not rule.skips_judge


def test_the_rows_are_the_declared_withdrawals_in_declaration_order() -> None:
    """A rule is declared once, with its signal: the table holds every declared row, and only those."""
    declared = [name for name, about in SIGNALS.items() if about.withdraws is not None]
    assert [rule.signal for rule in WITHDRAWAL_RULES] == declared == [name for name, _ in WITHDRAWALS]
    for rule, (_, row) in zip(WITHDRAWAL_RULES, WITHDRAWALS, strict=True):
        assert (rule.setting, rule.on, rule.retrieve, rule.abstain, rule.skips_judge) == (
            row.setting, row.on, row.retrieve, row.abstain, row.skips_judge)  # fmt: skip


def test_the_first_fired_row_decides() -> None:
    both = sig(answer_unanchored=True, answer_inconsistent=True)
    first = next(r for r in WITHDRAWAL_RULES if r.fires(both, A))
    assert first.signal == "answer_unanchored"
    assert decide(both, A) == ("ABSTAIN", first.abstain)


def test_a_withdrawn_gray_zone_stop_is_withdrawn_too() -> None:
    gray = sig(overlap=0.35, one_shot_used=True, answer_inconsistent=True)
    never = A.replace(**{"judge.policy": "never"})
    assert decide({**gray, "answer_inconsistent": False}, never) == ("STOP", "STOP_BUDGET")
    assert decide(gray, never) == ("ABSTAIN", "ABSTAIN_INCONSISTENT_ANSWER")


def test_can_start_round_reads_rounds_tokens_and_novelty() -> None:
    two = B
    assert can_start_round(sig(), two)
    assert not can_start_round(sig(), two, round_allowed=False)
    assert not can_start_round(sig(round=2), two)
    assert not can_start_round(sig(tokens_left=two.budget.min_round_tokens - 1), two)
    assert not can_start_round(sig(pass_no=2, novelty=0.0), two)  # the last pass found nothing new
    assert not can_start_round(sig(), A)  # one round only


_flags = st.booleans()
_signals = st.fixed_dictionaries(
    {
        "round": st.integers(1, 3),
        "pass_no": st.integers(1, 4),
        "overlap": st.sampled_from([0.0, 0.35, 0.8, 1.0]),
        "novelty": st.sampled_from([0.0, 1.0]),
        "tokens_left": st.sampled_from([100, 350, 1200]),
        "idk": _flags,
        "has_draft": _flags,
        "one_shot_used": _flags,
        "missing_anchors": st.sampled_from([[], ["2017"]]),
        "judge_label": st.sampled_from([None, "SUPPORTED", "PARTIAL", "UNSUPPORTED"]),
        "answer_unanchored": _flags,
        "answer_inconsistent": _flags,
        "evidence_strong": _flags,
        "reflected": _flags,
    }
)


@settings(max_examples=300, deadline=None)
@given(changes=_signals, preset=st.sampled_from(["A", "B"]))
def test_no_round_allowed_decides_as_every_round_spent(changes: dict[str, Any], preset: str) -> None:
    config = load_preset(preset)
    signals = sig(**changes)
    spent = {**signals, "round": max(signals["round"], config.budget.max_rounds)}
    assert decide(signals, config, round_allowed=False) == decide(spent, config)


def test_a_new_row_is_read_like_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding a rule is its row: the gate and the planner's no-round question read it like the others."""
    from anchorgate.graph import gate

    row = WithdrawalRule("answer_bridged", "judge.bridged_answers", (False,), "RETRIEVE_LOW_SUPPORT",
                         "ABSTAIN_LOW_SUPPORT", skips_judge=True)  # fmt: skip
    monkeypatch.setattr(gate, "WITHDRAWAL_RULES", (*WITHDRAWAL_RULES, row))
    bridged = sig(answer_bridged=True)
    two_rounds = B.replace(**{"judge.policy": "never"})
    assert decide(bridged, two_rounds) == ("RETRIEVE_MORE", "RETRIEVE_LOW_SUPPORT")
    assert decide(bridged, two_rounds, round_allowed=False) == ("ABSTAIN", "ABSTAIN_LOW_SUPPORT")
    assert decide(bridged, A) == ("STOP", "STOP_OVERLAP_OK")  # A judges bridged answers: the row is off

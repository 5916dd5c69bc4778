"""The BAUG gate node: runs the pure decision over the measured signals and logs it with reason."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from anchorgate.agents.intake import run_settings
from anchorgate.agents.signal_meter import draft_key
from anchorgate.graph.config import Config
from anchorgate.graph.gate import decide
from anchorgate.graph.signals import LOGGED_SIGNALS, Signals
from anchorgate.graph.state import State


def gate_signals(state: State) -> Signals:
    """The signals a decision reads: the meter's, with the judge's verdict on this very draft (the
    judge runs after the meter) and the judge calls made so far."""
    signals = state["signals"].copy()
    judge = state.get("judge") or {}
    if judge.get("draft_key") == draft_key(state.get("draft", "")):
        signals["judge_label"] = judge.get("label")
    signals["judge_calls"] = state.get("judge_calls", 0)
    return signals


async def gate(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Decision and reason for this round, with the signals that produced it, into the gate log."""
    signals = gate_signals(state)
    action, reason = decide(signals, runtime.context)
    entry = {
        "round": signals["round"],
        "pass": signals["pass_no"],
        "action": action,
        "reason": reason,
        "signals": {k: signals.get(k) for k in LOGGED_SIGNALS},
    }
    # settings again: a run forked by `replay` with overrides records them before it can be resumed
    return {"gate_decision": {"action": action, "reason": reason}, "gate_log": [entry],
            "settings": run_settings(runtime.context)}  # fmt: skip

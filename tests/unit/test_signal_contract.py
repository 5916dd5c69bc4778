"""The signal contract (graph/signals.py) against the code that fills and reads it: the meter measures
exactly the declared signals with their declared types, the gate node logs the "log" ones and an
evaluation record keeps the "record" ones."""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from langgraph.runtime import Runtime

from anchorgate.agents.baug_gate import gate
from anchorgate.agents.signal_meter import measure
from anchorgate.eval.records import _telemetry_subset
from anchorgate.graph.presets import load_preset
from anchorgate.graph.signals import LOGGED_SIGNALS, RECORDED_SIGNALS, SIGNAL_NAMES, SIGNALS, Signals
from anchorgate.tools.llm.faults import FAULT_REASONS

BASELINE = load_preset("baseline")  # no gate: the meter measures without the embedding model
QUESTION = "When did the Eiffel Tower open?"
PASSAGE = "The Eiffel Tower opened to the public in 1889, built for the World's Fair in Paris."


def conforms(value: Any, hint: Any) -> bool:
    """Whether `value` has the declared type (a float may be an int, never a bool)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(conforms(value, arg) for arg in args)
    if origin is Literal:
        return value in args
    if origin is list:
        return isinstance(value, list) and all(conforms(item, args[0]) for item in value)
    if origin is dict:
        return isinstance(value, dict) and all(conforms(k, args[0]) and conforms(v, args[1]) for k, v in value.items())
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _evidence(n: int | None = None) -> dict[str, Any]:
    record = {
        "id": "eiffel#0", "doc_id": "eiffel", "title": "Eiffel Tower", "text": PASSAGE, "source": "wiki",
        "position": 0, "metadata": {}, "score": 0.72, "dense": 0.81, "sparse": 7.5, "pass": 1, "passes": [1],
        "ranks": {"question": 1},
    }  # fmt: skip
    return record if n is None else {**record, "n": n}


def _state(**changes: Any) -> dict[str, Any]:
    anchor = {"text": "Eiffel Tower", "kind": "entity", "essential": True, "confidence": 0.85, "aliases": (),
              "inferred": False}  # fmt: skip
    state = {
        "question": QUESTION, "question_type": "factoid", "anchors": [anchor], "round": 1, "pass_no": 1,
        "evidence": [_evidence()], "context": [_evidence(1)], "draft": "It opened in 1889 [1].",
        "draft_logprobs": [[-0.05, -3.2], [-0.4, -1.3], [-0.01, -5.0], [-0.9, -0.9]], "draft_abstain_p": 0.02,
        "draft_structure": None, "signals": {}, "usage": {"generate": {"prompt": 300, "completion": 12}},
        "calls": [], "judge": None, "judge_calls": 0, "reflected": False, "one_shot_used": False,
    }  # fmt: skip
    return {**state, **changes}


QUOTED = {"status": "quoted", "answer": "1889", "raw": "1889\nQUOTE [1]: The Eiffel Tower opened …",
          "quotes": [{"status": "verbatim", "found_in": 1}], "grounding": 1.0, "verified": True}  # fmt: skip
STATES = {
    "free draft with logprobs": _state(),
    "free draft, no logprobs": _state(draft_logprobs=None, draft_abstain_p=None),
    "quoted draft": _state(draft_structure=QUOTED, draft="1889\nQUOTE [1]: The Eiffel Tower opened …"),
    "declined, no context": _state(draft="I don't know.", context=[], evidence=[], draft_logprobs=None),
}


@pytest.mark.parametrize("state", STATES.values(), ids=list(STATES))
async def test_the_meter_measures_every_declared_signal_with_its_declared_type(state: dict[str, Any]) -> None:
    signals = (await measure(state, Runtime(context=BASELINE)))["signals"]  # type: ignore[arg-type]
    assert set(signals) == set(SIGNAL_NAMES)
    hints = get_type_hints(Signals)
    wrong = {name: value for name, value in signals.items() if not conforms(value, hints[name])}
    assert not wrong, f"values not of their declared type: {wrong}"


async def test_a_second_measurement_reports_the_change_since_the_first() -> None:
    first = (await measure(_state(), Runtime(context=BASELINE)))["signals"]  # type: ignore[arg-type]
    later = _state(signals=first, context=[], draft="I don't know.")
    second = (await measure(later, Runtime(context=BASELINE)))["signals"]  # type: ignore[arg-type]
    assert first["coverage"] == 1.0 and second["coverage"] == 0.0
    assert second["coverage_delta"] == -1.0 and second["overlap_delta"] == round(-first["overlap"], 4)


async def test_the_gate_logs_the_log_signals_and_a_record_keeps_the_record_signals() -> None:
    state = _state()
    state["signals"] = (await measure(state, Runtime(context=BASELINE)))["signals"]  # type: ignore[arg-type]
    update = await gate(state, Runtime(context=BASELINE))  # type: ignore[arg-type]
    (entry,) = update["gate_log"]
    assert update["gate_decision"] == {"action": "STOP", "reason": "STOP_SINGLE_PASS"}
    assert tuple(entry["signals"]) == LOGGED_SIGNALS
    assert all(entry["signals"][name] == state["signals"][name] for name in LOGGED_SIGNALS)
    (kept,) = _telemetry_subset({"gate": [entry]})["gate"]
    assert set(kept) == {"round", "action", "reason", *RECORDED_SIGNALS}


def test_every_signal_says_what_it_measures_and_the_lists_nest() -> None:
    assert all(about.text.strip() for about in SIGNALS.values())
    assert set(RECORDED_SIGNALS) <= set(LOGGED_SIGNALS) < set(SIGNAL_NAMES)
    assert "claims" not in LOGGED_SIGNALS  # bulky: kept in state and the telemetry's claims list only


def test_fault_reasons_are_the_declared_ones() -> None:
    from anchorgate.graph.signals import FaultReason

    assert set(FAULT_REASONS.values()) == set(get_args(FaultReason))

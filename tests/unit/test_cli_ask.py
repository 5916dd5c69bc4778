"""`anchorgate ask`: preset A by default, and a readable answer that shows anchors and the gate."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from anchorgate import api
from anchorgate.cli import DEFAULT_PRESET, _readable, build_parser, run
from tests.unit.test_threads import _model, _overrides


def test_ask_and_the_api_default_to_preset_a() -> None:
    assert DEFAULT_PRESET == "A"
    assert build_parser().parse_args(["ask", "q"]).preset == "A"
    assert build_parser().parse_args(["ask", "q", "--preset", "baseline"]).preset == "baseline"
    for function in (api.aask, api.astream, api.resolve_config):
        assert inspect.signature(function).parameters["preset"].default == "A", function.__name__


def _result(**extra: Any) -> dict[str, Any]:
    return {
        "answer": "The pass statement does nothing [1].",
        "citations": [{"n": 1, "title": "pass", "source": "pydoc", "quote": "pass is a null operation"}],
        "decision": "STOP",
        "reason": "STOP_OVERLAP_OK",
        "rounds": 2,
        "tokens": {"total": 812, "prompt": 700, "completion": 112},
        "latency_s": 9.3,
        "thread_id": "t1",
        "telemetry": {
            "preset": "A",
            "anchors": [{"text": "pass", "kind": "keyword", "essential": True}, {"text": "1999", "kind": "year"}],
            "gate": [
                {"action": "RETRIEVE_MORE", "reason": "RETRIEVE_ANCHOR_ONE_SHOT", "signals": {"coverage": 0.5}},
                {"action": "STOP", "reason": "STOP_OVERLAP_OK", "signals": {"overlap": 0.82, "coverage": 1.0}},
            ],
        },
        **extra,
    }


def test_readable_answer_shows_anchors_gate_decisions_and_spend() -> None:
    text = _readable(_result(), budget=2400)
    assert text.startswith("The pass statement does nothing [1].\n\n[1] pass — pydoc")
    lines = {line.split(":", 1)[0]: line for line in text.splitlines() if ":" in line}
    assert lines["anchors"] == "anchors:  “pass” (keyword, essential), “1999” (year)"
    assert lines["gate"] == (
        "gate:     RETRIEVE_MORE (RETRIEVE_ANCHOR_ONE_SHOT; anchor coverage 0.50)"
        " → STOP (STOP_OVERLAP_OK; support 0.82, anchor coverage 1.00)"
    )
    assert lines["outcome"].startswith(
        "outcome:  STOP (STOP_OVERLAP_OK) · preset A · rounds 2 · tokens 812 of 2400 (prompt 700, completion 112)"
    )


def test_readable_answer_without_anchors_or_gate_says_so() -> None:
    text = _readable(_result(telemetry={"preset": "baseline", "anchors": [], "gate": []}, citations=[]))
    assert text.startswith("The pass statement does nothing [1].\n\nanchors:  none")
    assert "gate:     no gate in this preset → STOP (STOP_OVERLAP_OK)" in text
    assert "tokens 812 (prompt 700" in text  # no budget known: no "of N"


def test_cli_ask_runs_preset_a_and_prints_anchors_and_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path, _model())
    argv = ["ask", "What do Owls hunt in 1999?"]
    for key in ("resources.services_id", "resources.checkpoint_db"):
        argv += ["--set", f"{key}={overrides[key]}"]
    assert run(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "I don't know"  # the toy corpus has no 1999: preset A's gate abstains on the missing anchor
    assert "anchors:  “Owls” (entity, essential), “1999” (year, essential)" in lines
    gate = next(line for line in lines if line.startswith("gate:"))
    assert "RETRIEVE_MORE (RETRIEVE_ANCHOR_ONE_SHOT;" in gate
    assert gate.endswith("→ ABSTAIN (ABSTAIN_MISSING_ANCHOR; support 1.00, anchor coverage 0.50)")
    outcome = next(line for line in lines if line.startswith("outcome:"))
    assert "ABSTAIN (ABSTAIN_MISSING_ANCHOR) · preset A · rounds 1 · tokens " in outcome and " of 2400 " in outcome


def test_a_closed_output_pipe_is_not_an_internal_error(capsys: pytest.CaptureFixture[str]) -> None:
    def closed_pipe(_args: Any) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    assert run(["config"], handler_hook=closed_pipe) == 0
    assert "internal error" not in capsys.readouterr().err

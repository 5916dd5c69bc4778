"""Round plans and guarded rewrites in the evaluation: counted from the records into metrics.json and report.md."""

from __future__ import annotations

from typing import Any

from anchorgate.eval.aggregate import gate_triggers, round_plan_counts
from anchorgate.eval.report import build_metrics, render_markdown
from tests.unit.test_eval_report import BASELINE, PRESET


def _with(record: dict[str, Any], plans: list[str], rewrites: list[tuple[bool, str]]) -> dict[str, Any]:
    telemetry = {
        **record["telemetry"],
        "round_plans": [{"round": 2, "strategy": s, "why": "W"} for s in plans],
        "rewrites": [{"round": 2, "rewrite": "q'", "accepted": ok, "reason": reason} for ok, reason in rewrites],
    }
    return {**record, "telemetry": telemetry}


B = [
    _with(PRESET[0], ["rewrite"], [(False, "BLOCK_SIMILARITY")]),
    _with(PRESET[1], ["rewrite"], [(True, "ACCEPT")]),
    _with(PRESET[2], ["none"], []),
    _with(PRESET[3], ["hyde", "rewrite"], [(False, "BLOCK_SIMILARITY"), (False, "BLOCK_ENTITIES")]),
]


def test_rewrites_are_counted_by_outcome_and_reason() -> None:
    counts = round_plan_counts(B)
    assert counts == {
        "round_strategies": {"hyde": 1, "none": 1, "rewrite": 3},
        "rounds_not_spent": 1,
        "rewrites_attempted": 4,
        "rewrites_accepted": 1,
        "rewrite_rejections": {"BLOCK_ENTITIES": 1, "BLOCK_SIMILARITY": 2},
    }
    # records written before round plans existed count nothing
    assert round_plan_counts(BASELINE)["rewrites_attempted"] == 0 and round_plan_counts([])["round_strategies"] == {}


def test_metrics_and_report_carry_the_rewrite_table() -> None:
    metrics = build_metrics({"dataset_path": "/d/x.jsonl"}, {"baseline": BASELINE, "B": B})
    assert metrics["presets"]["B"]["rewrite_rejections"] == {"BLOCK_ENTITIES": 1, "BLOCK_SIMILARITY": 2}
    assert metrics["presets"]["baseline"]["rewrites_attempted"] == 0
    text = render_markdown(metrics, [], "toy")
    section = text.split("## Round plans and guarded rewrites")[1].split("\n## ")[0]
    assert "| rewrites attempted | 0 | 4 |" in section and "| rewrites accepted | 0 | 1 |" in section
    assert (
        "| rejected: BLOCK_SIMILARITY | 0 | 2 |" in section
        and "| rounds planned: none (not spent) | 0 | 1 |" in section
    )


def test_a_run_without_later_rounds_says_so() -> None:
    text = render_markdown(build_metrics({"dataset_path": "/d/x.jsonl"}, {"baseline": BASELINE}), [], "toy")
    assert "No retrieval round beyond the first was planned." in text


def _asked(record: dict[str, Any], *reasons: str) -> dict[str, Any]:
    """The record with gate decisions asking for more (one per reason) before its final one."""
    asked = [{"round": i + 1, "action": "RETRIEVE_MORE", "reason": r} for i, r in enumerate(reasons)]
    return {**record, "telemetry": {**record["telemetry"], "gate": [*asked, *record["telemetry"]["gate"]]}}


def test_gate_triggers_count_the_first_reason_by_how_the_question_ended() -> None:
    runs = [
        _asked(BASELINE[0], "RETRIEVE_UNCERTAIN_ANSWER", "RETRIEVE_LOW_SUPPORT"),  # correct
        _asked(BASELINE[1], "RETRIEVE_UNCERTAIN_ANSWER"),  # the model declined
        _asked(BASELINE[2], "RETRIEVE_LOW_SUPPORT"),  # wrong
        BASELINE[3],  # never asked
    ]
    assert gate_triggers(runs) == {
        "RETRIEVE_LOW_SUPPORT": {"wrong": 1},
        "RETRIEVE_UNCERTAIN_ANSWER": {"correct": 1, "idk": 1},
    }
    text = render_markdown(build_metrics({"dataset_path": "/d/x.jsonl"}, {"baseline": BASELINE, "B": runs}), [], "t")
    section = text.split("## Gate triggers and how they ended")[1].split("\n## ")[0]
    assert "| B: RETRIEVE_UNCERTAIN_ANSWER | 1 | 0 | 1 | 0 | 2 |" in section
    assert "baseline:" not in section


def test_a_run_whose_gate_never_asked_for_more_says_so() -> None:
    text = render_markdown(build_metrics({"dataset_path": "/d/x.jsonl"}, {"baseline": BASELINE}), [], "toy")
    assert "The gate never asked for another round or a reflection." in text

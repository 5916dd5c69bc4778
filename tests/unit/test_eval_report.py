"""Run-level numbers and the report: summaries, acceptance checks, IDK → right, paired intervals,
risk–coverage, worst, plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.eval.aggregate import acceptance, answer_confidence, explain, idk_to_right, summarize, worst
from anchorgate.eval.plots import pareto_front, write_plots
from anchorgate.eval.report import build_metrics, render_markdown


def _approx(value: float) -> Any:
    return pytest.approx(value, abs=1e-4)


def _record(qid: str, *, f1: float | None = 1.0, tokens: int = 100, abstained: bool = False,
            answerable: bool = True, crag: int | None = 1, correct: bool | None = True, wrong: bool | None = False,
            reason: str = "STOP_OVERLAP_OK", rounds: int = 1, latency: float = 1.0, false_premise: bool = False,
            detected: bool | None = None, confidence: float | None = 0.9) -> dict[str, Any]:  # fmt: skip
    return {
        "id": qid, "question": f"question {qid}?", "gold": ["x"], "answerable": answerable, "prediction": "x [1].",
        "short_answer": "x", "decision": "ABSTAIN" if abstained else "STOP", "reason": reason, "rounds": rounds,
        "abstained": abstained, "em": f1, "f1": f1, "correct": correct, "crag_score": crag,
        "wrong_on_answerable": wrong, "false_premise": false_premise, "false_premise_detected": detected,
        "tokens": {"prompt": tokens - 10, "completion": 10, "total": tokens,
                   "by_stage": {"generate": {"prompt": tokens - 10, "completion": 10, "calls": 1}}},
        "latency_s": latency,
        "telemetry": {"gate": [{"round": 1, "action": "STOP", "reason": reason, "answer_confidence": confidence}],
                      "context_ids": ["c1", "c2"]},
    }  # fmt: skip


BASELINE = [
    _record("q1"),
    _record("q2", abstained=True, f1=0.0, crag=0, correct=False, reason="ABSTAIN_MODEL_IDK"),
    _record("q3", f1=0.0, crag=-1, correct=False, wrong=True, confidence=0.95),
    _record("q4", answerable=False, f1=None, crag=-1, correct=None, wrong=None, confidence=None),
]  # fmt: skip
PRESET = [
    _record("q1", tokens=110, latency=2.0),
    _record("q2", tokens=110, rounds=2, latency=3.0),
    _record("q3", tokens=110, abstained=True, f1=0.0, crag=0, correct=False, wrong=False,
            reason="ABSTAIN_LOW_SUPPORT"),
    _record("q4", tokens=110, answerable=False, abstained=True, f1=None, crag=0, correct=None, wrong=None,
            reason="ABSTAIN_LOW_SUPPORT"),
]  # fmt: skip


def test_summary_numbers() -> None:
    s = summarize(BASELINE)
    assert s["questions"] == 4 and s["scored_questions"] == 3
    assert s["f1_mean"] == _approx(1 / 3) and s["crag_score_mean"] == _approx(-0.25)
    assert (s["right"], s["wrong"], s["abstained"]) == (1, 2, 1) and s["records_without_answer"] == 0
    assert s["idk_count"] == 1 and s["idk_on_answerable"] == 1 and s["wrong_on_answerable"] == 1
    assert s["answer_rate_answerable"] == _approx(2 / 3)
    assert (s["abstention_precision"], s["abstention_recall"]) == (0.0, 0.0)
    assert s["stop_reasons"] == {"ABSTAIN_MODEL_IDK": 1, "STOP_OVERLAP_OK": 3}
    assert s["tokens_by_stage_mean"] == {"generate": 100.0} and "overlap_mean" not in s
    p = summarize(PRESET)
    assert p["round2_share"] == 0.25 and p["latency_p50"] == 1.5 and p["latency_p95"] == _approx(2.85)
    assert p["abstention_precision"] == 0.5 and p["abstention_recall"] == 1.0


def test_acceptance_checks_met_and_not_met() -> None:
    checks = {c["check"]: c for c in acceptance(summarize(BASELINE), summarize(PRESET))}
    assert checks["tokens/Q"]["ratio"] == 1.1 and checks["tokens/Q"]["met"] is True
    assert checks["F1"]["met"] is True and checks["F1"]["delta"] == pytest.approx(1 / 3, abs=1e-4)
    assert "support overlap" not in checks  # the product's own measure is not a yardstick
    assert checks["wrong-on-answerable"]["met"] is True
    assert checks["abstention recall (unanswerable)"]["met"] is True  # recall 0 → 1, answer rate 2/3 → 2/3
    expensive = summarize([{**r, "tokens": {**r["tokens"], "total": 130}} for r in PRESET])
    assert {c["check"]: c["met"] for c in acceptance(summarize(BASELINE), expensive)}["tokens/Q"] is False


def test_abstention_check_needs_recall_gain_and_bounded_answer_rate_drop() -> None:
    base = summarize(BASELINE)
    shy = [{**PRESET[0], "abstained": True}, *PRESET[1:]]  # answer rate on answerable 2/3 → 1/3
    check = {c["check"]: c for c in acceptance(base, summarize(shy))}["abstention recall (unanswerable)"]
    assert check["value"] == 1.0 and check["met"] is False
    same = {c["check"]: c for c in acceptance(base, base)}["abstention recall (unanswerable)"]
    assert same["met"] is False  # no recall gain


def test_idk_to_right_needs_a_right_answer() -> None:
    assert idk_to_right(BASELINE, PRESET) == ["q2"]
    wrong = [{**r, "crag_score": -1, "correct": False} if r["id"] == "q2" else r for r in PRESET]
    assert idk_to_right(BASELINE, wrong) == []


def test_a_record_without_an_answer_field_is_counted() -> None:
    bare = {k: v for k, v in BASELINE[0].items() if k != "prediction"}
    s = summarize([bare, *BASELINE[1:]])
    assert s["records_without_answer"] == 1
    text = render_markdown(build_metrics({}, {"baseline": [bare, *BASELINE[1:]]}), [], "x")
    assert "Records without an answer field, scored as no answer (abstained): baseline 1." in text


def test_answer_confidence_is_the_last_gate_decisions() -> None:
    record = {"telemetry": {"gate": [{"answer_confidence": 0.2}, {"answer_confidence": None, "gen_confidence": 0.7}]}}
    assert answer_confidence(record) == 0.7 and answer_confidence({"telemetry": {}}) is None
    assert answer_confidence(BASELINE[2]) == 0.95


def test_worst_orders_by_crag_then_f1_and_explains() -> None:
    assert [r["id"] for r in worst(BASELINE, 3)] == ["q3", "q4", "q2"]
    line = explain(BASELINE[2])
    assert "STOP:STOP_OVERLAP_OK" in line and "2 passages" in line


def test_pareto_front() -> None:
    points = {"baseline": (100.0, 0.4), "A": (110.0, 0.6), "B": (150.0, 0.5), "peer": (90.0, 0.3)}
    assert pareto_front(points) == ["peer", "baseline", "A"]


def test_markdown_and_plots(tmp_path: Path) -> None:
    settings: dict[str, Any] = {"dataset_path": "/d/toy.jsonl", "dataset_sha256": "ab" * 32, "format": "jsonl",
                                "language": None, "limit": 4, "llm": "local", "overrides": {}}  # fmt: skip
    metrics = build_metrics(settings, {"baseline": BASELINE, "A": PRESET})
    plots = write_plots(metrics["presets"], tmp_path, "toy")
    assert {p.name for p in plots} >= {"pareto.png", "bar_f1_mean.png", "bar_right.png", "bar_wrong.png"}
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in plots)
    text = render_markdown(metrics, plots, "toy")
    assert "| A | tokens/Q | 110 | 100 | 1.1× | ≤ 1.2× baseline | met |" in text
    assert "| A | abstention recall (unanswerable) |" in text
    assert "| A | F1 | 0.667 | 0.333 | Δ +0.333 | ≥ baseline | met |" in text
    assert "- A: 1 (q2)" in text and "![pareto](pareto.png)" in text
    assert text.index("### baseline") < text.index("### A")
    assert "| A − baseline | 4 | too few questions | too few questions | too few questions |" in text
    assert "| baseline | 3 | " in text  # risk–coverage: three answered
    assert "support overlap" not in text.lower()


def _fault(qid: str, reason: str = "ABSTAIN_LLM_TIMEOUT") -> dict[str, Any]:
    """A record whose run ended on an LLM fault, as `eval.records` writes it: every score None."""
    record = _record(qid, reason=reason, tokens=30, latency=50.0)
    record.update(decision="ABSTAIN", abstained=None, em=None, f1=None, correct=None, crag_score=None,
                  wrong_on_answerable=None,
                  llm_fault={"stage": "generate", "fault": "TIMEOUT", "reason": reason, "error": "no reply within 5 s",
                             "attempts": 1})  # fmt: skip
    return record


def test_llm_faults_are_counted_and_listed_but_enter_no_other_number() -> None:
    with_faults = [*PRESET, _fault("q5"), _fault("q6", "ABSTAIN_LLM_MALFORMED")]
    s, clean = summarize(with_faults), summarize(PRESET)
    assert (s["questions"], s["llm_faults"]) == (6, 2) and clean["llm_faults"] == 0
    assert s["llm_fault_reasons"] == {"ABSTAIN_LLM_MALFORMED": 1, "ABSTAIN_LLM_TIMEOUT": 1}
    # every other number is the one without the faulted runs: F1, CRAG, right/wrong, IDK, rates, tokens, latency
    assert {k: v for k, v in s.items() if k not in {"questions", "llm_faults", "llm_fault_reasons"}} == {
        k: v for k, v in clean.items() if k not in {"questions", "llm_faults", "llm_fault_reasons"}
    }
    assert worst(with_faults, n=10) == worst(PRESET, n=10)
    assert idk_to_right([*BASELINE, _fault("q5")], with_faults) == idk_to_right(BASELINE, PRESET)
    metrics = build_metrics({"dataset_path": "/d/x.jsonl"}, {"baseline": [*BASELINE, _fault("q5")], "A": with_faults})
    assert metrics["acceptance"]["A"] == build_metrics({}, {"baseline": BASELINE, "A": PRESET})["acceptance"]["A"]
    assert [e["id"] for e in metrics["llm_faults"]["A"]] == ["q5", "q6"] and metrics["llm_faults"]["baseline"][0][
        "reason"] == "ABSTAIN_LLM_TIMEOUT"  # fmt: skip
    text = render_markdown(metrics, [], "x")
    assert "## LLM faults" in text and "3 run(s) hit an LLM fault" in text
    assert "| A | q6 | question q6? | ABSTAIN_LLM_MALFORMED | generate | 1 | no reply within 5 s |" in text
    assert "| LLM faults (not scored, not in any row below) | 1 | 2 |" in text
    assert "None: every question was answered" in render_markdown(build_metrics({}, {"A": PRESET}), [], "x")


def _many(n: int, right: int, wrong: int) -> list[dict[str, Any]]:
    """n records: `right` right, then `wrong` wrong, the rest abstained."""
    out = []
    for i in range(n):
        if i < right:
            out.append(_record(f"m{i}"))
        elif i < right + wrong:
            out.append(_record(f"m{i}", crag=-1, correct=False, wrong=True, f1=0.0, confidence=0.1))
        else:
            out.append(_record(f"m{i}", abstained=True, crag=0, correct=False, f1=0.0, reason="ABSTAIN_MODEL_IDK"))
    return out


def test_every_preset_pair_gets_a_paired_interval_and_a_verdict() -> None:
    base, better, same = _many(40, 10, 20), _many(40, 30, 2), _many(40, 10, 20)
    metrics = build_metrics({}, {"A": better, "baseline": base, "C": same})
    pairs = {(e["a"], e["b"]): e for e in metrics["paired"]}
    assert set(pairs) == {("baseline", "A"), ("baseline", "C"), ("A", "C")}  # the baseline is always a
    ab = pairs[("baseline", "A")]
    assert (
        ab["n"] == 40 and ab["right"]["diff"] == 20 and ab["right"]["low"] > 0 and ab["right"]["verdict"] == "b higher"
    )
    assert ab["wrong"]["diff"] == -18 and ab["wrong"]["high"] < 0
    assert pairs[("baseline", "C")]["crag"]["verdict"] == "no measurable difference"
    text = render_markdown(metrics, [], "x")
    assert f"| A − baseline | 40 | {ab['right']['text']} | {ab['wrong']['text']} |" in text


def test_risk_coverage_ranks_by_the_gate_confidence() -> None:
    metrics = build_metrics({}, {"A": _many(40, 10, 20)})
    curve = metrics["risk_coverage"]["A"]
    # the 10 right answers (confidence 0.9) rank above the 20 wrong ones (0.1): 11 of 40 at 1/11 risk
    assert curve["coverage_at_10pct_risk"] == 0.275 and curve["answered"] == 30
    assert curve["operating_coverage"] == 0.75 and curve["operating_risk"] == _approx(20 / 30)

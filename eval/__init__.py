"""Evaluation harness: run presets (and a plain LangChain RAG chain) over QA datasets and report.

    from anchorgate.eval import run_eval, judge_accuracy
    run_eval("../shared/datasets/crag_sample", presets=["baseline", "A", "peer"], out_dir="runs/crag")

Modules: `scoring` (the yardstick: right/wrong/abstained, answer keys, EM/F1, CRAG score, paired
intervals, risk–coverage; imports no product code), `runner` (`run_eval`, resumable, LLM-cached),
`records` (one record per question and preset), `peer` (the LangChain chain), `aggregate` +
`report` + `plots` (metrics.json, report.md, PNGs), `judge_check` (`judge_accuracy` on HaluEval),
`cli` (`anchorgate eval`). Heavy modules are imported lazily, so `import anchorgate.eval.scoring`
stays cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["EvalError", "judge_accuracy", "run_eval", "score_question", "write_report"]

_EXPORTS = {
    "EvalError": "anchorgate.eval.errors",
    "judge_accuracy": "anchorgate.eval.judge_check",
    "run_eval": "anchorgate.eval.runner",
    "score_question": "anchorgate.eval.scoring.metrics",
    "write_report": "anchorgate.eval.report",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'anchorgate.eval' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_EXPORTS[name]), name)

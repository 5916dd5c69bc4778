"""Per-run numbers from per-question records: means, percentiles, counts, acceptance checks.

Conventions (also printed in report.md):
* F1 / EM / CRAG score are averaged over the questions where they are defined (answerable with a
  gold string for F1/EM; CRAG also covers unanswerable items); an abstention counts as F1 = 0.
* Right / wrong / abstained count the questions with a CRAG score: +1, −1 and 0 (`eval.scoring`).
  Support overlap is not a score: the product computes and optimises it, so it cannot judge itself
  (records keep the product's own figure as `overlap_graph`, to explain decisions).
* "IDK → right": the baseline abstained, the preset answered, and the answer is right.
* A record without an answer field is scored as no answer (abstained) and counted in
  `records_without_answer`, which the report shows as a warning.
* Round plans and guarded rewrites (`round_strategies`, `rewrites_*`) count what the telemetry
  logged: one plan per retrieval round planned (strategy `none` = a round the planner did not
  spend), one rewrite per query-rewriter call, rejected ones by the guard's reason.
* Gate triggers (`gate_triggers`): for each question whose gate asked for more (RETRIEVE_MORE or
  REFLECT), the first such reason and how the question ended: `correct`, `wrong`, `idk` (the
  model declined) or `abstained` (the gate abstained for another reason).
* A question whose run hit an LLM fault (`llm_fault` in its record: the server was unavailable,
  rate limited, timed out or sent a malformed reply) is not model output. It is counted in
  `questions` and `llm_faults` and left out of every other number: F1, EM, CRAG, right/wrong, the
  answered/abstained counts and rates, tokens, latency, stop reasons, IDK → supported, the worst.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from anchorgate.eval.scoring.metrics import abstention_precision_recall, mean, percentile
from anchorgate.eval.scoring.records import has_answer

TOKENS_RATIO_MAX = 1.2
ABSTENTION_RECALL_MARGIN = 0.20
ANSWER_RATE_MAX_DROP = 0.05
Record = dict[str, Any]


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def tokens_by_stage(records: Sequence[Record]) -> dict[str, float]:
    """Mean tokens (prompt + completion) per question for each stage."""
    totals: Counter[str] = Counter()
    for record in records:
        for stage, counts in record["tokens"].get("by_stage", {}).items():
            totals[stage] += int(counts.get("prompt", 0)) + int(counts.get("completion", 0))
    return {stage: round(total / len(records), 1) for stage, total in sorted(totals.items())} if records else {}


def is_llm_fault(record: Record) -> bool:
    """Whether the record's run ended on an LLM fault (not model output: never scored)."""
    return bool(record.get("llm_fault"))


def scored_records(records: Sequence[Record]) -> list[Record]:
    """The records of model output: those without an LLM fault."""
    return [r for r in records if not is_llm_fault(r)]


def llm_calls(record: Record) -> int:
    """LLM calls made for one question (from the per-stage usage tally)."""
    return sum(int(c.get("calls", 0)) for c in record["tokens"].get("by_stage", {}).values())


def round_plan_counts(records: Sequence[Record]) -> dict[str, Any]:
    """Planned rounds by strategy, and guarded rewrites attempted, accepted and rejected by reason."""
    plans = [p for r in records for p in (r.get("telemetry") or {}).get("round_plans") or []]
    rewrites = [w for r in records for w in (r.get("telemetry") or {}).get("rewrites") or []]
    rejected = Counter(str(w.get("reason")) for w in rewrites if not w.get("accepted"))
    return {
        "round_strategies": dict(sorted(Counter(str(p.get("strategy")) for p in plans).items())),
        "rounds_not_spent": sum(p.get("strategy") == "none" for p in plans),
        "rewrites_attempted": len(rewrites),
        "rewrites_accepted": sum(bool(w.get("accepted")) for w in rewrites),
        "rewrite_rejections": dict(sorted(rejected.items())),
    }


def _ending(record: Record) -> str:
    if record["abstained"]:
        return "idk" if record["reason"] == "ABSTAIN_MODEL_IDK" else "abstained"
    return "correct" if record.get("crag_score") == 1 else "wrong"


def gate_triggers(records: Sequence[Record]) -> dict[str, dict[str, int]]:
    """First non-final gate reason (RETRIEVE_MORE / REFLECT) per question, by how the question ended."""
    table: dict[str, Counter[str]] = {}
    for record in records:
        asked = [g for g in (record.get("telemetry") or {}).get("gate") or []
                 if g.get("action") in ("RETRIEVE_MORE", "REFLECT")]  # fmt: skip
        if asked:
            table.setdefault(str(asked[0].get("reason")), Counter())[_ending(record)] += 1
    return {reason: dict(sorted(table[reason].items())) for reason in sorted(table)}


def summarize(all_records: Sequence[Record]) -> dict[str, Any]:
    """Every per-run metric of one preset; LLM faults are counted apart and enter no other number."""
    faults = [r for r in all_records if is_llm_fault(r)]
    records = scored_records(all_records)
    tokens = [float(r["tokens"]["total"]) for r in records]
    latency = [float(r["latency_s"]) for r in records if r.get("latency_s") is not None]
    answered = [r for r in records if not r["abstained"]]
    answerable = [r for r in records if r["answerable"]]
    false_premise = [r for r in records if r.get("false_premise")]
    crag = [r["crag_score"] for r in records if r["crag_score"] is not None]
    precision, recall = abstention_precision_recall([(r["abstained"], r["answerable"]) for r in records])
    calls = sum(llm_calls(r) for r in records)
    cached = sum(int(r.get("llm_cache_hits") or 0) for r in records)
    return {
        "questions": len(all_records),
        "llm_faults": len(faults),
        "llm_fault_reasons": dict(sorted(Counter(str(r["reason"]) for r in faults).items())),
        "scored_questions": sum(r["f1"] is not None for r in records),
        "unanswerable_questions": len(records) - len(answerable),
        "f1_mean": _r(mean([r["f1"] for r in records])),
        "f1_p50": _r(percentile([r["f1"] for r in records if r["f1"] is not None], 50)),
        "em_mean": _r(mean([r["em"] for r in records])),
        "right": crag.count(1),
        "wrong": crag.count(-1),
        "abstained": crag.count(0),
        "scored_by": dict(sorted(Counter(str(r.get("scored_by") or "gold") for r in records).items())),
        "long_form_right": sum(bool(r.get("long_form_correct")) for r in records),
        "records_without_answer": sum(not has_answer(r) for r in records),
        "crag_score_mean": _r(mean(crag)),
        "crag_counts": {"correct": crag.count(1), "missing": crag.count(0), "incorrect": crag.count(-1)},
        "tokens_mean": _r(mean(tokens), 1),
        "tokens_p50": _r(percentile(tokens, 50), 1),
        "prompt_tokens_mean": _r(mean([float(r["tokens"]["prompt"]) for r in records]), 1),
        "completion_tokens_mean": _r(mean([float(r["tokens"]["completion"]) for r in records]), 1),
        "tokens_by_stage_mean": tokens_by_stage(records),
        "latency_p50": _r(percentile(latency, 50), 3),
        "latency_p95": _r(percentile(latency, 95), 3),
        "idk_count": len(records) - len(answered),
        "idk_on_answerable": sum(r["abstained"] for r in answerable),
        "answer_rate_answerable": _r(1 - sum(r["abstained"] for r in answerable) / len(answerable))
        if answerable else None,
        "wrong_on_answerable": sum(bool(r["wrong_on_answerable"]) for r in records),
        "idk_with_gold_context": sum(r["abstained"] and r["answerable"] and bool(r.get("gold_in_context"))
                                     for r in records),
        "abstention_precision": _r(precision),
        "abstention_recall": _r(recall),
        "false_premise_questions": len(false_premise),
        "false_premise_rate": _r(mean([float(bool(r["false_premise_detected"])) for r in false_premise])),
        "stop_reasons": dict(sorted(Counter(r["reason"] for r in records).items())),
        "round2_share": _r(sum(int(r.get("rounds") or 0) >= 2 for r in records) / len(records)) if records else None,
        **round_plan_counts(records),
        "gate_triggers": gate_triggers(records),
        "errors": sum(r["decision"] == "ERROR" for r in records),
        "llm_calls": calls,
        "llm_calls_from_cache": cached,
        "cached_call_share": _r(cached / calls) if calls else None,
    }  # fmt: skip


def idk_to_right(baseline: Sequence[Record], preset: Sequence[Record]) -> list[str]:
    """Ids the baseline abstained on and the preset answered right."""
    abstained = {r["id"] for r in scored_records(baseline) if r["abstained"]}
    return [r["id"] for r in scored_records(preset) if r["id"] in abstained and r.get("crag_score") == 1]


def _check(name: str, target: str, value: Any, reference: Any, met: bool | None, ratio: Any = None) -> dict[str, Any]:
    delta = _r(value - reference) if isinstance(value, int | float) and isinstance(reference, int | float) else None
    return {"check": name, "target": target, "value": value, "baseline": reference, "ratio": ratio, "delta": delta,
            "met": met}  # fmt: skip


def acceptance(base: dict[str, Any], run: dict[str, Any]) -> list[dict[str, Any]]:
    """The seeds' acceptance criteria for one preset against the baseline (met = None: undefined)."""
    checks = []
    b_tok, r_tok = base["tokens_mean"], run["tokens_mean"]
    ratio = _r(r_tok / b_tok, 3) if b_tok else None
    checks.append(_check("tokens/Q", f"≤ {TOKENS_RATIO_MAX}× baseline", r_tok, b_tok,
                         None if ratio is None else ratio <= TOKENS_RATIO_MAX, ratio))  # fmt: skip
    b_f1, r_f1 = base["f1_mean"], run["f1_mean"]
    checks.append(_check("F1", "≥ baseline", r_f1, b_f1, None if b_f1 is None or r_f1 is None else r_f1 >= b_f1))
    b_w, r_w = base["wrong_on_answerable"], run["wrong_on_answerable"]
    checks.append(_check("wrong-on-answerable", "< baseline (or both 0)", r_w, b_w, r_w < b_w or r_w == b_w == 0))
    if base["abstention_recall"] is not None and run["abstention_recall"] is not None:
        recall_ok = run["abstention_recall"] >= base["abstention_recall"] + ABSTENTION_RECALL_MARGIN - 1e-9
        rates = (base["answer_rate_answerable"], run["answer_rate_answerable"])
        rate_ok = None in rates or rates[1] >= rates[0] - ANSWER_RATE_MAX_DROP - 1e-9
        checks.append(_check("abstention recall (unanswerable)",
                             f"≥ baseline + {ABSTENTION_RECALL_MARGIN}, answer rate drop ≤ {ANSWER_RATE_MAX_DROP}",
                             run["abstention_recall"], base["abstention_recall"], recall_ok and rate_ok))  # fmt: skip
    return checks


def badness(record: Record) -> tuple[float, float, float]:
    """Sort key, worst first: CRAG score, then F1, then more tokens."""
    crag = record["crag_score"] if record["crag_score"] is not None else 0
    return (float(crag), float(record["f1"] or 0.0), -float(record["tokens"]["total"]))


def worst(records: Sequence[Record], n: int = 5) -> list[Record]:
    """The n worst scored questions (stable: dataset order among equals)."""
    return sorted(scored_records(records), key=badness)[:n]


def explain(record: Record) -> str:
    """The telemetry that explains a result, as one short line."""
    telemetry = record.get("telemetry", {})
    parts = []
    gate = [f"{g['action']}:{g['reason']}" for g in telemetry.get("gate", [])]
    parts.append(" → ".join(gate) if gate else record["reason"])
    if telemetry.get("missing_anchors"):
        parts.append("missing anchors " + ", ".join(map(str, telemetry["missing_anchors"])))
    judge = telemetry.get("judge") or {}
    if judge.get("label") or judge.get("error"):
        parts.append(f"judge {judge.get('label') or judge.get('error')}")
    skipped = sorted({str(c["skipped"]) for c in telemetry.get("calls", []) if c.get("skipped")})
    if skipped:
        parts.append("skipped calls " + ", ".join(skipped))
    parts.append(f"{len(telemetry.get('context_ids', []))} passages")
    return "; ".join(parts)


def answer_confidence(record: Record) -> float | None:
    """The gate's answer confidence at its last decision (`answer_confidence`, else `gen_confidence`)."""
    gate = (record.get("telemetry") or {}).get("gate") or []
    if not gate:
        return None
    last = gate[-1]
    value = last.get("answer_confidence")
    value = last.get("gen_confidence") if value is None else value
    return float(value) if isinstance(value, int | float) else None


def outcome(record: Record) -> str | None:
    """ "right", "wrong" or "abstained" from the CRAG score; None when the question has no reference."""
    return {1: "right", -1: "wrong", 0: "abstained"}.get(record.get("crag_score"))  # type: ignore[arg-type]

"""One scored record per (question, preset): the gold, the answer, every score and the telemetry.

Scores come from `eval.scoring` alone (`scoring.records.score_fields`), which reads the fields the
record keeps, so a stored record can be scored again by later rules without a model call. A run that
ended on an LLM fault (`tools.llm.faults`: the server was unavailable, rate limited, silent or
malformed) is not the model's output: its record keeps the fault (`llm_fault`) and the ABSTAIN_LLM_*
reason, and every score is None, so nothing downstream can count it as an answer or an abstention.
The report lists such questions apart and a resumed run asks them again.

`overlap_graph` is the product's own support measure as its telemetry logged it: kept to explain a
decision, never scored or reported as quality (the product optimises it, so it cannot judge it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from anchorgate.eval.datasets import LONG_FORM_ANSWERS, QAItem
from anchorgate.eval.scoring.keys import AnswerKey
from anchorgate.eval.scoring.metrics import QuestionScore
from anchorgate.eval.scoring.records import rescore, score_fields
from anchorgate.eval.store import read_records, results_path, rewrite_records
from anchorgate.graph.signals import RECORDED_SIGNALS

TELEMETRY_KEYS = (
    "anchors", "anchor_coverage", "missing_anchors", "judge", "latency_by_node", "context_tokens",
    "invalid_citations", "citation_repairs", "question_type", "evidence_seen", "overflow", "passes",
    "draft_structure", "second_reading", "round_plans", "rewrites", "drafts_reused", "hop_plan",
    "draft",  # the draft the gate measured: what an abstention withdrew (bench/unanchored.py)
)  # fmt: skip


def is_long_form(item: QAItem) -> bool:
    """Whether the item's gold answers are passage sentences (`LONG_FORM_ANSWERS`)."""
    return item.extra.get(LONG_FORM_ANSWERS) is True


def _with_item(record: dict[str, Any], item: QAItem) -> dict[str, Any]:
    """The record with the item's gold and gold kind (a record written before a field existed has none)."""
    if record.get("llm_fault"):
        return record
    return {**record, "gold": list(item.answers), "long_form_gold": is_long_form(item)}


def rescore_results(
    out: Path, presets: Iterable[str], items: Iterable[QAItem], keys: Mapping[str, AnswerKey] | None = None
) -> dict[str, int]:
    """Score every stored record of the run's questions again; rewrite a preset's file only if a
    score changed. Returns the number of changed records per preset."""
    by_id = {item.id: item for item in items}
    keys = keys or {}
    changed: dict[str, int] = {}
    for preset in presets:
        path = results_path(out, preset)
        records = read_records(path)
        fresh = {qid: rescore(_with_item(r, by_id[qid]), keys.get(qid)) if qid in by_id else r
                 for qid, r in records.items()}  # fmt: skip
        changed[preset] = sum(fresh[qid] != records[qid] for qid in records)
        if changed[preset]:
            rewrite_records(path, fresh.values())
    return changed


def build_record(item: QAItem, preset: str, answer: dict[str, Any], key: AnswerKey | None = None) -> dict[str, Any]:
    """The JSON record of one scored question (`key`: the question's answer key, when it has one)."""
    telemetry = answer.get("telemetry", {})
    fault = telemetry.get("llm_fault")
    seen_docs = {str(p.get("doc_id")) for p in answer["context"]}
    gold_in_context = bool(seen_docs & set(item.gold_passage_ids)) if item.gold_passage_ids else None
    record: dict[str, Any] = {
        "id": item.id,
        "preset": preset,
        "question": item.question,
        "gold": list(item.answers),
        "long_form_gold": is_long_form(item),
        "answerable": item.answerable,
        "false_premise": item.false_premise,
        "question_type": item.question_type,
        "language": item.language,
        "prediction": answer["answer"],
        "short_answer": answer.get("short_answer", ""),
        "decision": answer["decision"],
        "reason": answer["reason"],
        "rounds": answer.get("rounds", 0),
        **dict.fromkeys(QuestionScore.__dataclass_fields__),  # a fault scores nothing
        "llm_fault": fault or None,
        "overlap_graph": telemetry.get("support_overlap"),
        "citations": len(answer.get("citations", [])),
        "gold_in_context": gold_in_context,
        "tokens": answer["tokens"],
        "latency_s": answer.get("latency_s"),
        "telemetry": _telemetry_subset(telemetry),
        # a multi-hop run's chain (gate.follow_hops): each hop's question, answer and cited passages' ids
        "hops": [{**h, "citations": [c.get("id") for c in h.get("citations", [])]} for h in answer.get("hops") or []],
    }
    if not fault:
        record.update(score_fields(record, key).to_dict())
    return record


def _telemetry_subset(telemetry: dict[str, Any]) -> dict[str, Any]:
    """What explains a decision, without the bulky parts (drafts, highlights, claim texts).

    Each gate decision keeps the signals declared "record" in `graph/signals.py`, so thresholds
    (refusal, retry strength) can be chosen from records."""
    subset = {key: telemetry[key] for key in TELEMETRY_KEYS if key in telemetry}
    subset["gate"] = [{"round": g.get("round"), "action": g.get("action"), "reason": g.get("reason"),
                       **{k: (g.get("signals") or {}).get(k) for k in RECORDED_SIGNALS}}
                      for g in telemetry.get("gate", [])]  # fmt: skip
    subset["calls"] = [
        {k: c.get(k) for k in ("stage", "prompt", "completion", "source", "skipped", "fault", "attempts") if k in c}
        for c in telemetry.get("calls", [])
    ]
    subset["context_ids"] = [c.get("id") for c in telemetry.get("context", [])]
    if isinstance(subset.get("anchors"), list):
        subset["anchors"] = [a.get("text") if isinstance(a, dict) else a for a in subset["anchors"]]
    return subset

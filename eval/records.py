"""One scored record per (question, preset): the gold, the prediction, every metric and the telemetry.

A run that ended on an LLM fault (`tools.llm.faults`: the server was unavailable, rate limited,
silent or malformed) is not the model's output: its record keeps the fault (`llm_fault`) and the
ABSTAIN_LLM_* reason, and every score is None, so nothing downstream can count it as an answer
or an abstention. The report lists such questions apart and a resumed run asks them again.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from anchorgate.eval.corpora import Bundle
from anchorgate.eval.datasets import LONG_FORM_ANSWERS, QAItem
from anchorgate.eval.metrics import QuestionScore, score_question
from anchorgate.eval.store import read_records, results_path, rewrite_records
from anchorgate.graph.config import Config
from anchorgate.graph.signals import RECORDED_SIGNALS
from anchorgate.tools.answer.support import support_report

TELEMETRY_KEYS = (
    "anchors", "anchor_coverage", "missing_anchors", "judge", "latency_by_node", "context_tokens",
    "invalid_citations", "citation_repairs", "question_type", "evidence_seen", "overflow", "passes",
    "draft_structure", "second_reading", "style_fallback", "round_plans", "rewrites", "drafts_reused",
    "draft",  # the draft the gate measured: what an abstention withdrew (bench/unanchored.py)
)  # fmt: skip


def _overlap(answer: dict[str, Any], abstained: bool, bundle: Bundle, config: Config) -> tuple[float, int, int]:
    """(overlap, claims, supported claims) of the final answer against the passages the model saw.

    Measured identically for every preset and the peer: `tools.answer.support.support_report` with the
    bundle's embedding model (lexical + semantic support), so the baseline — whose own gate-less
    telemetry skips the semantic part — is held to the same yardstick. An abstention has overlap 0.
    Passages are read back from the index by chunk id, i.e. unpruned (with `use_pruning` the model
    saw a subset of these sentences, so overlap is then a slightly lenient upper bound).
    """
    if abstained or not answer["context"]:
        return 0.0, 0, 0
    overlap, claims = support_report(
        answer["answer"], answer["context"], bundle.services.embeddings, config.support_threshold
    )
    return overlap, len(claims), sum(c.supported for c in claims)


def is_long_form(item: QAItem) -> bool:
    """Whether the item's gold answers are passage sentences (`LONG_FORM_ANSWERS`)."""
    return item.extra.get(LONG_FORM_ANSWERS) is True


def _score(item: QAItem, answer: str, short_answer: str, decision: str) -> QuestionScore:
    return score_question(
        answer=answer, short_answer=short_answer, decision=decision, golds=item.answers,
        answerable=item.answerable, false_premise=item.false_premise, question=item.question,
        long_form=is_long_form(item),
    )  # fmt: skip


def rescore(record: dict[str, Any], item: QAItem) -> dict[str, Any]:
    """`record` with its scores recomputed by the current metrics from its stored answer.

    So a report never mixes scoring rules: records written before a metric changed are scored again
    when the run is resumed. A fault record scores nothing and stays as it is."""
    if record.get("llm_fault"):
        return record
    score = _score(item, record["prediction"], record.get("short_answer", ""), record["decision"])
    return {**record, **score.to_dict(), "gold": list(item.answers), "long_form_gold": is_long_form(item)}


def rescore_results(out: Path, presets: Iterable[str], items: Iterable[QAItem]) -> dict[str, int]:
    """Score every stored record of the run's questions again; rewrite a preset's file only if a
    score changed. Returns the number of changed records per preset."""
    by_id = {item.id: item for item in items}
    changed: dict[str, int] = {}
    for preset in presets:
        path = results_path(out, preset)
        records = read_records(path)
        fresh = {qid: rescore(r, by_id[qid]) if qid in by_id else r for qid, r in records.items()}
        changed[preset] = sum(fresh[qid] != records[qid] for qid in records)
        if changed[preset]:
            rewrite_records(path, fresh.values())
    return changed


def build_record(item: QAItem, preset: str, answer: dict[str, Any], bundle: Bundle, config: Config) -> dict[str, Any]:
    """The JSON record of one scored question."""
    telemetry = answer.get("telemetry", {})
    fault = telemetry.get("llm_fault")
    scores: dict[str, Any] = dict.fromkeys(QuestionScore.__dataclass_fields__)  # a fault scores nothing
    overlap: float | None = None
    n_claims = n_supported = 0
    if not fault:
        score = _score(item, answer["answer"], answer.get("short_answer", ""), answer["decision"])
        scores = score.to_dict()
        overlap, n_claims, n_supported = _overlap(answer, score.abstained, bundle, config)
    seen_docs = {str(p.get("doc_id")) for p in answer["context"]}
    gold_in_context = bool(seen_docs & set(item.gold_passage_ids)) if item.gold_passage_ids else None
    return {
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
        **scores,
        "llm_fault": fault or None,
        "overlap": overlap,
        "overlap_graph": telemetry.get("support_overlap"),
        "claims": n_claims,
        "claims_supported": n_supported,
        "citations": len(answer.get("citations", [])),
        "gold_in_context": gold_in_context,
        "tokens": answer["tokens"],
        "latency_s": answer.get("latency_s"),
        "telemetry": _telemetry_subset(telemetry),
    }


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

"""`run_eval`: ask every question of a dataset with every preset, score it, write results and a report.

Per question and preset the record holds the gold, the prediction, every metric of
`eval.metrics`, the support overlap measured the same way for all presets (see `_overlap`),
tokens, latency and the telemetry that explains the decision. Runs are resumable (see
`eval.store`) and LLM replies are cached on disk (see `eval.llm_cache`). Questions are taken in
dataset order and, for each question, every preset runs before the next question, so a killed
run leaves all presets scored on the same prefix.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from anchorgate.api import aask, resolve_config
from anchorgate.eval.corpora import Bundle, CorpusProvider, ServicesFactory, context_passages, default_services_factory
from anchorgate.eval.errors import EvalDataError, EvalError, EvalInputError
from anchorgate.eval.llm_cache import CacheRegistry, namespace_for
from anchorgate.eval.metrics import score_question
from anchorgate.eval.peer import PEER, ask_peer
from anchorgate.eval.report import write_report
from anchorgate.eval.store import (
    SCHEMA_VERSION,
    append_record,
    content_hash,
    prepare_out_dir,
    read_records,
    results_path,
)
from anchorgate.graph.config import Config
from anchorgate.graph.presets import preset_names
from anchorgate.tools.answer_text import IDK_ANSWER
from anchorgate.tools.datasets import DatasetFormatError, QADataset, QAItem, load_dataset
from anchorgate.tools.errors import InvalidQuestionError
from anchorgate.tools.llm import model_file_for
from anchorgate.tools.paths import cache_root
from anchorgate.tools.support import support_report

CACHE_FILE = "llm_cache.sqlite"
TELEMETRY_KEYS = (
    "anchors", "anchor_coverage", "missing_anchors", "judge", "latency_by_node", "context_tokens",
    "invalid_citations", "citation_repairs", "question_type", "evidence_seen", "overflow", "passes",
    "draft_structure",
)  # fmt: skip
# gate signals kept per decision, so thresholds (refusal, retry strength) can be chosen from records
GATE_SIGNALS = ("abstain_p", "top_relevance", "evidence_strong", "answer_type_present", "draft_status",
                "quote_verified", "answer_grounding", "overlap", "coverage")  # fmt: skip


def load_eval_dataset(
    path: str | Path, fmt: str = "auto", *, corpus_path: str | Path | None = None,
    limit: int | None = None, language: str | None = None,
) -> QADataset:  # fmt: skip
    """`load_dataset` with its errors turned into one-line `EvalError`s (exit 65 / 66)."""
    try:
        return load_dataset(path, fmt, corpus_path=corpus_path, limit=limit, language=language)
    except DatasetFormatError as exc:
        raise EvalDataError(" ".join(str(exc).split())) from exc
    except FileNotFoundError as exc:
        raise EvalInputError(str(exc)) from exc
    except ValueError as exc:
        raise EvalDataError(" ".join(str(exc).split())) from exc


def preset_configs(presets: Sequence[str], overrides: dict[str, Any]) -> dict[str, Config]:
    """Canonical preset name → Config; "peer" runs on the baseline's resources and settings."""
    configs: dict[str, Config] = {}
    known = {p.lower() for p in preset_names()} | {PEER}
    unknown = [p for p in presets if p.strip().lower() not in known]
    if unknown:
        raise EvalError(f"unknown preset(s) {', '.join(map(repr, unknown))}",
                        f"choose from {', '.join([*preset_names(), PEER])}")  # fmt: skip
    for name in presets:
        if name.strip().lower() == PEER:
            configs[PEER] = resolve_config("baseline", overrides)
        else:
            config = resolve_config(name, overrides)
            configs[config.preset] = config
    if not configs:
        raise EvalError("no presets to run", f"choose from {', '.join([*preset_names(), PEER])}")
    return configs


def run_settings(
    dataset: QADataset, corpus_path: str | Path | None, language: str | None, overrides: dict[str, Any],
    presets: Sequence[str], limit: int | None, llm: str,
) -> dict[str, Any]:  # fmt: skip
    """What run.json records (identity keys are compared on restart, see `eval.store`)."""
    return {
        "schema": SCHEMA_VERSION,
        "dataset_path": str(Path(dataset.path).resolve()),
        "dataset_sha256": content_hash(dataset.path),
        "format": dataset.format,
        "language": language,
        "corpus_path": str(Path(corpus_path).resolve()) if corpus_path else None,
        "corpus_sha256": content_hash(corpus_path),
        "overrides": {k: overrides[k] for k in sorted(overrides)},
        "llm": llm,
        "model_file": model_file_for(llm),
        "limit": limit,
        "presets": list(presets),
    }


def cache_file(llm_cache: str | Path | None, config: Config) -> Path | None:
    """The LLM cache file: the given path, else `<cache_dir>/llm_cache.sqlite`; "" disables it."""
    if llm_cache == "":
        return None
    return Path(llm_cache) if llm_cache is not None else cache_root(config.cache_dir) / CACHE_FILE


def cache_namespace(config: Config) -> str:
    """Model settings that select a reply but are not in every model's LangChain `llm_string`."""
    model_file = os.environ.get("ANCHORGATE_GGUF", "")
    return namespace_for(
        [("llm", config.llm), ("model_file", model_file), ("temperature", config.temperature), ("seed", config.seed),
         ("n_ctx", config.n_ctx), ("logprobs_top_k", config.logprobs_top_k)]
    )  # fmt: skip


def run_eval(
    dataset_path: str | Path,
    fmt: str = "auto",
    presets: Sequence[str] = ("baseline",),
    limit: int | None = None,
    overrides: dict[str, Any] | None = None,
    out_dir: str | Path = "eval_out",
    force: bool = False,
    corpus_path: str | Path | None = None,
    progress: bool = True,
    *,
    language: str | None = None,
    llm_cache: str | Path | None = None,
    services_factory: ServicesFactory | None = None,
) -> dict[str, Any]:
    """Evaluate `presets` on a dataset into `out_dir`; returns a summary (counts, cache stats, files).

    `llm_cache`: the SQLite file of cached LLM replies (default `<cache_dir>/llm_cache.sqlite`;
    "" disables caching). `services_factory` builds the index/model bundle for a list of passages
    (tests pass fakes; default: the real embeddings and chat model).
    """
    overrides = dict(overrides or {})
    configs = preset_configs(presets, overrides)
    dataset = load_eval_dataset(dataset_path, fmt, corpus_path=corpus_path, limit=limit, language=language)
    base = resolve_config("baseline", overrides)
    settings = run_settings(dataset, corpus_path, language, overrides, list(configs), limit, base.llm)
    out = Path(out_dir)
    settings = prepare_out_dir(out, settings, force=force)
    caches = CacheRegistry(cache_file(llm_cache, base))
    provider = CorpusProvider(
        dataset, services_factory or default_services_factory, lambda config: caches.get(cache_namespace(config))
    )
    try:
        with tempfile.TemporaryDirectory(prefix="anchorgate-eval-") as checkpoints:
            plan = _Plan(dataset, configs, provider, out, f"{checkpoints}/c.sqlite", caches)
            added = asyncio.run(_answer_all(plan, progress))
    finally:
        stats = caches.stats()
        caches.close()
    paths = write_report(out, settings, [item.id for item in dataset.items])
    return {"out_dir": str(out), "questions": len(dataset.items), "presets": list(configs), "new_records": added,
            "llm_cache": stats, "files": paths}  # fmt: skip


@dataclass(frozen=True)
class _Plan:
    """What one invocation works through."""

    dataset: QADataset
    configs: dict[str, Config]
    provider: CorpusProvider
    out: Path
    checkpoint_db: str
    caches: CacheRegistry


async def _answer_all(plan: _Plan, progress: bool) -> dict[str, int]:
    """Ask and score every (question, preset) not yet in the results; returns new records per preset."""
    done = {preset: set(read_records(results_path(plan.out, preset))) for preset in plan.configs}
    todo = [(item, preset) for item in plan.dataset.items for preset in plan.configs if item.id not in done[preset]]
    added = dict.fromkeys(plan.configs, 0)
    label = f"eval {plan.dataset.name}"
    with tqdm(total=len(todo), desc=label, unit="q", disable=not progress, dynamic_ncols=True) as bar:
        for item, preset in todo:
            bar.set_postfix_str(preset)
            config = plan.configs[preset]
            bundle = plan.provider.bundle(item, config)
            hits = plan.caches.stats()["hits"]
            answer = await _ask(item, preset, config, bundle, plan.checkpoint_db)
            record = build_record(item, preset, answer, bundle, config)
            record["llm_cache_hits"] = plan.caches.stats()["hits"] - hits
            append_record(results_path(plan.out, preset), record)
            added[preset] += 1
            bar.update(1)
    return added


async def _ask(item: QAItem, preset: str, config: Config, bundle: Bundle, checkpoint_db: str) -> dict[str, Any]:
    """One answer with `context` ({n, id, title, text}) attached; an invalid question is recorded."""
    if preset == PEER:
        return await ask_peer(item.question, bundle.services, config)
    run_config = config.replace(services_id=bundle.services_id, checkpoint_db=checkpoint_db)
    try:
        result = await aask(item.question, config=run_config)
    except InvalidQuestionError as exc:
        return _error_answer(exc.one_line())
    return {**result, "context": context_passages(bundle, result.get("telemetry", {}).get("context", []))}


def _error_answer(message: str) -> dict[str, Any]:
    return {"answer": IDK_ANSWER, "short_answer": "", "decision": "ERROR", "reason": f"ERROR: {message}",
            "rounds": 0, "tokens": {"prompt": 0, "completion": 0, "total": 0, "by_stage": {}}, "latency_s": 0.0,
            "telemetry": {}, "context": []}  # fmt: skip


def _overlap(answer: dict[str, Any], abstained: bool, bundle: Bundle, config: Config) -> tuple[float, int, int]:
    """(overlap, claims, supported claims) of the final answer against the passages the model saw.

    Measured identically for every preset and the peer: `tools.support.support_report` with the
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


def build_record(item: QAItem, preset: str, answer: dict[str, Any], bundle: Bundle, config: Config) -> dict[str, Any]:
    """The JSON record of one scored question."""
    score = score_question(
        answer=answer["answer"], short_answer=answer.get("short_answer", ""), decision=answer["decision"],
        golds=item.answers, answerable=item.answerable, false_premise=item.false_premise,
    )  # fmt: skip
    overlap, n_claims, n_supported = _overlap(answer, score.abstained, bundle, config)
    telemetry = answer.get("telemetry", {})
    seen_docs = {str(p.get("doc_id")) for p in answer["context"]}
    gold_in_context = bool(seen_docs & set(item.gold_passage_ids)) if item.gold_passage_ids else None
    return {
        "id": item.id,
        "preset": preset,
        "question": item.question,
        "gold": list(item.answers),
        "answerable": item.answerable,
        "false_premise": item.false_premise,
        "question_type": item.question_type,
        "language": item.language,
        "prediction": answer["answer"],
        "short_answer": answer.get("short_answer", ""),
        "decision": answer["decision"],
        "reason": answer["reason"],
        "rounds": answer.get("rounds", 0),
        **score.to_dict(),
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
    """What explains a decision, without the bulky parts (drafts, highlights, claim texts)."""
    subset = {key: telemetry[key] for key in TELEMETRY_KEYS if key in telemetry}
    subset["gate"] = [{"round": g.get("round"), "action": g.get("action"), "reason": g.get("reason"),
                       **{k: (g.get("signals") or {}).get(k) for k in GATE_SIGNALS}}
                      for g in telemetry.get("gate", [])]  # fmt: skip
    subset["calls"] = [
        {k: c.get(k) for k in ("stage", "prompt", "completion", "source", "skipped") if k in c}
        for c in telemetry.get("calls", [])
    ]
    subset["context_ids"] = [c.get("id") for c in telemetry.get("context", [])]
    if isinstance(subset.get("anchors"), list):
        subset["anchors"] = [a.get("text") if isinstance(a, dict) else a for a in subset["anchors"]]
    return subset

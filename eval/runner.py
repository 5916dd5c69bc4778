"""`run_eval`: ask every question of a dataset with every preset, score it, write results and a report.

Per question and preset the record holds the gold, the answer, every score of `eval.scoring`
(which imports no product code), tokens, latency and the telemetry that explains the decision
(`eval.records`). ClapNQ is scored with its hand-written answer keys (`answer_keys`, found beside
the dataset as `clapnq_answer_keys/answer_keys.jsonl` when not given; `eval.scoring.keys`). Runs are resumable
(see `eval.store`) and LLM replies are cached on disk (see `eval.llm_cache`). Questions are taken
in dataset order and, for each question, every preset runs before the next question, so a killed
run leaves all presets scored on the same prefix. A question whose run hit an LLM fault is
recorded as such, never scored, and asked again by the next run of the same command.

`concurrency` > 1 (for a model server; `eval.slots`) keeps that many runs in flight, started in
the same order; each record is appended when its run ends, so `<preset>.jsonl` holds the same
records as with 1, possibly in another order (the report and metrics read them by question id,
in dataset order, and are the same). A killed run loses at most the runs in flight.

Before any work the options and the dataset are checked, in that order: `--limit` below 1, a
negative `--skip` or one that leaves no question (`--skip` >= `--limit`, or >= the questions the
dataset has) is a usage error (64), a dataset that does not load is 65/66, an unknown preset 78, an
output folder that cannot be made 73. `--skip K` leaves out the first K of the selected questions
(`--skip 150 --limit 250`: questions 151–250); like the limit it is recorded in run.json but is not
part of the folder's identity, so a held-out split can share a folder with runs of other questions.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from tqdm import tqdm

from anchorgate.api import aask, resolve_config
from anchorgate.eval.aggregate import is_llm_fault
from anchorgate.eval.corpora import Bundle, CorpusProvider, ServicesFactory, context_passages, default_services_factory
from anchorgate.eval.datasets import DatasetFormatError, QADataset, QAItem, load_dataset
from anchorgate.eval.errors import EvalDataError, EvalError, EvalInputError, EvalUsageError
from anchorgate.eval.llm_cache import CacheRegistry, namespace_for
from anchorgate.eval.peer import PEER, ask_peer
from anchorgate.eval.records import build_record, rescore_results
from anchorgate.eval.report import write_report
from anchorgate.eval.scoring.keys import AnswerKey, AnswerKeyError, check_keys, load_answer_keys
from anchorgate.eval.slots import effective_concurrency, slot_bundle
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
from anchorgate.tools.answer.text import IDK_ANSWER
from anchorgate.tools.errors import InvalidQuestionError
from anchorgate.tools.llm.chat_models import model_file_for
from anchorgate.tools.paths import cache_root
from anchorgate.tools.services import TOP_LOGPROBS

CACHE_FILE = "llm_cache.sqlite"


def data_issues(dataset: QADataset) -> dict[str, list[dict[str, str]]]:
    """What the loader dropped (`skipped`) or kept after a repair (`repaired`), each with where and why."""
    return {"skipped": [{"where": w, "reason": r} for w, r in dataset.skipped],
            "repaired": [{"where": w, "reason": r} for w, r in dataset.warnings]}  # fmt: skip


def check_limit(limit: int | None) -> None:
    """`--limit N` takes the first N questions: N must be at least 1 (None = all)."""
    if limit is not None and limit < 1:
        raise EvalUsageError(f"--limit must be at least 1 (got {limit})", "leave it out to evaluate every question")


def check_skip(skip: int, limit: int | None) -> None:
    """`--skip K` leaves out the first K questions: K must be at least 0 and, with `--limit N`, below N."""
    if skip < 0:
        raise EvalUsageError(f"--skip must be at least 0 (got {skip})", "leave it out to start at the first question")
    if limit is not None and skip >= limit:
        raise EvalUsageError(f"--skip {skip} with --limit {limit} leaves no questions",
                             "--skip K --limit N evaluates questions K+1…N")  # fmt: skip


def load_eval_dataset(
    path: str | Path, fmt: str = "auto", *, corpus_path: str | Path | None = None,
    limit: int | None = None, language: str | None = None, skip: int = 0,
) -> QADataset:  # fmt: skip
    """`load_dataset` with its errors turned into one-line `EvalError`s (exit 65 / 66)."""
    try:
        return load_dataset(path, fmt, corpus_path=corpus_path, limit=limit, language=language, skip=skip)
    except DatasetFormatError as exc:
        raise EvalDataError(" ".join(str(exc).split())) from exc
    except FileNotFoundError as exc:
        raise EvalInputError(str(exc)) from exc
    except ValueError as exc:
        raise EvalDataError(" ".join(str(exc).split())) from exc


def only_ids(dataset: QADataset, ids: Sequence[str] | None) -> QADataset:
    """The dataset with only the questions `ids` names, in dataset order (None: all of them)."""
    if ids is None:
        return dataset
    wanted = set(ids)
    unknown = sorted(wanted - {item.id for item in dataset.items})
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise EvalUsageError(f"--ids names {len(unknown)} question(s) not in the selection: {shown}",
                             "check the ids against --dataset, --language, --skip and --limit")  # fmt: skip
    return replace(dataset, items=tuple(item for item in dataset.items if item.id in wanted))


def _skip_leaves_nothing(
    dataset_path: str | Path, fmt: str, corpus_path: str | Path | None, language: str | None, skip: int
) -> NoReturn:
    """A `--skip` at or past the end of the selection: a usage error that says how many questions there are."""
    dataset = load_eval_dataset(dataset_path, fmt, corpus_path=corpus_path, limit=skip, language=language)
    available = len(dataset.items)  # fewer than `skip`, else a question would have been left
    where = f" in language {language!r}" if language else ""
    raise EvalUsageError(
        f"--skip {skip} leaves no questions: the dataset has {available}{where}",
        f"use a --skip below {available}" if available else "check --dataset and --language",
    )


KEYS_BESIDE = {"clapnq": Path("clapnq_answer_keys") / "answer_keys.jsonl"}
"""Formats whose answer keys sit beside the dataset folder, used when `answer_keys` is not given."""


def answer_keys_path(dataset: QADataset, answer_keys: str | Path | None) -> Path | None:
    """The key file to score with: the given one, else the one beside a ClapNQ dataset if present."""
    if answer_keys is not None:
        return Path(answer_keys)
    beside = KEYS_BESIDE.get(dataset.format)
    if beside is None:
        return None
    folder = Path(dataset.path)
    candidate = (folder if folder.is_dir() else folder.parent).parent / beside
    return candidate if candidate.is_file() else None


def load_run_keys(dataset: QADataset, path: Path | None, all_ids: Sequence[str]) -> dict[str, AnswerKey]:
    """The answer keys for the run's answerable questions, checked against the dataset (exit 65 if they do not fit)."""
    if path is None:
        return {}
    if not path.is_file():
        raise EvalInputError(f"answer keys {path}: no such file", "pass --answer-keys FILE (JSON Lines)")
    try:
        keys = load_answer_keys(path)
        check_keys(keys, all_ids, [item.id for item in dataset.items if item.answerable])
    except AnswerKeyError as exc:
        raise EvalDataError(f"answer keys {path}: {exc}", "pass the key file written for this dataset") from exc
    return keys


def _all_ids(dataset_path: str | Path, fmt: str, corpus_path: str | Path | None) -> list[str]:
    """Every question id of the dataset, whatever the limit or language: what a key file may name."""
    return [item.id for item in load_eval_dataset(dataset_path, fmt, corpus_path=corpus_path).items]


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
    presets: Sequence[str], limit: int | None, llm: str, skip: int = 0,
) -> dict[str, Any]:  # fmt: skip
    """What run.json records (identity keys are compared on restart, see `eval.store`; not limit or skip)."""
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
        "skip": skip,
        "presets": list(presets),
    }


def cache_file(llm_cache: str | Path | None, config: Config) -> Path | None:
    """The LLM cache file: the given path, else `<cache_dir>/llm_cache.sqlite`; "" disables it."""
    if llm_cache == "":
        return None
    return Path(llm_cache) if llm_cache is not None else cache_root(config.resources.cache_dir) / CACHE_FILE


def cache_namespace(config: Config) -> str:
    """Model settings that select a reply but are not in every model's LangChain `llm_string`."""
    model_file = os.environ.get("ANCHORGATE_GGUF", "")
    return namespace_for(
        [("llm", config.llm.model), ("model_file", model_file), ("temperature", config.llm.temperature),
         ("seed", config.llm.seed), ("n_ctx", config.llm.n_ctx), ("logprobs_top_k", TOP_LOGPROBS)]
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
    concurrency: int = 1,
    skip: int = 0,
    answer_keys: str | Path | None = None,
    strict: bool = False,
    ids: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Evaluate `presets` on a dataset into `out_dir`; returns a summary (counts, cache stats, files).

    `llm_cache`: the SQLite file of cached LLM replies (default `<cache_dir>/llm_cache.sqlite`;
    "" disables caching). `services_factory` builds the index/model bundle for a list of passages
    (tests pass fakes; default: the real embeddings and chat model). `concurrency`: runs in flight
    (reduced to 1 for a local llama.cpp model; the summary's `concurrency_note` says so). `skip`
    leaves out the first questions of the selection (`skip=150, limit=250`: questions 151–250).
    `answer_keys`: a key file scoring correctness (`eval.scoring.keys`); ClapNQ's is found beside it.
    Records the loader skipped or repaired are counted and named in the summary, metrics.json and
    report.md; `strict` makes a skipped record an error before any question is asked. `ids` keeps only
    the selected questions it lists (an id outside the selection is a usage error, exit 64).
    """
    overrides = dict(overrides or {})
    check_limit(limit)
    check_skip(skip, limit)
    requested = concurrency
    dataset = load_eval_dataset(dataset_path, fmt, corpus_path=corpus_path, limit=limit, language=language,
                                skip=skip)  # fmt: skip
    if skip and not dataset.items:
        _skip_leaves_nothing(dataset_path, fmt, corpus_path, language, skip)
    dataset = only_ids(dataset, ids)
    issues = data_issues(dataset)
    if strict and issues["skipped"]:
        first = issues["skipped"][0]
        raise EvalDataError(
            f"{len(issues['skipped'])} record(s) of the dataset cannot be read, the first at {first['where']}: "
            f"{first['reason']}",
            "fix them, or run without --strict to skip them",
        )
    keys_file = answer_keys_path(dataset, answer_keys)
    whole = limit is None and not skip and language is None  # the loaded selection is the whole dataset
    all_ids = (
        ([item.id for item in dataset.items] if whole else _all_ids(dataset_path, fmt, corpus_path))
        if keys_file
        else []
    )
    keys = load_run_keys(dataset, keys_file, all_ids)
    configs = preset_configs(presets, overrides)
    base = resolve_config("baseline", overrides)
    concurrency, note = effective_concurrency(requested, base.llm.model)
    settings = run_settings(dataset, corpus_path, language, overrides, list(configs), limit, base.llm.model, skip)
    if ids is not None:
        settings["ids"] = sorted(set(ids))
    out = Path(out_dir)
    settings = prepare_out_dir(out, settings, force=force)
    caches = CacheRegistry(cache_file(llm_cache, base))
    provider = CorpusProvider(
        dataset, services_factory or default_services_factory, lambda config: caches.get(cache_namespace(config))
    )
    try:
        with tempfile.TemporaryDirectory(prefix="anchorgate-eval-") as checkpoints:
            plan = _Plan(dataset, configs, provider, out, f"{checkpoints}/c.sqlite", caches, concurrency, keys)
            added = asyncio.run(_answer_all(plan, progress))
    finally:
        stats = caches.stats()
        caches.close()
    rescored = rescore_results(out, configs, dataset.items, keys)  # records of an earlier scoring rule
    scoring = {"answer_keys": str(keys_file) if keys_file else None,
               "answer_keys_sha256": content_hash(keys_file) if keys_file else None}  # fmt: skip
    paths = write_report(out, {**settings, **scoring, "data_issues": issues}, [item.id for item in dataset.items])
    return {"out_dir": str(out), "questions": len(dataset.items), "presets": list(configs), "new_records": added,
            "data_issues": issues,
            "rescored": rescored, "llm_cache": stats, "files": paths, "concurrency": concurrency,
            "concurrency_note": note}  # fmt: skip


@dataclass(frozen=True)
class _Plan:
    """What one invocation works through."""

    dataset: QADataset
    configs: dict[str, Config]
    provider: CorpusProvider
    out: Path
    checkpoint_db: str
    caches: CacheRegistry
    concurrency: int = 1
    keys: dict[str, AnswerKey] = field(default_factory=dict)


async def _answer_all(plan: _Plan, progress: bool) -> dict[str, int]:
    """Ask and score every (question, preset) not yet in the results; returns new records per preset.

    A record of an LLM fault does not count as done: the question is asked again (the new record wins).
    """
    done = {
        preset: {qid for qid, r in read_records(results_path(plan.out, preset)).items() if not is_llm_fault(r)}
        for preset in plan.configs
    }
    todo = [(item, preset) for item in plan.dataset.items for preset in plan.configs if item.id not in done[preset]]
    added = dict.fromkeys(plan.configs, 0)
    slots: asyncio.Queue[int] = asyncio.Queue()
    for slot in range(plan.concurrency):
        slots.put_nowait(slot)
    label = f"eval {plan.dataset.name}"
    with tqdm(total=len(todo), desc=label, unit="q", disable=not progress, dynamic_ncols=True) as bar:

        async def answer(item: QAItem, preset: str) -> None:
            slot = await slots.get()  # waiters are served in order: runs start in dataset order
            try:
                bar.set_postfix_str(preset)
                record = await _record(plan, item, preset, slot)
                append_record(results_path(plan.out, preset), record)
                added[preset] += 1
                bar.update(1)
            finally:
                slots.put_nowait(slot)

        try:
            async with asyncio.TaskGroup() as group:  # the first error cancels the runs still in flight
                for item, preset in todo:
                    group.create_task(answer(item, preset))
        except BaseExceptionGroup as errors:  # the error itself, as without concurrency (the CLI prints it)
            raise _first_error(errors) from None
    return added


def _first_error(errors: BaseExceptionGroup) -> BaseException:
    first = errors.exceptions[0]
    return _first_error(first) if isinstance(first, BaseExceptionGroup) else first


async def _record(plan: _Plan, item: QAItem, preset: str, slot: int) -> dict[str, Any]:
    """Ask and score one (question, preset) on the slot's own copy of the question's bundle."""
    config = plan.configs[preset]
    bundle, cache_view = slot_bundle(plan.provider.bundle(item, config), slot)
    answer = await _ask(item, preset, config, bundle, plan.checkpoint_db)
    record = build_record(item, preset, answer, plan.keys.get(item.id))
    record["llm_cache_hits"] = cache_view.hits if cache_view is not None else 0
    return record


async def _ask(item: QAItem, preset: str, config: Config, bundle: Bundle, checkpoint_db: str) -> dict[str, Any]:
    """One answer with `context` ({n, id, title, text}) attached; an invalid question is recorded."""
    if preset == PEER:
        return await ask_peer(item.question, bundle.services, config)
    run_config = config.replace(
        **{"resources.services_id": bundle.services_id, "resources.checkpoint_db": checkpoint_db}
    )
    try:
        result = await aask(item.question, config=run_config)
    except InvalidQuestionError as exc:
        return _error_answer(exc.one_line())
    return {**result, "context": context_passages(bundle, result.get("telemetry", {}).get("context", []))}


def _error_answer(message: str) -> dict[str, Any]:
    return {"answer": IDK_ANSWER, "short_answer": "", "decision": "ERROR", "reason": f"ERROR: {message}",
            "rounds": 0, "tokens": {"prompt": 0, "completion": 0, "total": 0, "by_stage": {}}, "latency_s": 0.0,
            "telemetry": {}, "context": []}  # fmt: skip

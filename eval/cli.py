"""`anchorgate eval`: evaluate presets (and the peer LangChain chain) on a dataset.

    anchorgate eval --dataset ../shared/datasets/crag_sample --presets baseline,A,B,peer --out runs/crag
    anchorgate eval --dataset ../shared/datasets/clapnq --limit 80 --presets baseline,A --out runs/clapnq
    anchorgate eval --dataset my_set.jsonl --answer-keys my_keys.jsonl --presets baseline,A --out runs/mine
    anchorgate eval --dataset ../shared/datasets/clapnq --skip 80 --limit 120 --presets baseline,A --out runs/clapnq
    anchorgate eval --dataset ../shared/datasets/nomiracl --language id --limit 60 --presets baseline,A --out runs/nm-id
    anchorgate eval --dataset ../shared/datasets/halueval_qa --judge-check --limit 100 --out runs/judge

Writes DIR/<preset>.jsonl, DIR/run.json, DIR/metrics.json, DIR/report.md and DIR/*.png; a killed run
resumes where it stopped; `--force` replaces a folder holding a run with other settings.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

FORMAT_HELP = "auto|crag|hotpotqa|nq-oracle|clapnq|nomiracl|squad|indonlu|halueval|falseqa|covidqa|jsonl"


def _limit(raw: str | None) -> int | None:
    """`--limit` as a number of questions; anything but a whole number ≥ 1 is a usage error (exit 64)."""
    from anchorgate.eval.errors import EvalUsageError
    from anchorgate.eval.runner import check_limit

    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError as exc:
        raise EvalUsageError(f"--limit expects a whole number of questions, got {raw!r}") from exc
    check_limit(value)
    return value


def _skip(raw: str | None, limit: int | None) -> int:
    """`--skip` as a number of questions to leave out: a whole number >= 0 below `--limit` (exit 64 otherwise)."""
    from anchorgate.eval.errors import EvalUsageError
    from anchorgate.eval.runner import check_skip

    if raw is None:
        return 0
    try:
        value = int(raw)
    except ValueError as exc:
        raise EvalUsageError(f"--skip expects a whole number of questions, got {raw!r}") from exc
    check_skip(value, limit)
    return value


def _concurrency(raw: str) -> int:
    """`--concurrency` as a whole number >= 1 (exit 64 otherwise)."""
    from anchorgate.eval.errors import EvalUsageError
    from anchorgate.eval.slots import effective_concurrency

    try:
        value = int(raw)
    except ValueError as exc:
        raise EvalUsageError(f"--concurrency expects a whole number of runs in flight, got {raw!r}") from exc
    effective_concurrency(value, "")  # below 1: the usage error
    return value


IDS_FIX = "give a text file of question ids, one per line"


def _ids(raw: str | None) -> list[str] | None:
    """The question ids of `--ids FILE` (blank lines aside); a missing or empty file is a usage error (64)."""
    from anchorgate.eval.errors import EvalUsageError

    if raw is None:
        return None
    try:
        ids = [line.strip() for line in Path(raw).read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalUsageError(f"--ids {raw!r} cannot be read: {exc}", IDS_FIX) from exc
    if not ids:
        raise EvalUsageError(f"--ids {raw!r} lists no question id", IDS_FIX)
    return ids


def add_eval_command(subparsers: Any) -> argparse.ArgumentParser:
    """Register `eval` on the `anchorgate` sub-command parser; returns its parser."""
    sub: argparse.ArgumentParser = subparsers.add_parser(
        "eval", help="evaluate presets on a QA dataset (metrics, report, plots)", description=__doc__.splitlines()[0]
    )
    sub.add_argument("--dataset", required=True, metavar="PATH", help="dataset file or folder")
    sub.add_argument("--format", default="auto", metavar="FORMAT", help=FORMAT_HELP)
    sub.add_argument("--corpus", default=None, metavar="PATH", help="pooled corpus file replacing the dataset's own")
    sub.add_argument("--language", default=None, help="keep only questions in this language (en, id, zh)")
    sub.add_argument("--presets", default="baseline,A", help="comma-separated: baseline, A, B, C, peer")
    sub.add_argument("--limit", default=None, metavar="N", help="first N questions (N >= 1)")
    sub.add_argument(
        "--skip",
        default=None,
        metavar="K",
        help="leave out the first K of the selected questions (with --limit N: questions K+1…N)",
    )
    sub.add_argument(
        "--ids",
        default=None,
        metavar="FILE",
        help="ask only the selected questions whose ids FILE lists, one per line (re-ask a few, compare a change)",
    )
    sub.add_argument(
        "--concurrency",
        default="1",
        metavar="N",
        help="questions in flight at once, for a model server (openai:, ollama:); 1 for a local model",
    )
    models = "local (1.5B), local-0.5b, gguf:/path, openai:<model>, ollama:<model>"
    sub.add_argument("--llm", default=None, metavar="SPEC", help=models)
    sub.add_argument(
        "--set", action="append", default=[], metavar="GROUP.FIELD=VALUE", help="override a setting (repeatable)"
    )
    sub.add_argument(
        "--answer-keys",
        default=None,
        metavar="FILE",
        help="answer keys scoring correctness (JSON Lines; ClapNQ's are found beside the dataset)",
    )
    sub.add_argument(
        "--strict",
        action="store_true",
        help="a dataset record that cannot be read is an error (default: skipped, counted and named)",
    )
    sub.add_argument("--out", required=True, metavar="DIR", help="output folder")
    sub.add_argument("--force", action="store_true", help="replace results of a run with other settings in DIR")
    sub.add_argument("--llm-cache", default=None, metavar="FILE", help="LLM reply cache (default: in the cache dir)")
    sub.add_argument("--no-llm-cache", action="store_true", help="do not read or write the LLM reply cache")
    sub.add_argument("--no-progress", action="store_true", help="no progress bar")
    sub.add_argument("--judge-check", action="store_true", help="HaluEval QA: measure the judge instead")
    sub.set_defaults(handler=run_eval_command)
    return sub


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    from anchorgate.graph.config import parse_assignments

    overrides = parse_assignments(args.set)
    if args.llm:
        overrides["llm.model"] = args.llm
    return overrides


def run_eval_command(args: argparse.Namespace) -> int:
    """The `eval` handler: run, print a summary, return 0 (errors raise `AnchorgateError`s)."""
    args.limit = _limit(args.limit)  # a usage error before anything else is looked at
    args.skip = _skip(args.skip, args.limit)
    args.concurrency = _concurrency(args.concurrency)
    overrides = _overrides(args)
    llm_cache = "" if args.no_llm_cache else args.llm_cache
    if args.judge_check:
        if args.skip:
            from anchorgate.eval.errors import EvalUsageError

            raise EvalUsageError("--skip does not apply to --judge-check", "leave it out; --limit N judges the first N")
        return _judge_check(args, overrides, llm_cache)
    from anchorgate.eval.runner import run_eval

    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    _warn_if_reduced(args.concurrency, overrides)
    summary = run_eval(
        args.dataset, args.format, presets, args.limit, overrides, args.out, args.force, args.corpus,
        progress=not args.no_progress, language=args.language, llm_cache=llm_cache, concurrency=args.concurrency,
        skip=args.skip, answer_keys=args.answer_keys, strict=args.strict, ids=_ids(args.ids),
    )  # fmt: skip
    print(_summary_lines(summary))
    return 0


def _warn_if_reduced(concurrency: int, overrides: dict[str, Any]) -> None:
    """Say before the run starts that a local model runs one question at a time."""
    import sys

    from anchorgate.eval.slots import effective_concurrency
    from anchorgate.graph.config import Config

    note = effective_concurrency(concurrency, str(overrides.get("llm.model") or Config().llm.model))[
        1
    ]  # presets keep llm
    if note:
        print(f"warning: {note}", file=sys.stderr)


def _summary_lines(summary: dict[str, Any]) -> str:
    metrics = json.loads(Path(summary["files"]["metrics"]).read_text(encoding="utf-8"))
    rescored = {p: n for p, n in summary.get("rescored", {}).items() if n}
    lines = [f"{summary['questions']} questions · new records {summary['new_records']} · "
             + (f"rescored {rescored} · " if rescored else "") + f"LLM cache {summary['llm_cache']}"]  # fmt: skip
    for preset, s in metrics["presets"].items():
        lines.append(
            f"{preset:>8}: right {s['right']} · wrong {s['wrong']} · abstained {s['abstained']} · "
            f"CRAG {s['crag_score_mean']} · F1 {s['f1_mean']} · tokens/Q {s['tokens_mean']}"
            f" · LLM faults {s['llm_faults']}"
        )
    issues = summary.get("data_issues") or {}
    for kind, verb in (("skipped", "skipped (not asked)"), ("repaired", "repaired and kept")):
        entries = issues.get(kind) or []
        if entries:
            first = entries[0]
            lines.append(f"warning: {len(entries)} dataset record(s) {verb}, the first at {first['where']}: "
                         f"{first['reason']} (all in report.md)")  # fmt: skip
    faults = sum(s["llm_faults"] for s in metrics["presets"].values())
    if faults:
        lines.append(f"{faults} run(s) hit an LLM fault (not scored, listed in the report); "
                     "run the same command again to retry them")  # fmt: skip
    lines.append(f"report: {summary['files']['report']}")
    return "\n".join(lines)


def _judge_check(args: argparse.Namespace, overrides: dict[str, Any], llm_cache: str | None) -> int:
    from anchorgate.eval.judge_check import judge_accuracy
    from anchorgate.eval.store import check_out_path, ensure_out_dir, write_json

    llm = overrides.pop("llm.model", "local")
    out = Path(args.out)
    check_out_path(out)  # before the judge runs, not after
    try:
        result = judge_accuracy(args.dataset, args.limit, llm, overrides=overrides, llm_cache=llm_cache)
    except Exception as exc:  # noqa: BLE001 — a failed LLM call is not a verdict: exit 69; anything else is raised
        fault = _llm_fault_error(exc)
        if fault is None:
            raise
        raise fault from exc
    ensure_out_dir(out)
    write_json(out / "judge_check.json", result)
    print(f"judge on {result['items']} HaluEval items: accuracy {result['accuracy']} · accept right "
          f"{result['accept_right_rate']} · reject hallucinated {result['reject_hallucinated_rate']} "
          f"(strict {result['reject_hallucinated_strict_rate']}) · malformed {result['malformed']}")  # fmt: skip
    print(f"details: {out / 'judge_check.json'}")
    return 0


def _llm_fault_error(exc: Exception) -> Exception | None:
    """The LLMFaultError (exit 69) a failed LLM call stands for; None for any other exception."""
    from anchorgate.tools.errors import AnchorgateError, LLMFaultError
    from anchorgate.tools.llm.faults import classify_fault, fault_message

    fault = classify_fault(exc)
    if isinstance(exc, AnchorgateError) or not fault.provider:
        return None
    record = {"stage": "judge", "fault": fault.kind, "reason": fault.reason, "error": fault.detail, "attempts": None}
    return LLMFaultError(*fault_message(record))


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (`python -m anchorgate.eval.cli eval …`): errors become one line + exit code."""
    import sys

    from anchorgate.tools.errors import AnchorgateError

    parser = argparse.ArgumentParser(prog="anchorgate")
    add_eval_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except AnchorgateError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted (run the same command again to resume)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())

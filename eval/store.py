"""The output folder of an evaluation: run settings (`run.json`) and per-preset JSON Lines results.

`<preset>.jsonl` gets one record per question, appended and fsynced as soon as it is scored, so
a killed run loses at most the question in flight. On restart the ids already present are
skipped; a last line cut off mid-write is dropped from the file before anything is appended.

`run.json` records what the numbers depend on. A folder holding a run whose *identity* settings
(dataset content, format, language filter, corpus content, overrides, model) differ is refused
unless `force`, which deletes the previous run's files first. The limit and the preset list are
not identity: a later run with a larger limit or more presets extends the same folder.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anchorgate.eval.errors import EvalError, EvalOutputError

LOG = logging.getLogger(__name__)
RUN_FILE = "run.json"
SCHEMA_VERSION = 1
IDENTITY_KEYS = ("schema", "dataset_sha256", "format", "language", "corpus_sha256", "overrides", "llm", "model_file")
REPORT_FILES = ("metrics.json", "report.md")
PLOT_GLOBS = ("pareto.png", "bar_*.png", "risk_coverage.png")


def content_hash(path: str | Path | None) -> str | None:
    """SHA-256 of a file, or of a folder's files (relative names and bytes, sorted); None for None."""
    if path is None:
        return None
    root = Path(path)
    digest = hashlib.sha256()
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and not _hidden(p, root))
    for file in files:
        digest.update(str(file.relative_to(root) if file != root else file.name).encode("utf-8") + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def results_path(out: Path, preset: str) -> Path:
    """Where the records of `preset` live."""
    return out / f"{preset}.jsonl"


def identity(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings two runs must share to write into one folder."""
    return {key: settings.get(key) for key in IDENTITY_KEYS}


def check_out_path(out: Path) -> None:
    """Refuse an output path that names a file, before any work (EvalOutputError, exit 73); changes nothing."""
    if out.exists() and not out.is_dir():
        raise EvalOutputError(f"--out {out} is a file, not a folder", "name a folder; it is created if missing")


def ensure_out_dir(out: Path) -> None:
    """Create the output folder `out` (and its parents); one that cannot be made is an EvalOutputError (73)."""
    check_out_path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a parent that is a file, no permission, a read-only disk
        raise EvalOutputError(f"cannot create the output folder {out}: {exc.strerror or exc}",
                              "choose a folder you can write to") from exc  # fmt: skip


def prepare_out_dir(out: Path, settings: dict[str, Any], *, force: bool) -> dict[str, Any]:
    """Create or reuse `out` for a run with `settings`; returns the settings written to run.json."""
    ensure_out_dir(out)
    previous = _previous_settings(out, settings["presets"], force)
    if previous is not None and identity(previous) != identity(settings) and not force:
        changed = sorted(k for k in IDENTITY_KEYS if previous.get(k) != settings.get(k))
        raise EvalError(
            f"{out} holds results of a run with different settings ({', '.join(changed)} differ)",
            "use another --out folder, or --force to delete those results and start over",
        )
    if force:
        _remove_outputs(out, previous, settings["presets"])
        previous = None
    merged = dict(settings)
    if previous is not None:
        merged["presets"] = list(dict.fromkeys([*previous.get("presets", []), *settings["presets"]]))
        merged["created_utc"] = previous.get("created_utc", settings.get("created_utc"))
    merged.setdefault("created_utc", _now())
    merged["updated_utc"] = _now()
    write_json(out / RUN_FILE, merged)
    return merged


def _previous_settings(out: Path, presets: list[str], force: bool) -> dict[str, Any] | None:
    """The settings in run.json; results without a readable run.json are refused unless forced."""
    path = out / RUN_FILE
    if not path.is_file():
        if any(results_path(out, p).exists() for p in presets) and not force:
            raise EvalError(f"{out} holds .jsonl results but no {RUN_FILE}", "use another --out folder or --force")
        return None
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        if force:
            return None
        raise EvalError(f"{path} is unreadable ({exc})", "use another --out folder or --force") from exc
    if not isinstance(loaded, dict):
        if force:
            return None
        raise EvalError(f"{path} is not a run settings object", "use another --out folder or --force")
    return loaded


def _remove_outputs(out: Path, previous: dict[str, Any] | None, presets: list[str]) -> None:
    """Delete the files a previous run wrote (results, report, plots, run.json) — nothing else."""
    names = [*(previous.get("presets", []) if previous else []), *presets]
    targets = [results_path(out, p) for p in dict.fromkeys(names)] + [out / f for f in (*REPORT_FILES, RUN_FILE)]
    targets += [p for pattern in PLOT_GLOBS for p in out.glob(pattern)]
    for target in targets:
        if target.is_file():
            target.unlink()


def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """Records by id (the last one wins); a cut-off last line is removed from the file."""
    if not path.is_file():
        return {}
    data = path.read_bytes()
    complete, _, tail = data.rpartition(b"\n") if not data.endswith(b"\n") else (data[:-1], b"\n", b"")
    records: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(complete.splitlines(), start=1):
        record = _parse(line)
        if record is None:
            LOG.warning("%s line %d is not a result record; it will be recomputed", path, number)
            continue
        records[str(record["id"])] = record
    if tail:
        _repair_tail(path, data, tail, records)
    return records


def _parse(line: bytes) -> dict[str, Any] | None:
    if not line.strip():
        return None
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return record if isinstance(record, dict) and "id" in record else None


def _repair_tail(path: Path, data: bytes, tail: bytes, records: dict[str, dict[str, Any]]) -> None:
    """A last line without its newline: keep it if it is a whole record, else cut it off."""
    record = _parse(tail)
    with path.open("r+b") as handle:
        if record is not None:
            handle.seek(0, os.SEEK_END)
            handle.write(b"\n")
            records[str(record["id"])] = record
        else:
            LOG.warning("%s: dropping a partially written last line", path)
            handle.truncate(len(data) - len(tail))


def append_record(path: Path, record: dict[str, Any]) -> None:
    """Append one record as a JSON line and make it durable before returning."""
    line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


def rewrite_records(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Replace the file's records atomically (temp file, fsync, rename): a kill leaves old or new."""
    temp = path.with_suffix(path.suffix + ".tmp")
    with temp.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)


def load_results(out: Path, presets: Iterable[str], ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """Per preset, the records of `ids` in that order (questions not yet scored are absent)."""
    wanted = list(ids)
    results: dict[str, list[dict[str, Any]]] = {}
    for preset in presets:
        records = read_records(results_path(out, preset))
        results[preset] = [records[i] for i in wanted if i in records]
    return results


def write_json(path: Path, payload: Any, *, sort_keys: bool = True) -> None:
    """Write `payload` as indented JSON atomically (temp file + rename)."""
    temp = path.with_suffix(path.suffix + ".tmp")
    text = json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=sort_keys)
    temp.write_text(text + "\n", encoding="utf-8")
    os.replace(temp, path)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

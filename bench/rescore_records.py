"""Score every committed evaluation record again with the current scorer, and say what moved.

    .venv/bin/python bench/rescore_records.py [--root bench/results] [--dry-run]

For every run folder under `--root` (a folder with run.json), each `<preset>.jsonl` record is scored
again by `eval.scoring` (`scoring.records.rescore`: no model call, no dataset; ClapNQ records with
ClapNQ's answer keys), the file is rewritten when a score changed, and metrics.json, report.md and
the plots are written again. Old figures are read from each folder's metrics.json as it was.
Writes bench/results/rescore_records.json: per folder and preset, right / wrong / abstained before
and after, and per dataset the questions whose verdict changed, by direction.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from anchorgate.eval.report import write_report
from anchorgate.eval.scoring.keys import AnswerKey, load_answer_keys
from anchorgate.eval.scoring.records import rescore
from anchorgate.eval.store import read_records, results_path, rewrite_records

REPO = Path(__file__).resolve().parents[1]
KEYS = {"clapnq": REPO.parent / "shared" / "datasets" / "clapnq_answer_keys" / "answer_keys.jsonl"}
STALE_PLOTS = ("bar_overlap_mean.png",)
Record = dict[str, Any]


def verdict(record: Record) -> str:
    """right / wrong / abstained / unscored, from a record's CRAG score."""
    return {1: "right", -1: "wrong", 0: "abstained"}.get(record.get("crag_score"), "unscored")  # type: ignore[arg-type]


def dataset_key(settings: dict[str, Any]) -> str:
    """The dataset folder name, with the language filter when there is one (nomiracl/id)."""
    name = Path(str(settings.get("dataset_path", "?"))).name
    return f"{name}/{settings['language']}" if settings.get("language") else name


def old_counts(folder: Path) -> dict[str, dict[str, int]]:
    """right / wrong / abstained per preset as the folder's metrics.json had them."""
    path = folder / "metrics.json"
    if not path.exists():
        return {}
    presets = json.loads(path.read_text(encoding="utf-8")).get("presets", {})
    counts = {p: s["crag_counts"] for p, s in presets.items() if "crag_counts" in s}
    return {p: {"right": c["correct"], "wrong": c["incorrect"], "abstained": c["missing"]} for p, c in counts.items()}


def rescore_folder(folder: Path, keys: dict[str, AnswerKey], dry_run: bool) -> tuple[dict[str, Any], Counter[str]]:
    """Rescore one run folder; returns its old/new figures and the verdict changes."""
    settings = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    before = old_counts(folder)
    moves: Counter[str] = Counter()
    figures: dict[str, Any] = {}
    ids: list[str] = []
    presets = [p for p in settings.get("presets", []) if results_path(folder, p).exists()]
    for preset in presets:
        path = results_path(folder, preset)
        records = read_records(path)
        fresh = {qid: rescore(r, keys.get(qid) if r.get("answerable", True) else None) for qid, r in records.items()}
        ids += [qid for qid in records if qid not in ids]
        for qid, record in records.items():
            old, new = verdict(record), verdict(fresh[qid])
            if old != new:
                moves[f"{old} → {new}"] += 1
        after = Counter(verdict(r) for r in fresh.values())
        figures[preset] = {
            "before": before.get(preset),
            "after": {k: after[k] for k in ("right", "wrong", "abstained")},
        }
        if not dry_run and fresh != records:
            rewrite_records(path, fresh.values())
    if not dry_run and presets:
        scoring = {"answer_keys": str(KEYS.get(str(settings.get("format")), "")) or None}
        write_report(folder, {**settings, **scoring, "presets": presets}, ids)
        for name in STALE_PLOTS:
            (folder / name).unlink(missing_ok=True)
    return figures, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO / "bench" / "results")
    parser.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="TEXT",
        help="leave out folders whose path contains TEXT (e.g. a run still writing)",
    )
    args = parser.parse_args()
    keys = {fmt: load_answer_keys(path) for fmt, path in KEYS.items()}
    folders: dict[str, Any] = {}
    by_dataset: dict[str, Counter[str]] = defaultdict(Counter)
    for run_file in sorted(args.root.rglob("run.json")):
        folder = run_file.parent
        if any(text in str(folder) for text in args.exclude):
            continue
        settings = json.loads(run_file.read_text(encoding="utf-8"))
        fmt_keys = keys.get(str(settings.get("format")), {})
        figures, moves = rescore_folder(folder, fmt_keys, args.dry_run)
        folders[str(folder.relative_to(REPO))] = {"dataset": dataset_key(settings), "presets": figures,
                                                  "moves": dict(moves)}  # fmt: skip
        by_dataset[dataset_key(settings)] += moves
    result = {"folders": folders, "verdict_changes_by_dataset": {k: dict(v) for k, v in sorted(by_dataset.items())}}
    out = REPO / "bench" / "results" / "rescore_records.json"
    if not args.dry_run:
        out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for dataset, moves in sorted(by_dataset.items()):
        print(f"{dataset}: {dict(moves) or 'no verdict changed'}")
    print(f"{len(folders)} run folders" + ("" if args.dry_run else f"; written to {out.relative_to(REPO)}"))


if __name__ == "__main__":
    main()

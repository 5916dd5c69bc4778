"""Issue 12 item 3: anchor quality on questions as users type them, old (commit a4daebe) vs new extractor.

    .venv/bin/python bench/anchor_quality.py [--n 200] [--old-ref a4daebe] [--name anchor_quality]

No model, no index: for the first N questions of NQ-Open (oracle), ClapNQ (answerable) and
HotpotQA (all 100 there are) it extracts anchors with the extractor in `git show REF:tools/anchors.py`
("old") and the working-tree `tools/question/anchors/` ("new") and checks them against the gold
evidence (title + text of each gold passage: NQ `isgold`, ClapNQ the passage holding the selected
sentences, HotpotQA the supporting-fact titles). Each set is split in halves: the first half is
where the rules were tuned, the second is held out and reported separately.

Columns (shares of questions unless said otherwise):
  all_ess_in_gold   every essential anchor is covered by the gold evidence, by that version's own
                    `anchor_coverage` (what the gate would see). A miss is a false "missing anchor":
                    the gate would retrieve again / abstain although the answer is in the evidence.
  all_ess_strict    the same with one strict rule for both versions: each essential anchor (or an
                    alias) occurs case-insensitively as a contiguous word sequence.
  any_ess           at least one essential anchor (a question the coverage check can say anything about)
  useful            at least one essential anchor and all of them in the gold evidence
  ess_precision     essential anchors (all questions pooled) found in the gold evidence, by `anchor_coverage`
  any_anchor        at least one anchor of any kind
  anchors, essential, workers   mean per question (workers: confidence >= 0.5 and not a keyword,
                    the anchors that get a retriever worker of their own)
Results: bench/results/<name>.json and .md (the .md also lists the held-out misses).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATASETS, REPO, RESULTS, write_result  # noqa: E402

from anchorgate.eval.datasets import load_dataset  # noqa: E402
from anchorgate.tools.answer import anchors as new_anchors  # noqa: E402
from anchorgate.tools.answer.text import normalize_words  # noqa: E402

SETS = (
    ("nq_open", "nq_open_oracle"),
    ("clapnq", "clapnq/clapnq_dev_answerable.jsonl"),
    ("hotpotqa", "hotpotqa_sample/hotpotqa_train.json"),
)
WORKER_CONFIDENCE = 0.5  # tools/question/anchors/coverage.py MIN_WORKER_CONFIDENCE


def load_old(ref: str) -> types.ModuleType:
    """tools/anchors.py as committed at `ref`, imported as its own module."""
    source = subprocess.run(
        ["git", "show", f"{ref}:tools/anchors.py"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    name = "anchorgate.tools._anchors_old"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    exec(compile(source, f"{ref}:tools/anchors.py", "exec"), module.__dict__)  # noqa: S102
    return module


def strict_present(anchor: Any, texts: Sequence[str]) -> bool:
    """Some surface form of the anchor occurs as a contiguous, case-insensitive word sequence."""
    for form in (anchor.text, *anchor.aliases):
        words = normalize_words(form)
        n = len(words)
        for text in texts:
            tokens = normalize_words(text)
            if words and any(tokens[i : i + n] == words for i in range(len(tokens) - n + 1)):
                return True
    return False


def score(items: list[Any], module: types.ModuleType) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The columns above for one extractor over some items, and the questions with a false missing anchor."""
    extract: Callable[[str], list[Any]] = module.extract_anchors
    coverage: Callable[..., tuple[float, list[Any]]] = module.anchor_coverage
    totals = dict.fromkeys(
        ("all_ess_in_gold", "all_ess_strict", "any_ess", "useful", "any_anchor", "anchors", "essential", "workers"),
        0.0,
    )
    ess_total = ess_found = 0
    misses: list[dict[str, Any]] = []
    for item in items:
        gold = [f"{p.title} {p.text}" for p in item.passages if p.id in item.gold_passage_ids]
        anchors = extract(item.question)
        essential = [a for a in anchors if a.essential]
        _, missing = coverage(anchors, gold)
        all_in = not missing
        totals["all_ess_in_gold"] += all_in
        totals["all_ess_strict"] += all(strict_present(a, gold) for a in essential)
        totals["any_ess"] += bool(essential)
        totals["useful"] += bool(essential) and all_in
        totals["any_anchor"] += bool(anchors)
        totals["anchors"] += len(anchors)
        totals["essential"] += len(essential)
        totals["workers"] += sum(a.confidence >= WORKER_CONFIDENCE and a.kind != "keyword" for a in anchors)
        ess_total += len(essential)
        ess_found += len(essential) - len(missing)
        if missing:
            misses.append({"question": item.question, "missing": [a.text for a in missing]})
    n = max(len(items), 1)
    row = {key: round(value / n, 3) for key, value in totals.items()}
    row["ess_precision"] = round(ess_found / ess_total, 3) if ess_total else 1.0
    row["n"] = len(items)
    return row, misses


LEGEND = (
    "all_ess_in_gold: every essential anchor is in the gold evidence by that version's own anchor_coverage "
    "(a miss = a false missing anchor for the gate); all_ess_strict: same, each anchor as a contiguous "
    "case-insensitive phrase; useful: ≥ 1 essential anchor and all in the gold evidence; any_ess: ≥ 1 essential "
    "anchor; ess_precision: essential anchors found / essential anchors; any_anchor: ≥ 1 anchor; anchors, "
    "essential, workers: means per question (workers: anchors with their own retriever worker)."
)
COLUMNS = (
    "all_ess_in_gold", "all_ess_strict", "useful", "any_ess", "ess_precision", "any_anchor",
    "anchors", "essential", "workers",
)  # fmt: skip


def markdown(results: dict[str, Any], command: str) -> str:
    lines = [
        "# Anchor quality: old (commit a4daebe) vs new extractor",
        "",
        f"`{command}`",
        "",
        "The rules for questions without capitals were tuned on the `tune` half of NQ-Open and ClapNQ",
        "(questions looked at one by one); `heldout` questions were never looked at one by one (their",
        "aggregate scores were seen during development; NQ-Open questions 200-799 served as extra, inspected",
        "validation and are not reported).",
        f"`nq_open[N:]` is the rest of NQ-Open from question N (a second held-out set). {LEGEND}",
        "",
        "| set | half | n | version | " + " | ".join(COLUMNS) + " |",
        "|---|---|---|---|" + "---|" * len(COLUMNS),
    ]
    for name, halves in results["sets"].items():
        for half, versions in halves.items():
            for version in ("old", "new"):
                row = versions[version]
                cells = " | ".join(str(row[c]) for c in COLUMNS)
                lines.append(f"| {name} | {half} | {row['n']} | {version} | {cells} |")
    lines += ["", "## Held-out questions with a false missing anchor (new extractor)", ""]
    for name, halves in results["sets"].items():
        if name.startswith("nq_open["):
            continue
        for miss in halves["heldout"]["new_misses"]:
            lines.append(f"- {name}: {miss['question']!r} — missing {miss['missing']}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="questions per set (HotpotQA has 100)")
    parser.add_argument("--old-ref", default="a4daebe", help="git revision of the old tools/anchors.py (pre issue 12)")
    parser.add_argument("--name", default="anchor_quality")
    parser.add_argument("--show-misses", choices=("tune", "heldout", "none"), default="none")
    parser.add_argument(
        "--nq-extra", type=int, default=800, metavar="START",
        help="also score NQ-Open questions START..end as a second held-out set (0: skip)",
    )  # fmt: skip
    args = parser.parse_args()
    old = load_old(args.old_ref)
    results: dict[str, Any] = {"n_per_set": args.n, "old_ref": args.old_ref, "tuned_on": "tune", "sets": {}}
    for name, rel in SETS:
        items = list(load_dataset(DATASETS / rel, limit=args.n).items)
        middle = len(items) // 2
        halves = {"tune": items[:middle], "heldout": items[middle:]}
        results["sets"][name] = {}
        for half, chunk in halves.items():
            old_row, _ = score(chunk, old)
            new_row, new_misses = score(chunk, new_anchors)
            results["sets"][name][half] = {"old": old_row, "new": new_row, "new_misses": new_misses}
            if args.show_misses == half:
                for miss in new_misses:
                    print(f"MISS {name}: {miss['question']!r} {miss['missing']}")
    if args.nq_extra:
        items = list(load_dataset(DATASETS / "nq_open_oracle").items)[args.nq_extra :]
        old_row, _ = score(items, old)
        new_row, new_misses = score(items, new_anchors)
        label = f"nq_open[{args.nq_extra}:]"
        results["sets"][label] = {"heldout": {"old": old_row, "new": new_row, "new_misses": new_misses}}
    command = " ".join(["python", "bench/anchor_quality.py", *sys.argv[1:]])
    results["command"] = command
    path = write_result(args.name, results)
    md = RESULTS / f"{args.name}.md"
    md.write_text(markdown(results, command), encoding="utf-8")
    print(md.read_text(encoding="utf-8").split("\n## ")[0])
    print(f"wrote {path} and {md}")


if __name__ == "__main__":
    main()

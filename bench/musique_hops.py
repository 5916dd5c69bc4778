"""Multi-hop questions answered hop by hop: preset A with `gate.follow_hops` against A and baseline on MuSiQue.

    .venv/bin/python bench/musique_hops.py [--out bench/results/eval_1p5b_2026-11-28_musique_oracle/musique_hops.json]

Reads the records of `anchorgate eval` runs on MuSiQue 71–100 (`RUNS`, under `bench/results/`):
baseline and A, A with `--set gate.follow_hops=true` (its parser's plans), before and after inner hops
were read in the quoted style and with the final answer's asked kind checked (`answer_wrong_kind`),
and A with MuSiQue's own hops as the plan (`bench/musique_oracle_plan.py`,
a diagnostic of what the planner loses); also HotpotQA 71–100, baseline and A against A with the hops
followed (`hotpotqa`), the two-hop set the hop following must not make worse. "A (2026-11-28)" is A
again on the product and machine of the hop runs beside it: A's older records came from another build.
Reports, per system, right, wrong, abstained, mean F1 and tokens per question, and paired
differences with bootstrap 95% intervals. A "bridge answer" is a final answer equal to the gold
answer of one of MuSiQue's own inner hops (`extra.hops`, read here to check, never by the product):
the answer to an inner question.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anchorgate.eval.scoring.paired import format_difference, paired_bootstrap  # noqa: E402
from anchorgate.eval.scoring.text import normalize_answer  # noqa: E402
from anchorgate.eval.store import read_records  # noqa: E402

DATASET = REPO.parent / "shared" / "datasets" / "musique" / "musique_41_100.jsonl"
RESULTS = REPO / "bench" / "results"
_BEFORE, _AFTER = "eval_1p5b_2026-11-27_musique", "eval_1p5b_2026-11-28_musique_oracle"
RUNS = {
    "baseline": f"{_BEFORE}/base_a71_100/baseline.jsonl",
    "A": f"{_BEFORE}/base_a71_100/A.jsonl",
    "A + hops": f"{_BEFORE}/a_hops71_100/A.jsonl",  # product at 1d180ee
    "A + hops, inner hops quoted": f"{_AFTER}/a_hops71_100/A.jsonl",  # product at e1054df, as below
    "A + MuSiQue's plans": f"{_AFTER}/a_oracle71_100/A.jsonl",
    "A + MuSiQue's plans, inner hops quoted": f"{_AFTER}/a_oracle71_100_quoted/A.jsonl",
    "A + MuSiQue's plans, inner hops quoted, no unanchored withdrawal": f"{_AFTER}/a_oracle71_100_anchored_off/A.jsonl",
    "A + hops, asked kind checked": "eval_1p5b_2026-11-28_asked_kind/musique71_100/A.jsonl",  # ad19fab + the check
    "A (2026-11-28)": "eval_1p5b_2026-11-28_asked_kind/musique71_100_A/A.jsonl",  # the same product and machine
}
HOTPOT_RUNS = {  # HotpotQA 71-100: what hop following does to two-hop questions of another kind
    "baseline": "eval_1p5b_2026-11-27_off_topic/hotpot71_100/baseline.jsonl",
    "A": "eval_1p5b_2026-11-28_hop_retrieval/hotpot71_100/A/A.jsonl",  # product at 1d180ee
    "A + hops, asked kind checked": "eval_1p5b_2026-11-28_asked_kind/hotpot71_100/A.jsonl",
    "A (2026-11-28)": "eval_1p5b_2026-11-28_asked_kind/hotpot71_100_A/A.jsonl",  # the same product and machine
}
HOTPOT_PAIRS = [("A + hops, asked kind checked", "baseline"), ("A + hops, asked kind checked", "A"),
                ("A + hops, asked kind checked", "A (2026-11-28)"), ("A (2026-11-28)", "A")]
PAIRS = [(name, reference) for name in RUNS if name.startswith("A + ") for reference in ("baseline", "A")] + [
    ("A", "baseline"), ("A + hops, inner hops quoted", "A + hops"),
    ("A + MuSiQue's plans, inner hops quoted", "A + hops, inner hops quoted"),
    ("A + hops, asked kind checked", "A + hops, inner hops quoted"),
    ("A + hops, asked kind checked", "A (2026-11-28)"), ("A (2026-11-28)", "A"),
]  # fmt: skip


def inner_answers() -> dict[str, set[str]]:
    """Each question's inner-hop gold answers, normalised (the last hop's answer is the question's)."""
    found = {}
    for line in DATASET.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        found[item["id"]] = {normalize_answer(h["answer"]) for h in item["extra"]["hops"][:-1]}
    return found


def outcome(record: dict[str, Any]) -> str:
    if record.get("abstained"):
        return "abstained"
    return {1: "right", -1: "wrong"}.get(record.get("crag_score"), "unscored")  # type: ignore[arg-type]


def summary(records: dict[str, dict[str, Any]], inner: dict[str, set[str]]) -> dict[str, Any]:
    n = len(records)
    outcomes = [outcome(r) for r in records.values()]
    bridges = [q for q, r in records.items() if not r.get("abstained")
               and normalize_answer(r.get("short_answer") or r.get("prediction") or "") in inner[q]]  # fmt: skip
    return {
        "n": n,
        **{o: outcomes.count(o) for o in ("right", "wrong", "abstained")},
        "f1": round(sum(float(r.get("f1") or 0.0) for r in records.values()) / n, 3),
        "tokens": round(sum(int(r["tokens"]["total"]) for r in records.values()) / n, 1),
        "bridge_answers": len(bridges),
    }


def paired(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> dict[str, str]:
    """a − b on the questions both answered: right, wrong, abstained and F1 with 95% intervals."""
    ids = sorted(set(a) & set(b))
    diffs = {o: format_difference(paired_bootstrap([float(outcome(b[q]) == o) for q in ids],
                                                   [float(outcome(a[q]) == o) for q in ids]))
             for o in ("right", "wrong", "abstained")}  # fmt: skip
    f1 = paired_bootstrap([float(b[q].get("f1") or 0.0) for q in ids], [float(a[q].get("f1") or 0.0) for q in ids])
    diffs["f1"] = format_difference(f1, as_mean=True)
    return diffs


def load(named_paths: dict[str, str]) -> dict[str, dict[str, dict[str, Any]]]:
    """Each committed run's records by question id, leaving out model faults (a run not there is skipped)."""
    return {name: {q: r for q, r in read_records(RESULTS / path).items() if not r.get("llm_fault")}
            for name, path in named_paths.items() if (RESULTS / path).exists()}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(RESULTS / _AFTER / "musique_hops.json"))
    args = parser.parse_args(argv)
    runs = load(RUNS)
    inner = inner_answers()
    result: dict[str, Any] = {"systems": {name: summary(recs, inner) for name, recs in runs.items()}, "paired": {}}
    for a, b in PAIRS:
        if a in runs and b in runs:
            result["paired"][f"{a} − {b}"] = paired(runs[a], runs[b])
    hotpot = load(HOTPOT_RUNS)
    no_hops: dict[str, set[str]] = {q: set() for recs in hotpot.values() for q in recs}
    result["hotpotqa"] = {
        "systems": {name: summary(recs, no_hops) for name, recs in hotpot.items()},
        "paired": {f"{b} − {a}": paired(hotpot[b], hotpot[a]) for b, a in HOTPOT_PAIRS if a in hotpot and b in hotpot},
    }  # fmt: skip
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

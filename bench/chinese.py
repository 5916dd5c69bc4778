"""Chinese on real data: NoMIRACL-zh abstention and answering, CMRC2018 right answers and character F1.

    .venv/bin/python bench/chinese.py [--folder bench/results/eval_1p5b_2026-11-28_chinese]

Reads the records of `anchorgate eval` runs in the folder:
- `nomiracl_zh_tune_before/A.jsonl` (A before the Chinese quote check) and `nomiracl_zh_tune_check/A.jsonl`
  (A with it): the tune rows, upstream 126–187 of each subset (eval rows 1–124);
- `nomiracl_zh_report_baseline/baseline.jsonl` and `nomiracl_zh_report/{A,B}.jsonl`: the report rows,
  upstream 188–250 (eval rows 125–250);
- `cmrc301_600_baseline/baseline.jsonl` and `cmrc301_600/{A,B}.jsonl`: CMRC2018 questions 301–600, every
  10th (`cmrc301_600_every10.ids`).

NoMIRACL has no gold answer: on a non-relevant set the right behaviour is to abstain, on a relevant
set to answer. CMRC2018 is scored by the harness (character F1, CMRC's convention; right / wrong by the
answer keys' rules). Differences are paired bootstrap 95% intervals (`eval.scoring.paired`). For the
quote check, each answer it withdrew is listed with what its quotes lacked. Writes `chinese.json`.
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
from anchorgate.eval.store import read_records  # noqa: E402

Records = dict[str, dict[str, Any]]
NOMIRACL = {
    "tune": {"A before the check": "nomiracl_zh_tune_before/A.jsonl", "A": "nomiracl_zh_tune_check/A.jsonl"},
    "report": {"baseline": "nomiracl_zh_report_baseline/baseline.jsonl", "A": "nomiracl_zh_report/A.jsonl",
               "B": "nomiracl_zh_report/B.jsonl"},
}  # fmt: skip
CMRC = {"baseline": "cmrc301_600_baseline/baseline.jsonl", "A": "cmrc301_600/A.jsonl", "B": "cmrc301_600/B.jsonl"}


def _load(path: Path) -> Records:
    return {q: r for q, r in read_records(path).items() if not r.get("llm_fault")} if path.exists() else {}


def relevant(question_id: str) -> bool:
    """NoMIRACL ids: "<query>#<n>" in the relevant subset, "<query>-<n>" in the non-relevant one."""
    return "#" in question_id.split(":", 1)[-1]


def _tokens(records: Records) -> float:
    return round(sum(int(r["tokens"]["total"]) for r in records.values()) / max(len(records), 1), 1)


def nomiracl_summary(records: Records) -> dict[str, Any]:
    rel = [r for q, r in records.items() if relevant(q)]
    non = [r for q, r in records.items() if not relevant(q)]
    return {
        "relevant": len(rel), "non_relevant": len(non),
        "relevant_answered": round(sum(not r["abstained"] for r in rel) / max(len(rel), 1), 3),
        "non_relevant_abstained": round(sum(bool(r["abstained"]) for r in non) / max(len(non), 1), 3),
        "tokens": _tokens(records),
    }  # fmt: skip


def _paired(a: Records, b: Records, value: Any, ids: list[str]) -> str:
    """b − a of a 0/1 value over `ids`, as a count with its interval."""
    return format_difference(paired_bootstrap([float(value(a[q])) for q in ids], [float(value(b[q])) for q in ids]))


def nomiracl_paired(a: Records, b: Records) -> dict[str, str]:
    ids = sorted(set(a) & set(b))
    return {
        "non_relevant_abstained": _paired(a, b, lambda r: r["abstained"], [q for q in ids if not relevant(q)]),
        "relevant_answered": _paired(a, b, lambda r: not r["abstained"], [q for q in ids if relevant(q)]),
    }


def withdrawn_by_check(records: Records) -> list[dict[str, Any]]:
    """The answers the quote check withdrew, with what their quotes lacked."""
    found = []
    for q, r in records.items():
        for entry in (r.get("telemetry") or {}).get("gate") or []:
            if "OFF_QUESTION" in str(entry.get("reason")):
                found.append({"id": q, "relevant_set": relevant(q), "question": r["question"],
                              "draft": (r["telemetry"].get("draft_structure") or {}).get("answer"),
                              "lacks": entry.get("answer_off_question")})  # fmt: skip
                break
    return found


def outcome(record: dict[str, Any]) -> str:
    if record.get("abstained"):
        return "abstained"
    return {1: "right", -1: "wrong"}.get(record.get("crag_score"), "unscored")  # type: ignore[arg-type]


def cmrc_summary(records: Records) -> dict[str, Any]:
    outcomes = [outcome(r) for r in records.values()]
    n = max(len(records), 1)
    f1 = round(sum(float(r.get("f1") or 0.0) for r in records.values()) / n, 3)
    return {"n": len(records), **{o: outcomes.count(o) for o in ("right", "wrong", "abstained")}, "f1": f1,
            "tokens": _tokens(records)}  # fmt: skip


def cmrc_paired(a: Records, b: Records) -> dict[str, str]:
    ids = sorted(set(a) & set(b))
    diffs = {o: _paired(a, b, lambda r, o=o: outcome(r) == o, ids) for o in ("right", "wrong", "abstained")}
    f1 = paired_bootstrap([float(a[q].get("f1") or 0.0) for q in ids], [float(b[q].get("f1") or 0.0) for q in ids])
    diffs["f1"] = format_difference(f1, as_mean=True)
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(REPO / "bench/results/eval_1p5b_2026-11-28_chinese"))
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    result: dict[str, Any] = {"nomiracl_zh": {}, "cmrc2018": {}}
    for split, runs in NOMIRACL.items():
        loaded = {name: _load(folder / path) for name, path in runs.items()}
        loaded = {name: recs for name, recs in loaded.items() if recs}
        part: dict[str, Any] = {"systems": {n: nomiracl_summary(r) for n, r in loaded.items()}, "paired": {}}
        for name, recs in loaded.items():
            reference = "A before the check" if split == "tune" else "baseline"
            if name != reference and reference in loaded:
                part["paired"][f"{name} − {reference}"] = nomiracl_paired(loaded[reference], recs)
        if "A" in loaded:
            part["withdrawn_by_quote_check"] = withdrawn_by_check(loaded["A"])
        result["nomiracl_zh"][split] = part
    cmrc = {name: recs for name, path in CMRC.items() if (recs := _load(folder / path))}
    result["cmrc2018"] = {"systems": {n: cmrc_summary(r) for n, r in cmrc.items()},
                          "paired": {f"{n} − baseline": cmrc_paired(cmrc["baseline"], r)
                                     for n, r in cmrc.items() if n != "baseline" and "baseline" in cmrc}}  # fmt: skip
    (folder / "chinese.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Chinese on real data: NoMIRACL-zh abstention and answering, CMRC2018 right answers and character F1.

    .venv/bin/python bench/chinese.py [--folder bench/results/eval_1p5b_2026-11-28_chinese]

Reads the records of `anchorgate eval` runs in the folder:
- `nomiracl_zh_tune_before/A.jsonl`: A before the Chinese quote check on the tune rows, upstream 126–187 of
  each subset (eval rows 1–124). The check is replayed over these records ("A with the check, replayed":
  A has one round, so a withdrawn answer is an abstention); `nomiracl_zh_tune_check/A.jsonl` holds the
  rejected variant that also asked who/which questions in the quoted style (the rows it reached);
- `nomiracl_zh_report_baseline/baseline.jsonl`, `nomiracl_zh_report/A.jsonl` and `nomiracl_zh_report_B/B.jsonl`:
  the report rows, upstream 188–250 (eval rows 125–250);
- `cmrc301_600_baseline/baseline.jsonl`, `cmrc301_600/A.jsonl` and `cmrc301_600_B/B.jsonl`: CMRC2018 questions
  301–600, every 10th (`cmrc301_600_every10.ids`);
- A again on both report sets after a one-digit answer was first grounded only by a quote holding it
  (`../eval_1p5b_2026-11-28_digit_grounding/`, through the same reply cache), paired with A.

NoMIRACL has no gold answer: on a non-relevant set the right behaviour is to abstain, on a relevant
set to answer. CMRC2018 is scored by the harness (character F1, CMRC's convention; right / wrong by the
answer keys' rules). Differences are paired bootstrap 95% intervals (`eval.scoring.paired`). For the
quote check, each answer it withdrew is listed with what its quotes lacked, and on the report rows its own
effect is A against A's records with those answers standing. Writes `chinese.json`.
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
DATASET = REPO.parent / "shared" / "datasets" / "nomiracl_zh"
DIGITS = "A, one-digit answers grounded"  # A at ad19fab: a one-digit answer needs its quote to hold it
_DIGITS_RUNS = "../eval_1p5b_2026-11-28_digit_grounding"  # the same rows and reply cache as A's runs here
NOMIRACL = {
    "tune": {"A before the check": "nomiracl_zh_tune_before/A.jsonl",
             "A, who/which questions quoted too": "nomiracl_zh_tune_check/A.jsonl"},
    "report": {"baseline": "nomiracl_zh_report_baseline/baseline.jsonl", "A": "nomiracl_zh_report/A.jsonl",
               "B": "nomiracl_zh_report_B/B.jsonl", DIGITS: f"{_DIGITS_RUNS}/nomiracl_zh_report/A.jsonl"},
}  # fmt: skip
CMRC = {"baseline": "cmrc301_600_baseline/baseline.jsonl", "A": "cmrc301_600/A.jsonl", "B": "cmrc301_600_B/B.jsonl",
        DIGITS: f"{_DIGITS_RUNS}/cmrc301_600/A.jsonl"}  # fmt: skip


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


def without_check(records: Records) -> Records:
    """A's records as they would stand without the quote check: an answer it withdrew stands (A has one round,
    so the withdrawal changed nothing else). The check's own held-out figure is A − this."""
    withdrawn = {w["id"] for w in withdrawn_by_check(records)}
    return {q: {**r, "abstained": False} if q in withdrawn else r for q, r in records.items()}


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


def _titles() -> dict[str, str]:
    """NoMIRACL-zh passage titles by docid."""
    titles = {}
    for path in sorted(DATASET.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            titles.update({p["docid"]: p["title"] for p in json.loads(line)["passages"]})
    return titles


def replay_check(records: Records) -> Records:
    """A's records as the quote check would have left them: a quoted answer to a Chinese question whose
    quotes lack what it asks becomes an abstention (A has no second round), with the reason recorded."""
    from anchorgate.tools.answer.question_match import is_chinese_question, off_question

    titles = _titles()
    replayed = {}
    for q, r in records.items():
        telemetry = r.get("telemetry") or {}
        structure = telemetry.get("draft_structure") or {}
        lacks: list[str] = []
        if not r["abstained"] and structure.get("status") == "quoted" and is_chinese_question(r["question"]):
            quotes = [x for x in structure.get("quotes", []) if x.get("status") != "absent"]
            context = telemetry.get("context_ids") or []
            docids = [context[x["found_in"] - 1].split(":", 1)[1].rsplit("#", 1)[0]
                      for x in quotes if x.get("found_in") and x["found_in"] <= len(context)]  # fmt: skip
            texts = [x.get("match") or x["text"] for x in quotes]
            names = [titles.get(d, "") for d in docids]
            lacks = off_question(r["question"], str(structure.get("answer", "")), texts, names)
        gate = [{"reason": "ABSTAIN_OFF_QUESTION_ANSWER", "answer_off_question": ",".join(lacks)}] if lacks else []
        replayed[q] = {**r, "abstained": r["abstained"] or bool(lacks),
                       "telemetry": {**telemetry, "gate": [*(telemetry.get("gate") or []), *gate]}}  # fmt: skip
    return replayed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(REPO / "bench/results/eval_1p5b_2026-11-28_chinese"))
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    result: dict[str, Any] = {"nomiracl_zh": {}, "cmrc2018": {}}
    for split, runs in NOMIRACL.items():
        loaded = {name: _load(folder / path) for name, path in runs.items()}
        loaded = {name: recs for name, recs in loaded.items() if recs}
        if split == "tune" and "A before the check" in loaded:
            loaded["A with the check, replayed"] = replay_check(loaded["A before the check"])
        part: dict[str, Any] = {"systems": {n: nomiracl_summary(r) for n, r in loaded.items()}, "paired": {}}
        for name, recs in loaded.items():
            reference = "A before the check" if split == "tune" else "baseline"
            if name != reference and reference in loaded:
                part["paired"][f"{name} − {reference}"] = nomiracl_paired(loaded[reference], recs)
        if split == "report" and "A" in loaded:
            part["paired"]["A − A without the check"] = nomiracl_paired(without_check(loaded["A"]), loaded["A"])
            if DIGITS in loaded:
                part["paired"][f"{DIGITS} − A"] = nomiracl_paired(loaded["A"], loaded[DIGITS])
        chosen = "A with the check, replayed" if split == "tune" else "A"
        if chosen in loaded:
            part["withdrawn_by_quote_check"] = withdrawn_by_check(loaded[chosen])
        result["nomiracl_zh"][split] = part
    cmrc = {name: recs for name, path in CMRC.items() if (recs := _load(folder / path))}
    result["cmrc2018"] = {"systems": {n: cmrc_summary(r) for n, r in cmrc.items()},
                          "paired": {f"{n} − baseline": cmrc_paired(cmrc["baseline"], r)
                                     for n, r in cmrc.items() if n != "baseline" and "baseline" in cmrc}}  # fmt: skip
    if DIGITS in cmrc and "A" in cmrc:
        result["cmrc2018"]["paired"][f"{DIGITS} − A"] = cmrc_paired(cmrc["A"], cmrc[DIGITS])
    (folder / "chinese.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What each rule of preset A buys on rows it was not tuned on: switch one off at a time.

Every entry of `ABLATIONS` withdraws one rule, answer-stage special case or per-split threshold
(its setting back to the plain default). `commands` prints the `anchorgate eval` runs: preset A as
shipped (the reference) and A with each ablation, on the held-out rows of `SETS`, all through one
LLM reply cache, so an ablation only pays for the model calls its withdrawal changes. `report` reads
the committed records and gives, per set and pooled, right / wrong / abstained of the ablation minus
the reference, with paired bootstrap intervals (`eval.scoring.paired`), as markdown and JSON.

    .venv/bin/python bench/ablate.py commands > /tmp/ablate.sh && bash /tmp/ablate.sh
    .venv/bin/python bench/ablate.py report --write

A rule whose right and wrong intervals include 0 on every set and pooled cannot show what it buys;
BENCHMARKS.md says which rules were removed on that ground and which were kept. `ABLATIONS` name the
settings as they stood at 29e064b, where the committed runs were made (`after_queue.sh` names the
commit of the runs after the removals); the settings of a removed rule no longer exist, so its
ablation is run again only from that commit.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OUT = "bench/results/eval_1p5b_2026-11-27_ablation"
DATASETS = "/work/shared/datasets"


Record = dict[str, Any]


def _gate(record: Record) -> list[dict[str, Any]]:
    return list((record.get("telemetry") or {}).get("gate") or [])


def _signal(name: str) -> Callable[[Record], bool]:
    return lambda r: any(entry.get(name) for entry in _gate(r))


def _reason(*parts: str) -> Callable[[Record], bool]:
    return lambda r: any(any(p in str(entry.get("reason")) for p in parts) for entry in _gate(r))


def _digits(record: Record) -> bool:
    """The answer or the last draft holds a number (citation markers aside): a date or count completion may
    have acted on it."""
    text = f"{record.get('short_answer') or ''} {(record.get('telemetry') or {}).get('draft') or ''}"
    return any(c.isdigit() for c in re.sub(r"\[\d+\]", " ", text))


@dataclass(frozen=True)
class Ablation:
    """One rule withdrawn: its name, the settings that withdraw it, what it is, and on which reference
    records it can have acted (`touched`, a superset: a rule that did not act on a question cannot change
    it when withdrawn, so only touched questions are asked again)."""

    name: str
    overrides: tuple[tuple[str, str], ...]
    rule: str
    touched: Callable[[Record], bool]


@dataclass(frozen=True)
class HeldOutSet:
    """Rows of one dataset no setting of preset A was chosen on (`bench/splits.json`)."""

    name: str
    dataset: str
    skip: int
    limit: int
    language: str | None = None

    @property
    def label(self) -> str:
        return f"{self.name} {self.skip + 1}–{self.limit}"


ABLATIONS: tuple[Ablation, ...] = (
    Ablation("unanchored", (("abstain_unanchored_answers", "false"),),
             "withdraw an answer cited to a passage without the question's named anchors",
             _signal("answer_unanchored")),
    Ablation("off_topic", (("abstain_off_topic_answers", "false"),),
             "withdraw an answer whose sentences share no word with the question", _signal("answer_off_topic")),
    Ablation("bare_quote", (("abstain_bare_quotes", "false"),),
             "withdraw an answer whose quote holds only the answer", _signal("bare_quote")),
    Ablation("uncertain", (("uncertain_answer_policy", "off"),),
             "withdraw an answer span written with high entropy", _reason("UNCERTAIN_ANSWER")),
    Ablation("second_reading", (("second_reading", "off"),),
             "withdraw an answer not given again on the passages in reverse order (e5 indexes)",
             lambda r: any(e.get("answer_inconsistent") is not None for e in _gate(r))),
    Ablation("quote_over_anchor", (("quote_overrides_missing_anchor", "false"),),
             "keep a verified-quote answer although an essential anchor is missing", _reason("ANCHOR_ONE_SHOT")),
    Ablation("partly_named", (("quote_overrides_partly_named_anchor", "false"),),
             "… also when each missing anchor is a name held in part", _reason("ANCHOR_ONE_SHOT")),
    Ablation("answer_retry", (("answer_retry", "false"),),
             "one more reader try on a malformed draft or a refusal over strong evidence", _reason("REFLECT_")),
    Ablation("full_dates", (("full_dates", "false"),),
             "complete a year-only 'when' answer from its quote", _digits),
    Ablation("full_counts", (("full_counts", "false"),),
             "add the classifier to an Indonesian bare count",
             lambda r: r.get("language") == "id" and _digits(r)),
    Ablation("repair_citations", (("repair_citations", "false"),),
             "move a misplaced citation marker before support is measured",
             lambda r: bool((r.get("telemetry") or {}).get("citation_repairs"))),
    Ablation("gray_zone_judge", (("judge_policy", "never"),),
             "ask the judge about a gray-zone answer",
             lambda r: any(c.get("stage") == "judge" for c in (r.get("telemetry") or {}).get("calls") or [])),
    Ablation("one_shot", (("factoid_one_shot", "false"),),
             "one anchor-constrained retry when an essential anchor is missing", _reason("ANCHOR_ONE_SHOT")),
)  # fmt: skip

SETS: tuple[HeldOutSet, ...] = (
    HeldOutSet("ClapNQ", "clapnq", 280, 330),
    HeldOutSet("NQ-open", "nq_open_oracle", 200, 250),
    HeldOutSet("NoMIRACL-en", "nomiracl", 60, 100, "en"),
    HeldOutSet("NoMIRACL-id", "nomiracl", 70, 110, "id"),
    HeldOutSet("NoMIRACL-id", "nomiracl", 110, 190, "id"),
)


def folder(held_out: HeldOutSet, ablation: Ablation | None, run: str = "reference") -> str:
    """The run folder of one set under one ablation (None: the `run` named, the reference by default)."""
    slug = f"{held_out.name.lower().replace('-', '_')}{held_out.skip + 1}_{held_out.limit}"
    return f"{OUT}/{slug}/{ablation.name if ablation else run}"


def command(held_out: HeldOutSet, ablation: Ablation | None, python: str, cache: str) -> str:
    """The `anchorgate eval` command of one run (an ablation asks only the questions in its ids.txt)."""
    out = REPO / folder(held_out, ablation)
    args = [*shlex.split(python), "-m", "anchorgate", "eval", "--no-progress", "--presets", "A", "--llm-cache", cache,
            "--dataset", f"{DATASETS}/{held_out.dataset}", "--skip", str(held_out.skip),
            "--limit", str(held_out.limit), "--out", str(out)]  # fmt: skip
    if held_out.language:
        args += ["--language", held_out.language]
    if ablation:
        args += ["--ids", str(out.parent / f"{ablation.name}.ids")]
    for key, value in ablation.overrides if ablation else ():
        args += ["--set", f"{key}={value}"]
    return " ".join(shlex.quote(a) for a in args) + f" > {shlex.quote(str(out))}.log 2>&1"


def touched_ids(held_out: HeldOutSet, ablation: Ablation) -> list[str]:
    """The reference questions the rule can have acted on, in dataset order."""
    return [q for q, r in _records(REPO / folder(held_out, None) / "A.jsonl").items() if ablation.touched(r)]


def commands(python: str, cache: str, references: bool) -> list[str]:
    """The reference runs, or (once they are done) each ablation on the questions it touched.

    Writes each ablation's ids file beside its run folder; an ablation that touched nothing is not run.
    """
    if references:
        return [command(held_out, None, python, cache) for held_out in SETS]
    lines = []
    for held_out in SETS:
        for ablation in ABLATIONS:
            ids = touched_ids(held_out, ablation)
            ids_file = REPO / folder(held_out, ablation)
            ids_file.parent.mkdir(parents=True, exist_ok=True)
            ids_file.with_suffix(".ids").write_text("".join(f"{q}\n" for q in ids), encoding="utf-8")
            if ids:
                lines.append(command(held_out, ablation, python, cache))
    return lines


def _outcome(record: Record) -> str:
    """right / wrong / abstained as scored; "unscored" for an answer with no gold to score it by
    (NoMIRACL's relevant sets: answering is expected, whether it is right is not known)."""
    if record.get("abstained"):
        return "abstained"
    return {1: "right", -1: "wrong"}.get(record.get("crag_score"), "unscored")  # type: ignore[arg-type]


def _records(path: Path) -> dict[str, Record]:
    from anchorgate.eval.store import read_records

    return {q: r for q, r in read_records(path).items() if not r.get("llm_fault")} if path.exists() else {}


def compare(held_out: HeldOutSet, ablation: Ablation) -> dict[str, Any] | None:
    """Ablation − reference over the set, or None while a run is missing.

    Questions the rule did not touch are unchanged by construction (the reference's own record); the
    touched ones are read from the ablation's run."""
    if not (REPO / folder(held_out, None) / "metrics.json").exists():
        return None  # the reference run has not finished
    reference = _records(REPO / folder(held_out, None) / "A.jsonl")
    touched = touched_ids(held_out, ablation)
    ablated = _records(REPO / folder(held_out, ablation) / "A.jsonl")
    if any(q not in ablated for q in touched):
        return None
    changed = [q for q in touched if _outcome(reference[q]) != _outcome(ablated[q])
               or reference[q].get("short_answer") != ablated[q].get("short_answer")]  # fmt: skip
    tokens = [sum(int(reference[q]["tokens"]["total"]) for q in reference),
              sum(int((ablated if q in ablated else reference)[q]["tokens"]["total"]) for q in reference)]  # fmt: skip
    return {"set": held_out.label, "ablation": ablation.name, "n": len(reference), "touched": len(touched),
            "tokens": [t / len(reference) for t in tokens],
            "outcomes": {q: [_outcome(reference[q]), _outcome(ablated[q])] for q in changed}}  # fmt: skip


def _difference(entries: list[dict[str, Any]], outcome: str) -> Any:
    from anchorgate.eval.scoring.paired import paired_bootstrap

    a: list[float] = []
    b: list[float] = []
    for entry in entries:
        unchanged = entry["n"] - len(entry["outcomes"])
        a += [0.0] * unchanged
        b += [0.0] * unchanged
        for ref, abl in entry["outcomes"].values():
            a.append(float(ref == outcome))
            b.append(float(abl == outcome))
    return paired_bootstrap(a, b)


def _verdict(diffs: dict[str, Any]) -> str:
    """What the rule buys, read off the ablation's right and wrong differences (abstentions follow from them):
    "the rule helps" when withdrawing it costs right answers or adds wrong ones, "the rule hurts" for the
    reverse, "no measurable difference" when both intervals hold 0."""
    right, wrong = diffs["right"].verdict, diffs["wrong"].verdict
    helps = right == "b lower" or wrong == "b higher"
    hurts = right == "b higher" or wrong == "b lower"
    if helps and hurts:
        return "mixed"
    return "the rule helps" if helps else "the rule hurts" if hurts else "no measurable difference"


def report() -> dict[str, Any]:
    """Per ablation: each set's and the pooled paired differences (ablation − reference)."""
    from anchorgate.eval.scoring.paired import format_difference

    rows = []
    for ablation in ABLATIONS:
        entries = [e for e in (compare(s, ablation) for s in SETS) if e is not None]
        if not entries:
            continue
        row: dict[str, Any] = {"ablation": ablation.name, "rule": ablation.rule, "sets": []}
        for scope, chosen in [*((e["set"], [e]) for e in entries), ("pooled", entries)]:
            diffs = {o: _difference(chosen, o) for o in ("right", "wrong", "abstained")}
            measured = _verdict(diffs)
            counts = {"n": sum(e["n"] for e in chosen), "changed": sum(len(e["outcomes"]) for e in chosen)}
            shown = {o: format_difference(d) for o, d in diffs.items()}
            row["sets"].append({"set": scope, **counts, **shown, "measurable": measured})
        row["changed_questions"] = {e["set"]: e["outcomes"] for e in entries}
        questions = sum(e["n"] for e in entries)
        row["tokens_per_question"] = sum((e["tokens"][1] - e["tokens"][0]) * e["n"] for e in entries) / questions
        row["sets_compared"] = len(entries)
        verdicts = {s["measurable"] for s in row["sets"]} - {"no measurable difference"}
        row["verdict"] = " and ".join(sorted(verdicts)) or "no measurable difference"
        rows.append(row)
    return {"sets": [s.label for s in SETS], "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    """The ablation table: one line per rule and set, pooled last."""
    lines = ["| rule withdrawn | set | questions | answers changed | right | wrong | abstained |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for row in result["rows"]:
        for s in row["sets"]:
            name = f"`{row['ablation']}`" if s is row["sets"][0] else ""
            lines.append(
                f"| {name} | {s['set']} | {s['n']} | {s['changed']} | {s['right']} | {s['wrong']} | {s['abstained']} |"
            )
    return "\n".join(lines) + "\n"


def summary(result: dict[str, Any]) -> str:
    """One line per rule: answers it changed per set, the pooled paired differences, tokens, the verdict."""
    labels = " / ".join(result["sets"])
    lines = [f"| rule withdrawn | answers changed ({labels}) | right | wrong | abstained | tokens/Q | verdict |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for row in result["rows"]:
        pooled = row["sets"][-1]
        changed = " / ".join(str(s["changed"]) for s in row["sets"][:-1])
        tokens = f"{row['tokens_per_question']:+.0f}".replace("-", "−")
        lines.append(f"| `{row['ablation']}`: {row['rule']} | {changed} | {pooled['right']} | {pooled['wrong']} "
                     f"| {pooled['abstained']} | {tokens} | {row['verdict']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def after_removals() -> dict[str, Any]:
    """A after the removals (`<set>/after_removals`, product at the commit `after_queue.sh` names) against A's
    reference through the same LLM cache, per finished set and pooled; and B after the removals against B
    as shipped at 850ad39 on NQ-open 161-200 (`after_b.sh`). Paired differences and the answers changed."""

    pairs = [
        (
            f"A, {h.label}",
            REPO / folder(h, None) / "A.jsonl",
            REPO / folder(h, None, "after_removals") / "A.jsonl",
        )
        for h in SETS
    ]
    pairs.append(("B, NQ-open 161–200 (B at 850ad39: fresh calls both)",
                  REPO / "bench/results/eval_1p5b_2026-11-27_held_out_rows/nq161_200/B.jsonl",
                  REPO / OUT / "nq161_200_B_after_removals/B.jsonl"))  # fmt: skip
    return _compare_runs(pairs)


def _compare_runs(pairs: list[tuple[str, Path, Path]]) -> dict[str, Any]:
    """Later − earlier run per labelled pair whose later run finished, and the pairs pooled per system (the
    label's prefix, "A, " or "B, ")."""
    from anchorgate.eval.scoring.paired import format_difference

    entries = []
    for label, before, later in pairs:
        if not (later.parent / "metrics.json").exists():
            continue
        reference = _records(before)
        after = _records(later)
        ids = sorted(set(reference) & set(after))
        changed = {q: [_outcome(reference[q]), _outcome(after[q])] for q in ids
                   if reference[q].get("short_answer") != after[q].get("short_answer")
                   or _outcome(reference[q]) != _outcome(after[q])}  # fmt: skip
        tokens = sum(int(after[q]["tokens"]["total"]) - int(reference[q]["tokens"]["total"]) for q in ids) / len(ids)
        entries.append({"set": label, "n": len(ids), "outcomes": changed, "tokens": tokens})
    systems = dict.fromkeys(e["set"].split(", ")[0] for e in entries)
    pooled = [(f"{system}, pooled", [e for e in entries if e["set"].startswith(f"{system}, ")]) for system in systems]
    rows = []
    for scope, chosen in [*((e["set"], [e]) for e in entries), *pooled]:
        if not chosen:
            continue
        diffs = {o: format_difference(_difference(chosen, o)) for o in ("right", "wrong", "abstained")}
        n = sum(e["n"] for e in chosen)
        tokens = sum(e["tokens"] * e["n"] for e in chosen) / n
        rows.append({"set": scope, "n": n, "changed": sum(len(e["outcomes"]) for e in chosen), **diffs,
                     "tokens_per_question": round(tokens, 1)})  # fmt: skip
    return {"rows": rows, "changed_questions": {e["set"]: e["outcomes"] for e in entries}}


def after_groups() -> dict[str, Any]:
    """A and B after the settings were grouped (fresh calls, product at 11cda1a) against A and B after the
    removals on the same rows: the renovation's regression check."""
    pairs = [("A, ClapNQ 281–330", REPO / OUT / "clapnq281_330/after_removals/A.jsonl",
              REPO / OUT / "clapnq281_330/after_groups/A.jsonl"),
             ("B, NQ-open 161–200", REPO / OUT / "nq161_200_B_after_removals/B.jsonl",
              REPO / OUT / "nq161_200_B_after_groups/B.jsonl")]  # fmt: skip
    return _compare_runs(pairs)


RETRIEVAL_VALUES = {
    "relevance_floor": "relevance floor 0.30 → 0",
    "mmr": "MMR diversity 0.45 (adaptive) → 0",
    "anchor_bonus": "anchor-title bonus 0.07 → 0",
    "bridge_weight": "bridge hop's fusion weight 2 → 1",
}


HOP_OUT = "bench/results/eval_1p5b_2026-11-28_hop_retrieval"
"""A and A with one retrieval value at its plain default on two multi-hop sets (product at 1d180ee)."""


def retrieval_values() -> dict[str, Any]:
    """A with one retrieval value back at its plain default (`<set>/plain_<name>`) against A as shipped on the
    same rows: ClapNQ 281–330 and NQ-open 201–250 (product at 11cda1a; ClapNQ's reference is `after_groups`,
    NQ-open's `after_removals`, the same answers), HotpotQA 71–100 and MuSiQue 71–100 (`HOP_OUT`). The
    relevance floor was settled on the first two sets; the other three are compared on all four."""
    result: dict[str, Any] = {}
    for name, label in RETRIEVAL_VALUES.items():
        pairs = [(f"A, ClapNQ 281–330, {label}", REPO / OUT / "clapnq281_330/after_groups/A.jsonl",
                  REPO / OUT / f"clapnq281_330/plain_{name}/A.jsonl"),
                 (f"A, NQ-open 201–250, {label}", REPO / OUT / "nq_open201_250/after_removals/A.jsonl",
                  REPO / OUT / f"nq_open201_250/plain_{name}/A.jsonl")]  # fmt: skip
        if name != "relevance_floor":
            pairs += [(f"A, {title}, {label}", REPO / HOP_OUT / f"{folder}/A/A.jsonl",
                       REPO / HOP_OUT / f"{folder}/plain_{name}/A.jsonl")
                      for title, folder in (("HotpotQA 71–100", "hotpot71_100"),
                                            ("MuSiQue 71–100", "musique71_100"))]  # fmt: skip
        result[name] = _compare_runs(pairs)
    return result


B_OUT = "bench/results/eval_1p5b_2026-11-28_b_ablation"
B_SETTINGS = {
    "judge_bridged": "two-hop answers judged too (judge.bridged_answers false → true)",
    "no_list_reserve": "no list reserve (retrieval.list_reserve 5,3 → 0,0)",
    "round_question": "round 2 asks the question again (gate.round_strategy auto → question)",
    "judge_gray_zone": "A's judge: gray zone, verdict, one call (judge.policy always → gray_zone)",
}


def b_settings() -> dict[str, Any]:
    """B with one of its own settings back at A's value (`<set>/<name>/B.jsonl`) against B as shipped on the
    same rows (`<set>/B/B.jsonl`): HotpotQA 71–100 (product at afbf97b), NQ-open 161–200 and ClapNQ 361–400
    (product at cfec209)."""
    sets = (("HotpotQA 71–100", "hotpot71_100"), ("NQ-open 161–200", "nq161_200"), ("ClapNQ 361–400", "clapnq361_400"))
    result: dict[str, Any] = {}
    for name, label in B_SETTINGS.items():
        pairs = [(f"B, {title}, {label}", REPO / B_OUT / folder / "B/B.jsonl", REPO / B_OUT / folder / name / "B.jsonl")
                 for title, folder in sets]  # fmt: skip
        result[name] = _compare_runs(pairs)
    return result


BY_SETTING: dict[str, tuple[Callable[[], dict[str, Any]], str, str]] = {
    "retrieval": (retrieval_values, OUT, "retrieval_values.json"),
    "b-settings": (b_settings, B_OUT, "b_settings.json"),
}
"""Subcommands that compare one run per setting against the reference: what they run, where they write."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("commands", help="print the eval runs as shell lines")
    run.add_argument("--references", action="store_true", help="the reference runs (else the ablations)")
    run.add_argument("--python", default=str(REPO / ".venv/bin/python"))
    run.add_argument("--cache", default="/tmp/anchorgate-ablation-cache.sqlite")
    sub.add_parser("after", help="A after the removals against A's reference")
    sub.add_parser("after-groups", help="A and B after the settings were grouped against A and B after the removals")
    sub.add_parser("retrieval", help="A with one retrieval value at its plain default against A")
    sub.add_parser("b-settings", help="B with one of its own settings at A's value against B")
    rep = sub.add_parser("report", help="compare the committed runs")
    rep.add_argument("--write", action="store_true", help=f"write {OUT}/ablation.md and .json")
    args = parser.parse_args(argv)
    if args.command == "commands":
        print("\n".join(commands(args.python, args.cache, args.references)))
        return 0
    if args.command in ("after", "after-groups"):
        result, name = (
            (after_removals(), "after_removals") if args.command == "after" else (after_groups(), "after_groups")
        )
        (REPO / OUT / f"{name}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
        for row in result["rows"]:
            print(row)
        return 0
    if args.command in BY_SETTING:
        compare_all, folder, file_name = BY_SETTING[args.command]
        values = compare_all()
        (REPO / folder / file_name).write_text(json.dumps(values, indent=1, ensure_ascii=False) + "\n")
        for name, compared in values.items():
            for row in compared["rows"]:
                print(name, row)
        return 0
    result = report()
    print(summary(result))
    if args.write:
        (REPO / OUT / "ablation.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
        (REPO / OUT / "ablation.md").write_text(summary(result) + "\n" + markdown(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

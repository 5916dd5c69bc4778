"""Issue 12 item 4: preset A's answers to the demo-corpus questions a Python user would ask.

    .venv/bin/python bench/demo_answers.py [--preset A] [--llm local] [--set key=value ...] [--name demo_answers]
                                           [--llm-cache PATH|off] [--split all|tune|heldout] [--rescore]

Questions: bench/demo_questions.jsonl (see bench/demo_retrieval.py). Each is asked through the real
graph (`anchorgate.ask`, the built-in pydoc corpus, the real model). A question counts as
answered right when
- it has an answer in the corpus: the decision is STOP, and the answer or a cited quote says what
  the reference says (the question's `evidence` regex matches, or half of the reference answer's
  content words are in the answer and quotes); the strict count also wants a cited passage from
  one of the question's gold topics (the gold lists are not exhaustive: another topic may state the
  same rule);
- it has none: the decision is ABSTAIN.
Every answer, its quotes and the gate's reason are in the .md, so the automatic verdict can be read
against the text. Split: tune (d01–d20) / heldout (d21–d45), as in bench/demo_retrieval.py.
Results: bench/results/<name>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, percentile, write_result  # noqa: E402

from anchorgate.api import ask, resolve_config  # noqa: E402
from anchorgate.eval.llm_cache import SqliteJsonCache  # noqa: E402
from anchorgate.eval.runner import cache_file, cache_namespace  # noqa: E402
from anchorgate.graph.config import parse_assignments  # noqa: E402
from anchorgate.tools.answer.citations import overlap_words  # noqa: E402
from anchorgate.tools.services import register_services, services_for  # noqa: E402

QUESTIONS = Path(__file__).resolve().parent / "demo_questions.jsonl"


def says_the_answer(question: dict[str, Any], answer: str, quotes: list[str]) -> bool:
    """The answer or a cited quote says what the reference says (`evidence` regex, or half of the
    reference answer's content words)."""
    said = " ".join([answer, *quotes])
    if re.search(question["evidence"], said, re.IGNORECASE):
        return True
    reference = overlap_words(question["answer"])
    return bool(reference) and len(reference & overlap_words(said)) / len(reference) >= 0.5


def verdicts(question: dict[str, Any], decision: str, answer: str, citations: list[dict[str, Any]]) -> dict[str, bool]:
    """`right`: STOP and the answer says the reference's answer (ABSTAIN for a no-answer question);
    `right_strict`: also a cited passage from one of the question's gold topics."""
    if not question["gold_topics"]:
        return {"right": decision == "ABSTAIN", "right_strict": decision == "ABSTAIN"}
    if decision != "STOP":
        return {"right": False, "right_strict": False}
    topics = {c["id"].split("#")[0].removeprefix("pydoc:") for c in citations}
    said = says_the_answer(question, answer, [c.get("quote", "") for c in citations])
    return {"right": said, "right_strict": said and bool(topics & set(question["gold_topics"]))}


def cached_services(preset: str, overrides: dict[str, Any], llm_cache: str) -> dict[str, Any]:
    """Overrides naming a registered bundle whose chat model reads and writes the eval LLM cache.

    Replies are cached like `anchorgate eval` caches them (same file and namespace rules), so a
    re-run after a change to the gate or the support measure only pays for the prompts that changed.
    """
    config = resolve_config(preset, overrides)
    path = cache_file(llm_cache or None, config) if llm_cache != "off" else None
    if path is None:
        return overrides
    services = services_for(config)
    cache = SqliteJsonCache(path, cache_namespace(config))
    bundle = replace(services, llm=services.llm.model_copy(update={"cache": cache}))
    return {**overrides, "resources.services_id": register_services(bundle, f"demo-answers-{preset}")}


def run(
    preset: str, overrides: dict[str, Any], partial: Path, llm_cache: str, split: str = "all"
) -> list[dict[str, Any]]:
    """One record per question: decision, reason, answer, quotes, verdict, tokens, seconds, and the
    draft with its per-claim support (why the gate decided). Rows land in `partial` as they come, and
    a re-run with the same settings resumes from it."""
    settings = {"preset": preset, "overrides": overrides, "llm_cache": llm_cache}
    rows = _resumed(partial, settings)
    if not rows:
        partial.write_text(json.dumps(settings) + "\n", encoding="utf-8")
    done = {r["id"] for r in rows}
    run_overrides = cached_services(preset, overrides, llm_cache)
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        question = json.loads(line)
        if question["id"] in done or split not in ("all", question["split"]):
            continue
        started = time.perf_counter()
        result = ask(question["question"], preset=preset, overrides=run_overrides)
        rows.append(_row(question, result, time.perf_counter() - started))
        with partial.open("a", encoding="utf-8") as out:
            out.write(json.dumps(rows[-1], ensure_ascii=False) + "\n")
        print(f"{question['id']} {rows[-1]['right']} {result['decision']} {result['reason']} {result['answer'][:80]!r}")
    return rows


def _resumed(partial: Path, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of an interrupted run with the same settings (none when the settings differ); a question that
    ended on an LLM fault is asked again, as `anchorgate eval` does."""
    if not partial.exists():
        return []
    lines = partial.read_text(encoding="utf-8").splitlines()
    if not lines or json.loads(lines[0]) != settings:
        return []
    rows = [json.loads(line) for line in lines[1:] if line.strip()]
    return [r for r in rows if not r["reason"].startswith("ABSTAIN_LLM_")]


def _row(question: dict[str, Any], result: dict[str, Any], seconds: float) -> dict[str, Any]:
    telemetry = result["telemetry"]
    return {
        "id": question["id"], "split": question["split"], "kind": question["kind"],
        "question": question["question"], "answerable": bool(question["gold_topics"]),
        "decision": result["decision"], "reason": result["reason"], "answer": result["answer"],
        "short_answer": result["short_answer"],
        "citations": [{"id": c["id"], "quote": c.get("quote", ""), "verified": c.get("verified", False)}
                      for c in result["citations"]],
        "gates": [g["reason"] for g in telemetry["gate"]],
        **verdicts(question, result["decision"], result["answer"], result["citations"]),
        "tokens": result["tokens"]["total"],
        "seconds": round(seconds, 2),
        "draft": telemetry.get("draft"),
        "overlap": telemetry.get("support_overlap"),
        "claims": [{k: c[k] for k in ("text", "cited", "score", "supported")} for c in telemetry.get("claims") or []],
        "context": [p["id"] for p in telemetry.get("context") or []],
    }  # fmt: skip


def rescored(name: str) -> list[dict[str, Any]]:
    """The stored rows of an earlier run with today's verdict rules."""
    questions = {q["id"]: q for q in map(json.loads, QUESTIONS.read_text(encoding="utf-8").splitlines())}
    rows = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))["rows"]
    return [{**r, **verdicts(questions[r["id"]], r["decision"], r["answer"], r["citations"])} for r in rows]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Right-answer rates per split, over answerable and no-answer questions."""
    out: dict[str, Any] = {}
    for split in ("tune", "heldout", "all"):
        part = [r for r in rows if split in ("all", r["split"])]
        answerable = [r for r in part if r["answerable"]]
        unanswerable = [r for r in part if not r["answerable"]]
        out[split] = {
            "questions": len(part),
            "right_answerable": round(sum(r["right"] for r in answerable) / len(answerable), 3) if answerable else None,
            "right_strict_answerable": (
                round(sum(r["right_strict"] for r in answerable) / len(answerable), 3) if answerable else None
            ),
            "abstained_no_answer": f"{sum(r['right'] for r in unanswerable)}/{len(unanswerable)}",
            "right_all": round(sum(r["right"] for r in part) / len(part), 3) if part else None,
            "tokens_mean": round(sum(r["tokens"] for r in part) / len(part), 1) if part else None,
            "seconds_p50": percentile([r["seconds"] for r in part], 50) if part else None,
        }
    return out


def markdown(result: dict[str, Any]) -> str:
    """The summary table and every answer."""
    lines = [f"# Demo-corpus questions, preset {result['preset']} ({result['llm']})", "",
             "| split | questions | right (answerable) | … citing a gold topic | abstained (no answer) | right (all) |"
             " tokens | s p50 |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for split, s in result["summary"].items():
        lines.append(
            f"| {split} | {s['questions']} | {s['right_answerable']} | {s['right_strict_answerable']} | "
            f"{s['abstained_no_answer']} | {s['right_all']} | {s['tokens_mean']} | {s['seconds_p50']} |"
        )
    lines += ["", "| id | right | decision (reason) | answer | quote |", "|---|---|---|---|---|"]
    for r in result["rows"]:
        quote = (r["citations"][0]["quote"] if r["citations"] else "").replace("|", "/")[:120]
        answer = r["answer"].replace("|", "/").replace("\n", " ")[:120]
        verdict = "yes" if r["right"] else "no"
        lines.append(f"| {r['id']} | {verdict} | {r['decision']} ({r['reason']}) | {answer} | {quote} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--preset", default="A")
    parser.add_argument("--llm", default="local")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--name", default="demo_answers")
    parser.add_argument("--rescore", action="store_true", help="re-score bench/results/<name>.json, no model")
    parser.add_argument("--split", choices=("all", "tune", "heldout"), default="all", help="ask only this split")
    parser.add_argument("--llm-cache", default="", help="LLM reply cache file (default: the eval cache); off = none")
    args = parser.parse_args()
    overrides = {**parse_assignments(args.set), "llm.model": args.llm}
    partial = RESULTS / f"{args.name}.partial.jsonl"
    rows = rescored(args.name) if args.rescore else run(args.preset, overrides, partial, args.llm_cache, args.split)
    result = {
        "preset": args.preset,
        "llm.model": args.llm,
        "overrides": overrides,
        "summary": summary(rows),
        "rows": rows,
    }
    write_result(args.name, result)
    (RESULTS / f"{args.name}.md").write_text(markdown(result), encoding="utf-8")
    partial.unlink(missing_ok=True)
    print(json.dumps(result["summary"], indent=1))


if __name__ == "__main__":
    main()

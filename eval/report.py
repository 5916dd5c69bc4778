"""metrics.json, report.md and the PNG plots of an evaluation folder.

The report reads the per-preset JSON Lines results for the run's current question ids, so it can
be rebuilt at any time (`write_report(out, settings, ids)`) and a partially finished run reports
what it has. Conventions for every number are in `eval.aggregate`; every comparison of two presets
carries a paired bootstrap interval (`eval.scoring.paired`), and each preset's answers are ranked
by the gate's answer confidence into a risk–coverage curve (`eval.scoring.risk_coverage`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorgate.eval.aggregate import (
    TOKENS_RATIO_MAX,
    acceptance,
    explain,
    idk_to_right,
    is_llm_fault,
    summarize,
    worst,
)
from anchorgate.eval.comparisons import MAX_RISK, paired_comparisons, risk_coverage_by_preset, risk_summary
from anchorgate.eval.plots import write_plots
from anchorgate.eval.risk_plot import write_risk_coverage_plot
from anchorgate.eval.store import load_results, write_json

BASELINE = "baseline"
DATASET_KEYS = ("dataset_path", "dataset_sha256", "format", "language", "limit", "skip")
SCORING_KEYS = ("answer_keys", "answer_keys_sha256")
TABLE_ROWS: tuple[tuple[str, str], ...] = (
    ("questions", "questions"),
    ("llm_faults", "LLM faults (not scored, not in any row below)"),
    ("right", "right"),
    ("wrong", "wrong"),
    ("abstained", "abstained"),
    ("long_form_right", "right by the long-form rule (secondary; long-form gold only)"),
    ("f1_mean", "F1 (short answer, mean)"),
    ("f1_p50", "F1 p50"),
    ("em_mean", "EM (mean)"),
    ("crag_score_mean", "CRAG score (mean)"),
    ("tokens_mean", "tokens/Q mean"),
    ("tokens_p50", "tokens/Q p50"),
    ("latency_p50", "latency p50 (s)"),
    ("latency_p95", "latency p95 (s)"),
    ("idk_count", "IDK count"),
    ("idk_on_answerable", "IDK on answerable"),
    ("answer_rate_answerable", "answer rate on answerable"),
    ("wrong_on_answerable", "wrong on answerable"),
    ("idk_with_gold_context", "IDK although a gold passage was in context"),
    ("abstention_precision", "abstention precision (unanswerable)"),
    ("abstention_recall", "abstention recall (unanswerable)"),
    ("false_premise_rate", "false-premise detection rate"),
    ("round2_share", "share with round 2"),
    ("errors", "errors"),
)


def build_metrics(settings: dict[str, Any], results: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The metrics.json payload: per-preset summaries, paired differences, risk–coverage, acceptance vs
    baseline, IDK → right, worst."""
    summaries = {preset: summarize(records) for preset, records in results.items() if records}
    base = summaries.get(BASELINE)
    payload: dict[str, Any] = {
        "dataset": {k: settings.get(k) for k in DATASET_KEYS},
        "llm": settings.get("llm"),
        "overrides": settings.get("overrides", {}),
        "scoring": {k: settings.get(k) for k in SCORING_KEYS},
        "data_issues": settings.get("data_issues") or {"skipped": [], "repaired": []},
        "presets": summaries,
        "paired": paired_comparisons(results),
        "risk_coverage": {p: risk_summary(rc) for p, rc in risk_coverage_by_preset(results).items()},
        "acceptance": {},
        "idk_to_right": {},
        "worst": {},
        "llm_faults": {p: [_fault_entry(r) for r in records if is_llm_fault(r)] for p, records in results.items()},
    }
    for preset, records in results.items():
        if not records:
            continue
        payload["worst"][preset] = [_worst_entry(r) for r in worst(records)]
        if base is not None and preset != BASELINE:
            payload["acceptance"][preset] = acceptance(base, summaries[preset])
            payload["idk_to_right"][preset] = idk_to_right(results[BASELINE], records)
    return payload


def _worst_entry(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": record["id"], "question": record["question"], "gold": record["gold"][:3],
        "prediction": record["short_answer"] or record["prediction"], "decision": record["decision"],
        "reason": record["reason"], "crag_score": record["crag_score"], "f1": record["f1"],
        "tokens": record["tokens"]["total"], "why": explain(record),
    }  # fmt: skip


def _fault_entry(record: dict[str, Any]) -> dict[str, Any]:
    fault = record.get("llm_fault") or {}
    return {"id": record["id"], "question": record["question"], "reason": record["reason"],
            "stage": fault.get("stage"), "attempts": fault.get("attempts"), "error": fault.get("error")}  # fmt: skip


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def _selection(data: dict[str, Any]) -> str:
    """The limit, and a skip when there is one (`250 · skip: 150 (from question 151)`)."""
    limit, skip = data.get("limit"), data.get("skip") or 0  # a run.json from before --skip has no "skip"
    return f"{limit} · skip: {skip} (from question {skip + 1})" if skip else str(limit)


def _cell(text: Any, limit: int = 90) -> str:
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def render_markdown(metrics: dict[str, Any], plots: list[Path], title: str) -> str:
    """report.md: settings, side-by-side table, acceptance, plots, IDK → supported, stop reasons, worst."""
    presets = metrics["presets"]
    names = list(presets)
    data = metrics["dataset"]
    lines = [f"# Evaluation: {title}", ""]
    digest = str(data["dataset_sha256"])[:16]
    lines += [f"- dataset: `{data['dataset_path']}` (format `{data['format']}`, sha256 `{digest}…`)",
              f"- limit: {_selection(data)} · language: {data['language'] or 'all'} · model: `{metrics['llm']}`",
              f"- overrides: `{metrics['overrides'] or {}}`", ""]  # fmt: skip
    lines += ["## Results", ""]
    rows = [[label, *(_fmt(presets[n].get(key)) for n in names)] for key, label in TABLE_ROWS]
    lines += _table(["metric", *names], rows) + [""]
    cached = {n: presets[n].get("cached_call_share") for n in names if presets[n].get("cached_call_share")}
    if cached:
        shares = ", ".join(f"{n} {_fmt(v)}" for n, v in cached.items())
        lines += [f"Note: some LLM calls were answered from the on-disk LLM cache ({shares} of calls); tokens and "
                  "answers are those of the original calls, but latency is not model latency there.", ""]  # fmt: skip
    lines += _data_issues_section(metrics) + _warnings_section(presets)
    lines += _faults_section(metrics) + _paired_section(metrics) + _risk_section(metrics)
    lines += _acceptance_section(metrics) + _plots_section(plots) + _idk_section(metrics)
    lines += _reasons_section(presets) + _triggers_section(presets) + _rounds_section(presets)
    lines += _worst_section(metrics)
    lines += ["## Conventions", "",
              "Scored by `anchorgate.eval.scoring`, which imports no product code. Right / wrong / abstained: CRAG "
              "+1 / −1 / 0. Correct: the item's answer key when it has one (ClapNQ), else exact/alias match or the "
              "gold inside a short answer. Abstained: the run did not STOP, or the answer declines (the scorer's own "
              "refusal phrases, English, Indonesian and Chinese). "
              "F1/EM: SQuAD v1.1 normalization, best over aliases, abstention = 0, answerable items with gold only. "
              "Paired differences: b − a on the questions both presets scored, paired bootstrap 95% interval "
              "(10,000 resamples, fixed seed); an interval including 0 is no measurable difference. "
              "IDK → right: baseline abstained, preset right. "
              "LLM faults (the server unavailable, rate limited, timed out or malformed: ABSTAIN_LLM_*) are not "
              "model output: they are counted in questions and LLM faults only, never in F1, EM, CRAG, right/wrong, "
              "answered/abstained counts and rates, tokens or latency; running the same command again retries them.",
              ""]  # fmt: skip
    return "\n".join(lines)


def _faults_section(metrics: dict[str, Any]) -> list[str]:
    """Every question whose run hit an LLM fault, per preset (they are in no other number)."""
    lines = ["## LLM faults", ""]
    faults = [(preset, e) for preset, entries in metrics.get("llm_faults", {}).items() for e in entries]
    if not faults:
        return [*lines, "None: every question was answered or declined by the model itself.", ""]
    lines += [f"{len(faults)} run(s) hit an LLM fault. They are not scored and are left out of every number above "
              "and below; run the same command again to retry them.", ""]  # fmt: skip
    rows = [[preset, _cell(e["id"], 30), _cell(e["question"], 70), e["reason"], str(e["stage"]),
             _fmt(e["attempts"]), _cell(e["error"] or "", 120)] for preset, e in faults]  # fmt: skip
    return lines + _table(["preset", "id", "question", "reason", "stage", "attempts", "error"], rows) + [""]


def _acceptance_section(metrics: dict[str, Any]) -> list[str]:
    lines = ["## Against baseline", ""]
    if not metrics["acceptance"]:
        return [*lines, "No baseline results in this folder: run with `--presets baseline,…` to get the checks.", ""]
    lines += [f"Targets: tokens/Q ≤ {TOKENS_RATIO_MAX}× baseline, F1 ≥ baseline, wrong-on-answerable lower "
              "(point comparisons: the paired intervals above say which differences are measurable).", ""]  # fmt: skip
    rows = []
    for preset, checks in metrics["acceptance"].items():
        for check in checks:
            met = "–" if check["met"] is None else ("met" if check["met"] else "not met")
            detail = f"{_fmt(check['ratio'])}×" if check["ratio"] is not None else _signed(check.get("delta"))
            rows.append([preset, check["check"], _fmt(check["value"]), _fmt(check["baseline"]), detail,
                         check["target"], met])  # fmt: skip
    return lines + _table(["preset", "check", "value", "baseline", "ratio / Δ", "target", "result"], rows) + [""]


def _signed(delta: float | None) -> str:
    return "" if delta is None else f"Δ {'+' if delta >= 0 else '−'}{_fmt(abs(delta))}"


def _plots_section(plots: list[Path]) -> list[str]:
    lines = ["## Plots", ""]
    return lines + [f"![{p.stem}]({p.name})" for p in plots] + [""]


def _data_issues_section(metrics: dict[str, Any]) -> list[str]:
    """Dataset records the loader skipped or repaired: counted and named, never dropped silently."""
    issues = metrics.get("data_issues") or {}
    skipped, repaired = issues.get("skipped") or [], issues.get("repaired") or []
    if not skipped and not repaired:
        return []
    lines = [
        "## Dataset records skipped or repaired",
        "",
        f"{len(skipped)} record(s) skipped (not asked, in no number above), {len(repaired)} repaired and kept.",
        "",
    ]
    rows = [["skipped", _cell(e["where"], 60), _cell(e["reason"], 100)] for e in skipped[:50]]
    rows += [["repaired", _cell(e["where"], 60), _cell(e["reason"], 100)] for e in repaired[:50]]
    more = len(skipped) + len(repaired) - len(rows)
    return [
        *lines,
        *_table(["", "where", "reason"], rows),
        *(["", f"… and {more} more in metrics.json."] if more else []),
        "",
    ]


def _warnings_section(presets: dict[str, dict[str, Any]]) -> list[str]:
    """Records that had no answer field: scored as no answer, counted here so none is lost silently."""
    counts = {n: s.get("records_without_answer", 0) for n, s in presets.items() if s.get("records_without_answer")}
    if not counts:
        return []
    listed = ", ".join(f"{n} {c}" for n, c in counts.items())
    return ["## Warnings", "", f"Records without an answer field, scored as no answer (abstained): {listed}.", ""]


def _paired_section(metrics: dict[str, Any]) -> list[str]:
    """Every preset pair: b − a in right, wrong and CRAG score, each with its paired 95% interval."""
    lines = ["## Paired differences (b − a, 95% interval)", ""]
    if not metrics.get("paired"):
        return [*lines, "One preset only: nothing to compare.", ""]
    rows = [[f"{e['b']} − {e['a']}", str(e["n"]), e["right"]["text"], e["wrong"]["text"], e["crag"]["text"]]
            for e in metrics["paired"]]  # fmt: skip
    note = ("Right and wrong are differences in counts, CRAG in the mean score per question. An interval that "
            "includes 0 is no measurable difference.")  # fmt: skip
    return [*lines, *_table(["b − a", "questions", "right", "wrong", "CRAG (mean)"], rows), "", note, ""]


def _risk_section(metrics: dict[str, Any]) -> list[str]:
    """How well the gate's answer confidence ranks each preset's own answers."""
    lines = ["## Risk–coverage (answers ranked by the gate's answer confidence)", ""]
    curves = metrics.get("risk_coverage") or {}
    if not curves:
        return [*lines, "No scored answers.", ""]
    rows = [[name, str(c["answered"]), _fmt(c["aurc"]), _fmt(c["coverage_at_10pct_risk"]),
             _fmt(c["operating_coverage"]), _fmt(c["operating_risk"])] for name, c in curves.items()]  # fmt: skip
    note = (f"Coverage counts abstentions in its denominator, so each curve ends at the preset's operating point; "
            f"AURC is the area under the selective-risk curve up to it (lower is better); coverage at "
            f"{MAX_RISK:.0%} risk is the largest share of questions answerable at that error rate.")  # fmt: skip
    header = ["preset", "answered", "AURC", f"coverage at {MAX_RISK:.0%} risk", "operating coverage", "operating risk"]
    return [*lines, *_table(header, rows), "", note, ""]


def _idk_section(metrics: dict[str, Any]) -> list[str]:
    lines = ["## IDK → right", ""]
    if not metrics["idk_to_right"]:
        return [*lines, "–", ""]
    for preset, ids in metrics["idk_to_right"].items():
        lines.append(f"- {preset}: {len(ids)}" + (f" ({', '.join(ids)})" if ids else ""))
    return [*lines, ""]


def _reasons_section(presets: dict[str, dict[str, Any]]) -> list[str]:
    reasons = sorted({r for s in presets.values() for r in s["stop_reasons"]})
    rows = [[_cell(r, 60), *(str(presets[n]["stop_reasons"].get(r, 0)) for n in presets)] for r in reasons]
    return ["## Stop reasons", "", *_table(["reason", *presets], rows), ""]


ENDINGS = ("correct", "wrong", "idk", "abstained")


def _triggers_section(presets: dict[str, dict[str, Any]]) -> list[str]:
    """Why the gate asked for more (first RETRIEVE_MORE/REFLECT reason) and how those questions ended."""
    lines = ["## Gate triggers and how they ended", ""]
    rows = [[_cell(f"{name}: {reason}", 70), *(str(ends.get(e, 0)) for e in ENDINGS), str(sum(ends.values()))]
            for name, s in presets.items() for reason, ends in s.get("gate_triggers", {}).items()]  # fmt: skip
    if not rows:
        return [*lines, "The gate never asked for another round or a reflection.", ""]
    return [*lines, *_table(["preset: first reason", *ENDINGS, "total"], rows), ""]


def _rounds_section(presets: dict[str, dict[str, Any]]) -> list[str]:
    """Planned rounds by strategy and guarded rewrites by outcome, per preset (graph/round_strategy.py)."""
    lines = ["## Round plans and guarded rewrites", ""]
    strategies = sorted({k for s in presets.values() for k in s.get("round_strategies", {})})
    reasons = sorted({k for s in presets.values() for k in s.get("rewrite_rejections", {})})
    if not strategies and not any(s.get("rewrites_attempted") for s in presets.values()):
        return [*lines, "No retrieval round beyond the first was planned.", ""]
    rows = [[f"rounds planned: {name}" + (" (not spent)" if name == "none" else ""),
             *(str(s.get("round_strategies", {}).get(name, 0)) for s in presets.values())]
            for name in strategies]  # fmt: skip
    rows.append(["rewrites attempted", *(str(s.get("rewrites_attempted", 0)) for s in presets.values())])
    rows.append(["rewrites accepted", *(str(s.get("rewrites_accepted", 0)) for s in presets.values())])
    rows += [[f"rejected: {reason}", *(str(s.get("rewrite_rejections", {}).get(reason, 0)) for s in presets.values())]
             for reason in reasons]  # fmt: skip
    note = ("A rejected rewrite never searched: its round asked the question itself, or HyDE's passage where the "
            "plan named HyDE as the fallback.")  # fmt: skip
    return [*lines, *_table(["", *presets], rows), "", note, ""]


def _worst_section(metrics: dict[str, Any]) -> list[str]:
    lines = ["## Five worst questions per preset", ""]
    for preset, entries in metrics["worst"].items():
        rows = [[_cell(e["id"], 30), _cell(e["question"], 70), _cell("; ".join(e["gold"]) or "–", 40),
                 _cell(e["prediction"], 60), e["decision"], _fmt(e["crag_score"]), _fmt(e["f1"]),
                 str(e["tokens"]), _cell(e["why"], 160)] for e in entries]  # fmt: skip
        header = ["id", "question", "gold", "prediction", "decision", "CRAG", "F1", "tokens", "why"]
        lines += [f"### {preset}", "", *_table(header, rows), ""]
    return lines


def write_report(out: Path, settings: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """Write metrics.json, report.md and the PNGs for the run's presets and question ids."""
    results = load_results(out, settings.get("presets", []), ids)
    metrics = build_metrics(settings, results)
    title = Path(str(settings.get("dataset_path", "dataset"))).name
    plots = write_plots(metrics["presets"], out, title) if metrics["presets"] else []
    curve = write_risk_coverage_plot(risk_coverage_by_preset(results), out / "risk_coverage.png", title)
    plots += [curve] if curve is not None else []
    write_json(out / "metrics.json", metrics, sort_keys=False)  # keep the presets in run order
    (out / "report.md").write_text(render_markdown(metrics, plots, title), encoding="utf-8")
    return {"metrics": str(out / "metrics.json"), "report": str(out / "report.md"), "plots": [str(p) for p in plots]}

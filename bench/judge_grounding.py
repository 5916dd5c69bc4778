"""The judge with the grounding check in front of it, on HaluEval QA: tuned on one half, reported on the other.

Reads a yes/no judge check (`anchorgate eval --judge-check --set judge.style=yes_no`, whose records keep
P(YES) for both answers of every item) and adds the grounding check of `tools/answer/grounding.py`
computed here from the same items, so every threshold pair costs no model call:

* grounding only: SUPPORTED when the answer's words are in the knowledge (share ≥ g);
* LLM only: SUPPORTED when P(YES) ≥ p (today's judge);
* both (`judge_grounding_min=g`, `judge_accept_p=p`): grounded and P(YES) ≥ p.

g and p are chosen on the tune items (the first half of the records) and reported on the held-out
half. Usage: `python bench/judge_grounding.py RESULTS/judge_check.json --dataset ../shared/datasets/halueval_qa`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from anchorgate.eval.judge_check import passage_dicts
from anchorgate.eval.runner import load_eval_dataset
from anchorgate.tools.answer.grounding import answer_grounding

GROUNDING = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
ACCEPT_P = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def accuracy(rows: list[dict[str, Any]], g: float, p: float) -> dict[str, float]:
    """Accuracy (mean of accepting the right and rejecting the hallucinated answer) at thresholds g and p."""
    accepted = sum(r["right_grounding"] >= g and (r["right_confidence"] or 0.0) >= p for r in rows)
    rejected = sum(not (r["hallucinated_grounding"] >= g and (r["hallucinated_confidence"] or 0.0) >= p) for r in rows)
    n = len(rows)
    return {"accuracy": round((accepted + rejected) / (2 * n), 4), "accept_right": round(accepted / n, 4),
            "reject_hallucinated": round(rejected / n, 4)}  # fmt: skip


def best(rows: list[dict[str, Any]], grid_g: tuple[float, ...], grid_p: tuple[float, ...]) -> tuple[float, float]:
    """Thresholds with the best accuracy on `rows` (ties: the lower g, then the lower p)."""
    pairs = [(g, p) for g in grid_g for p in grid_p]
    return max(pairs, key=lambda gp: (accuracy(rows, *gp)["accuracy"], -gp[0], -gp[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("judge_check", type=Path)
    parser.add_argument("--dataset", default="../shared/datasets/halueval_qa")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "judge_grounding.json")
    args = parser.parse_args()
    records = json.loads(args.judge_check.read_text(encoding="utf-8"))["per_item"]
    items = {i.id: i for i in load_eval_dataset(args.dataset, "halueval", limit=len(records)).items}
    rows = []
    for record in records:
        item = items[record["id"]]
        passages = passage_dicts(item)
        answers = (item.answers[0], str(item.extra["hallucinated_answer"]))
        for question, variant in (("", "all words"), (item.question, "the question's words not counted")):
            grounding = [answer_grounding(answer, passages, question) for answer in answers]
            rows.append({**record, "variant": variant, "right_grounding": grounding[0],
                         "hallucinated_grounding": grounding[1]})  # fmt: skip
    result: dict[str, Any] = {"records": str(args.judge_check), "tune_items": len(records) // 2,
                              "heldout_items": len(records) - len(records) // 2, "methods": {}}  # fmt: skip
    for variant in ("the question's words not counted", "all words"):
        mine = [r for r in rows if r["variant"] == variant]
        tune, heldout = mine[: len(mine) // 2], mine[len(mine) // 2 :]
        methods = {
            "llm only (judge_accept_p)": best(tune, (0.0,), ACCEPT_P),
            f"grounding only, {variant} (judge_grounding_min)": best(tune, GROUNDING, (0.0,)),
            f"grounding, {variant}, then the llm": best(tune, GROUNDING, ACCEPT_P),
        }
        for name, (g, p) in methods.items():
            result["methods"][name] = {"judge.grounding_min": g, "judge.accept_p": p, "tune": accuracy(tune, g, p),
                                       "heldout": accuracy(heldout, g, p)}  # fmt: skip
    result["llm only at today's judge_accept_p 0.3"] = {
        "tune": accuracy(tune, 0.0, 0.3),
        "heldout": accuracy(heldout, 0.0, 0.3),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

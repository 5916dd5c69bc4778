"""How far hop-by-hop answering gets when the plan is right: MuSiQue's own hops as the plan.

    .venv/bin/python bench/musique_oracle_plan.py --skip 30 --limit 60 \
        --out bench/results/eval_1p5b_2026-11-28_musique_oracle/a_oracle71_100

A diagnostic, not a product path: `anchorgate eval` runs preset A with `gate.follow_hops` in this
process, with the hop planner replaced by a lookup of each question's `extra.hops`, written as
questions ("X >> place of birth" → "What is the place of birth of X?"). Everything after the plan
(retrieval per hop, the reader, the gate, the budget) is the product's. Compared with the parser's
plans on the same rows (`bench/musique_hops.py`), it separates what the planner loses from what
hop-2 retrieval and the reader lose.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

sys.path.insert(0, str(REPO / "bench"))
from common import DATASETS  # noqa: E402

import anchorgate.agents.anchor_predictor as anchor_predictor  # noqa: E402
from anchorgate.cli import run  # noqa: E402
from anchorgate.tools.question.hop_plan import HopPlan, plan_hops, validated  # noqa: E402

DATASET = DATASETS / "musique" / "musique_41_100.jsonl"
_RELATION_QUESTIONS = {
    "located in the administrative territorial entity": "Where is {x} located?",
    "country": "Which country is {x} in?",
    "part of": "What is {x} part of?",
    "member of": "What is {x} a member of?",
}


def hop_question(hop: str) -> str:
    """A MuSiQue hop as a question: "X >> relation" written out, a question hop as it is."""
    if ">>" not in hop:
        return hop.strip()
    subject, relation = (part.strip() for part in hop.split(">>", 1))
    template = _RELATION_QUESTIONS.get(relation, "What is the {relation} of {x}?")
    return template.format(x=subject, relation=relation)


def oracle_plans() -> dict[str, HopPlan]:
    """Each MuSiQue question's plan from its own hops, validated as a planner's would be."""
    plans = {}
    for line in DATASET.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        hops = [re.sub(r"#\s*(\d)", r"#\1", hop_question(h["question"])) for h in item["extra"]["hops"]]
        plans[" ".join(item["question"].split())] = validated(item["question"], hops, "oracle")
    return plans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", type=int, default=30)
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--out", required=True)
    parser.add_argument("--llm-cache", default="")
    parser.add_argument("--set", action="append", default=[], help="a further setting, as for anchorgate eval")
    args = parser.parse_args()
    plans = oracle_plans()
    anchor_predictor.plan_hops = lambda question: plans.get(" ".join(question.split())) or plan_hops(question)  # type: ignore[assignment]
    argv = ["eval", "--no-progress", "--presets", "A", "--dataset", str(DATASET.parent), "--skip", str(args.skip),
            "--limit", str(args.limit), "--set", "gate.follow_hops=true", "--out", args.out]  # fmt: skip
    for setting in args.set:
        argv += ["--set", setting]
    if args.llm_cache:
        argv += ["--llm-cache", args.llm_cache]
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

"""Can the packaged reader write a hop plan? The 1.5B with a GBNF grammar against MuSiQue's own hops.

    .venv/bin/python bench/hop_plan_reader.py [--llm local]   # → bench/results/hop_plan_reader.json

The deterministic parser (`tools/question/hop_plan.py`) agrees with MuSiQue's hop count on 0.33 of
held-out questions; the multi-hop design names "the reader with a grammar" for what patterns miss.
This asks the reader, at temperature 0, for numbered sub-questions after five worked examples written
for this script (none from a dataset), under two grammars: `PLAN_GRAMMAR` (any numbered lines) and
`STRICT` (line 1 asks without `#k`, every later line names an earlier answer, each ends in "?").
Plans are read by `parse_plan_text` (validated as any plan) and scored as `bench/hop_plan_eval.py`
scores the parser, on MuSiQue questions 41–70 (the parser's tune rows; `extra.hops` scores only).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
from common import DATASETS, write_result  # noqa: E402
from hop_plan_eval import same_question  # noqa: E402
from langchain_core.messages import HumanMessage, SystemMessage  # noqa: E402

from anchorgate.tools.llm.chat_models import load_chat_model  # noqa: E402
from anchorgate.tools.question.hop_plan import PLAN_GRAMMAR, parse_plan_text  # noqa: E402

STRICT = r"""root ::= "1. " plain "\n" ( "2. " ref "\n" ( "3. " ref "\n" )? )?
plain ::= [^#\n?]+ "?"
ref ::= [^#\n?]* "#" [1-2] [^#\n?]* "?"
"""
INSTRUCTIONS = """Break the question into the simple questions that must be answered one after another. \
Write one per line, numbered. A later line names the answer of an earlier line as #1, #2 or #3. If the \
question asks one simple thing, write it unchanged as the only line.

Question: Who is the spouse of the author of The Silent River?
Sub-questions:
1. Who is the author of The Silent River?
2. Who is the spouse of #1?

Question: In what year was the university where Ana Ruiz studied founded?
Sub-questions:
1. Which university did Ana Ruiz study at?
2. In what year was #1 founded?

Question: when did the first world war start
Sub-questions:
1. when did the first world war start?

Question: What country is the birthplace of the composer of Night Lights in?
Sub-questions:
1. Who is the composer of Night Lights?
2. What is the birthplace of #1?
3. What country is #2 in?

Question: who plays the mother in the movie Blue Harbor
Sub-questions:
1. who plays the mother in the movie Blue Harbor?
"""
ROWS = (0, 30)  # musique_41_100.jsonl lines 1-30: questions 41-70


def score(llm: Any, grammar: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Hop-count agreement and same-question rate of the reader's plans, with each plan as written."""
    agree = same = 0
    plans = []
    for row in rows:
        started = time.perf_counter()
        messages = [SystemMessage(INSTRUCTIONS), HumanMessage(f"Question: {row['question']}\nSub-questions:\n")]
        text = str(llm.invoke(messages, grammar=grammar, max_tokens=120).content)
        plan = parse_plan_text(text, row["question"])
        gold = row["extra"]["hops"]
        answers = [hop["answer"] for hop in gold]
        counts = len(plan.hops) == len(gold)
        matched = counts and all(same_question(o, g["question"], answers) for o, g in zip(plan.hops, gold, strict=True))
        agree += counts
        same += matched
        seconds = round(time.perf_counter() - started, 1)
        plans.append({"question": row["question"], "reply": text, "hops": list(plan.hops), "reason": plan.reason,
                      "gold_hops": len(gold), "same": matched, "seconds": seconds})  # fmt: skip
    n = len(rows)
    return {"questions": n, "hop_count_agreement": round(agree / n, 3), "same_question_rate": round(same / n, 3),
            "plans": plans}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="local")
    args = parser.parse_args()
    lines = (DATASETS / "musique" / "musique_41_100.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()][ROWS[0] : ROWS[1]]
    llm = load_chat_model(args.llm, max_tokens=120)
    grammars = {"plan": PLAN_GRAMMAR, "strict": STRICT}
    result = {"llm": args.llm, "rows": "MuSiQue 41-70",
              "grammars": {name: score(llm, grammar, rows) for name, grammar in grammars.items()}}  # fmt: skip
    path = write_result("hop_plan_reader", result)
    for name, scored in result["grammars"].items():
        agree, same = scored["hop_count_agreement"], scored["same_question_rate"]
        print(f"{name}: hop count {agree:.3f}, same question {same:.3f}")
    print(f"written {path}")


if __name__ == "__main__":
    main()

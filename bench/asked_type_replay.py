"""Would the asked-kind check withdraw any stored answer? `wrong_kind` replayed over committed A records.

    .venv/bin/python bench/asked_type_replay.py          # → bench/results/asked_type_replay.json

For every answer preset A stopped on in `bench/results/**/A.jsonl` (each question and answer once), the
signal `answer_wrong_kind` (`agents/signal_meter.py wrong_kind`, on with `gate.follow_hops`) computed from
the stored question and quoted draft: "kind" when the answer is clearly not of the asked kind (a place
for "in what year", a state for "which country"), "bridge" when it is the name a description of the
question is about, split by whether the scorer marked it right or wrong. Withdrawing them stops only
the wrong ones among those, and costs the right ones. MuSiQue and HotpotQA answers are counted apart:
the check was written for multi-hop chains (MuSiQue 41-70); the other sets never informed it.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
from common import write_result  # noqa: E402

from anchorgate.agents.signal_meter import wrong_kind  # noqa: E402

MULTI_HOP = ("musique", "hotpot", "hop_retrieval")


def main() -> None:
    counts: dict[str, Counter[str]] = {"multi-hop": Counter(), "other": Counter()}
    withdrawn: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for path in sorted((REPO / "bench" / "results").glob("**/A.jsonl")):
        group = "multi-hop" if any(m in str(path) for m in MULTI_HOP) else "other"
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            structure = (record.get("telemetry") or {}).get("draft_structure") or {}
            answer = str(structure.get("answer") or "")
            if record.get("abstained") or not answer or record.get("correct") is None or (record["id"], answer) in seen:
                continue
            seen.add((record["id"], answer))
            outcome = "right" if record.get("correct") else "wrong"
            state = {"question": record["question"], "draft_structure": structure}
            verdict = wrong_kind(state, idk=False, hop_next=False)  # type: ignore[arg-type]
            label = "not read" if verdict is None else verdict or "stands"
            counts[group][f"{outcome}, {label}"] += 1
            if verdict:
                withdrawn.append({"question": record["question"], "answer": answer, "why": verdict,
                                  "outcome": outcome, "record": str(path.relative_to(REPO))})  # fmt: skip
    result = {group: dict(sorted(c.items())) for group, c in counts.items()}
    path = write_result("asked_type_replay", {"answers": result, "withdrawn": withdrawn})
    for group, c in result.items():
        print(group, c)
    by = Counter(f"{w['why']} {w['outcome']}" for w in withdrawn)
    print(f"withdrawn: {len(withdrawn)} ({dict(sorted(by.items()))}); written {path}")


if __name__ == "__main__":
    main()

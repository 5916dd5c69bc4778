"""What a new retrieval round asks, chosen from the signals: a pure function, like the gate.

The gate says RETRIEVE_MORE and why; this decides with what (`gate.round_strategy`):

  question the question again.
  hyde     the question again, through HyDE's hypothetical passage in round 2.
  rewrite  a guarded LLM rewrite of the question (agents/query_rewriter.py); a rejected rewrite
           falls back to the question.
  auto     by what the signals say is missing:
           - an answer a second reading did not give
             again (RETRIEVE_INCONSISTENT_ANSWER): rewrite, to find corroboration;
           - a missing anchor: rewrite that puts the anchor first (its anchor worker runs as well);
           - the model declined although the evidence is strong (relevance, anchors, answer type):
             no round. The evidence most likely holds the answer and the reader will not give it
             again (in B's issue-12 evaluation, six sets, 0.5B: round 2 after RETRIEVE_LOW_SUPPORT,
             mostly following a decline, ended in a right answer for 1 of 177 questions). The gate
             then decides as if no round were left;
           - otherwise (low support with every anchor covered, the judge against): HyDE, whose
             hypothetical passage looks for the answer the evidence lacks (a rewrite from round 3
             on). A rejected rewrite falls back to HyDE there too.

Plans: `hyde`, `rewrite`, `plain` (the question as it is) and `none` (spend no round). HyDE is
only used in round 2 (a later round asks the question as it is), as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from anchorgate.graph.config import Config

Plan = Literal["hyde", "rewrite", "plain", "none"]
Fallback = Literal["question", "hyde"]


@dataclass(frozen=True)
class RoundPlan:
    """The next round's query tool, why, the anchors a rewrite should put first, and what a rejected rewrite becomes."""

    strategy: Plan
    why: str
    focus: tuple[str, ...] = field(default=())
    fallback: Fallback = "question"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form for the round log."""
        return {**asdict(self), "focus": list(self.focus)}


def choose_round_plan(signals: Mapping[str, Any], gate_reason: str, config: Config, next_round: int) -> RoundPlan:
    """The plan of retrieval round `next_round` after the gate's RETRIEVE_MORE with `gate_reason`."""
    strategy = config.gate.round_strategy
    hyde_ok = strategy in ("hyde", "auto") and next_round == 2
    missing = tuple(str(a) for a in signals.get("missing_anchors") or ())
    if strategy == "question":
        return RoundPlan("plain", "STRATEGY_PLAIN")
    if strategy == "hyde":
        return RoundPlan("hyde", "STRATEGY_HYDE") if hyde_ok else RoundPlan("plain", "STRATEGY_PLAIN")
    if config.gate.round_strategy == "rewrite":
        return RoundPlan("rewrite", "STRATEGY_REWRITE", missing)
    return _auto(signals, gate_reason, missing, hyde_ok)


def _auto(signals: Mapping[str, Any], gate_reason: str, missing: tuple[str, ...], hyde_ok: bool) -> RoundPlan:
    fallback: Fallback = "hyde" if hyde_ok else "question"
    if gate_reason == "RETRIEVE_INCONSISTENT_ANSWER":
        return RoundPlan("rewrite", gate_reason.removeprefix("RETRIEVE_"), missing, fallback)
    if missing:
        return RoundPlan("rewrite", "MISSING_ANCHOR", missing, fallback)
    if signals.get("idk") and signals.get("evidence_strong"):
        return RoundPlan("none", "DECLINED_STRONG_EVIDENCE")
    if hyde_ok:
        return RoundPlan("hyde", "LOW_SUPPORT")
    return RoundPlan("rewrite", "LOW_SUPPORT")

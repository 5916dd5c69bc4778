"""Named presets (DESIGN.md §2.5, seed 000 §7): baseline, A (precision-first), B (recall-first), C.

A preset is a set of overrides over `Config()` defaults, by `group.field`; `--set group.field=value` is
applied after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anchorgate.graph.config import Config
from anchorgate.tools.errors import ConfigError

# Baseline: one round, dense FAISS top-k, ~900-token context, no anchors/MMR/reranker, no gate.
_BASELINE: dict[str, Any] = {}

# A: one strong round + anchor one-shot retry; hybrid pool 24 -> 8 with MMR 0.45, anchor bonus,
# domain cap 2; BAUG with the judge only in the gray zone (<= 1 call). Measured departures from
# the seed (docs/benchmark-log.md): relevance floor 0.30, not 0.20 (ClapNQ abstention 0.80 -> 0.875,
# no Recall@8 lost on HotpotQA/NQ); the bridge hop's ranking counted twice in the fusion (both
# HotpotQA gold passages in the evidence 0.82 -> 0.90); misplaced citation markers repaired before
# the gate measures support (the gate abstained on right answers cited under the wrong number).
_A: dict[str, Any] = {
    "retrieval.mode": "hybrid",
    "retrieval.use_anchors": True,
    "retrieval.mmr_diversity": 0.45,
    "retrieval.anchor_bonus": 0.07,
    "retrieval.relevance_floor": 0.30,
    # multilingual-e5 scores on another scale: there 0.30 dropped FacQA's gold passage on 3 of questions
    # 1-60 (0.20: 2) and took no NoMIRACL-id question's evidence away that 0.20 keeps, so e5 keeps the
    # seed's 0.20 (docs/benchmark-log.md, 2026-11-24: the e5 relevance floor)
    "retrieval.e5_scale": {"retrieval.relevance_floor": 0.20, "gate.second_reading_below_relevance": 0.5},
    "retrieval.per_source_cap": 2,
    "gate.mode": "baug",
    "judge.policy": "gray_zone",
    "gate.factoid_one_shot": True,
    # an answer cited to a passage about something else, unlinked to the passages naming the question's
    # subject, is withdrawn (chosen on NoMIRACL-id 1-30 and HotpotQA 1-50; docs/benchmark-log.md, 2026-11-26:
    # answers from a passage about something else)
    "gate.abstain_unanchored_answers": True,
    "retrieval.bridge_links": 6,
    "retrieval.bridge_weight": 2.0,
    "answer.repair_citations": True,
    "answer.style": "auto",
    # a quoted answer over weak multilingual-e5 evidence (best relevance below 0.5) is read again with the
    # passages in reverse order, and withdrawn when the reader gives another answer (B: another round
    # first). NoMIRACL-id 1-30 (chosen): non-relevant abstained 0.60 -> 0.67, relevant answered 0.80 kept;
    # held out 31-70: 0.70 -> 0.80 and 0.80 kept, tokens 1.18x baseline; no FacQA 251-311 answer changed.
    # Not on MiniLM indexes: on ClapNQ 41-80 it withdrew 3 right answers worded differently twice and
    # stopped no wrong one (docs/benchmark-log.md, 2026-11-26/27: the second reading)
    "gate.second_reading": "withdraw",
    # (on multilingual-e5: 0.5, in retrieval.e5_scale above)
    "gate.second_reading_below_relevance": 0.0,
    # a quoted answer to a Chinese question whose quotes lack its numbers, the year asked or half the question's
    # nouns is withdrawn. NoMIRACL-zh rows 126-187 of each subset (chosen): non-relevant sets abstained 0.19 ->
    # 0.50, no relevant set's answer withdrawn; reported on rows 188-250 (BENCHMARKS.md › Chinese)
    "gate.chinese_quote_check": True,
}

# B: as A, two rounds; round 2 with a 700-token cap; the judge on every round's one-hop answer;
# list reserve 5+3. What round 2 asks is chosen from the signals (`gate.round_strategy=auto`,
# graph/round_strategy.py): HyDE for low support, a guarded rewrite for a missing anchor or an
# uncertain answer, and no round at all when the model declined on strong evidence (B's round 2
# rarely paid there: docs/benchmark-log.md).
# The judge asks yes/no and reads P(YES): with the packaged model the three-way verdict labelled
# 95 % of right and of hallucinated HaluEval answers PARTIAL (accuracy 0.50, and a reflect call
# each); P(YES) ≥ 0.3 scores 0.71 on held-out HaluEval items (docs/benchmark-log.md).
_B: dict[str, Any] = {
    **_A,
    "budget.max_rounds": 2,
    "gate.round_strategy": "auto",
    "judge.policy": "always",
    "judge.style": "yes_no",
    # one judge call per round: with one per question, a round-2 answer written after the judge
    # rejected round 1's stopped unjudged (docs/benchmark-log.md, 2026-11-24: B judges every round's answer)
    "judge.max_calls": 2,
    # a two-hop answer is not judged: the judge reads only the passages it cites and cannot see the link
    # (HotpotQA P(YES) AUC 0.45). Exempt, B gave the same answers on HotpotQA 1-30 (chosen) and 31-50
    # (held out) for 11 % fewer tokens (docs/benchmark-log.md, 2026-11-25: the judge and two-hop answers)
    "judge.bridged_answers": False,
    # judge.accept_p stays at the HaluEval-chosen 0.3. 0.5 won on NQ-open 1-40, ClapNQ 1-40 and HotpotQA
    # 1-15 but did not carry over: held out it withdrew 2 right HotpotQA answers (16-30), changed no
    # ClapNQ answer (41-80) and stopped 2 wrong NQ answers (41-70)
    # (docs/benchmark-log.md, 2026-11-24: the judge's threshold, tuned on one split, held out on another)
    "retrieval.list_reserve": (5, 3),
}

# C: as A plus a reranker (pointwise embedding rerank, then bounded pairwise LLM comparisons).
_C: dict[str, Any] = {**_A, "retrieval.reranker": "pairwise"}

PRESETS: dict[str, dict[str, Any]] = {"baseline": _BASELINE, "A": _A, "B": _B, "C": _C}


def preset_names() -> list[str]:
    """The preset names, in documentation order."""
    return list(PRESETS)


def load_preset(name: str, overrides: dict[str, Any] | None = None) -> Config:
    """The Config of preset `name` (case-insensitive) with `overrides` applied and validated."""
    canonical = {key.lower(): key for key in PRESETS}.get(name.strip().lower()) if isinstance(name, str) else None
    if canonical is None:
        raise ConfigError(f"unknown preset {name!r}", f"choose one of {', '.join(PRESETS)}")
    if overrides is not None and not isinstance(overrides, Mapping):
        raise ConfigError(f"overrides must map setting names to values, got {type(overrides).__name__}")
    preset = Config().replace(**PRESETS[canonical], preset=canonical)
    # str(key): a key that is not text (an API caller's) is an unknown setting, not a TypeError
    return preset.replace(**{**{str(key): value for key, value in (overrides or {}).items()}, "preset": canonical})

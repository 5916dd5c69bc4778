"""Preset B judges the draft of each round: a round-2 answer is never let through unjudged.

Before, B allowed one judge call per question: the judge rejected round 1's answer, round 2 wrote a
new one, and that one stopped on support overlap alone (NQ-open question 70: "LeBron James" for the
1976 best picture; docs/benchmark-log.md, 2026-11-24: B judges every round's answer).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.graph.presets import load_preset
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import DenseIndex
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, bag_of_words_index, quoting_aware

PASSAGES = [
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
    Passage("voles", "Voles", "Barn owls hunt voles and mice in open fields."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis in China and Japan."),
    # found only by round 2's HyDE query: round 2 reads a new context, so its reader writes a new draft
    Passage("shrews", "Shrews", "Barn owls also catch shrews in the hedges."),
]
EMBEDDINGS = BagOfWordsEmbeddings(256)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> DenseIndex:
    return bag_of_words_index(PASSAGES, tmp_path_factory.mktemp("idx"), EMBEDDINGS)


def _doubting_judge() -> ScriptedChatModel:
    """A reader that answers differently in each round, and a judge whose P(YES) is 0.2."""
    answers = iter(["Owls hunt mice at night [1].", "Owls hunt voles and mice [1]."])

    def reply(prompt: str) -> str:
        if "YES or NO" in prompt:
            return "NO"
        if "Paragraph:" in prompt:
            return "Owls catch shrews in the hedges."
        return next(answers, "Owls hunt mice [1].")

    model = ScriptedChatModel(script=quoting_aware(reply), report_usage=True)
    model.first_tokens = [("NO", math.log(0.8)), ("YES", math.log(0.2))]
    return model


async def _ask_b(tmp_path: Path, index: DenseIndex, **extra: Any) -> dict[str, Any]:
    services_id = register_services(Services(index, EMBEDDINGS, _doubting_judge(), "toy"))
    overrides = {"resources.services_id": services_id, "resources.checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    return await aask("What do owls hunt at night?", preset="B", overrides=overrides)


def test_preset_b_allows_one_judge_call_per_round() -> None:
    b = load_preset("B")
    assert b.judge.max_calls == b.budget.max_rounds == 2


async def test_round_two_answer_is_judged_and_rejected(tmp_path: Path, index: DenseIndex) -> None:
    result = await _ask_b(tmp_path, index)
    gates = result["telemetry"]["gate"]
    assert [g["reason"] for g in gates] == ["RETRIEVE_JUDGE_UNSUPPORTED", "ABSTAIN_JUDGE_REJECTED"]
    assert result["rounds"] == 2 and result["tokens"]["by_stage"]["judge"]["calls"] == 2
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_JUDGE_REJECTED")


async def test_with_one_judge_call_the_round_two_answer_stops_unjudged(tmp_path: Path, index: DenseIndex) -> None:
    result = await _ask_b(tmp_path, index, **{"judge.max_calls": 1})
    assert result["rounds"] == 2 and result["tokens"]["by_stage"]["judge"]["calls"] == 1
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")

"""A two-hop answer through the graph: with `judge.bridged_answers=false` the judge is not asked of an
answer whose cited passage misses a question anchor another passage holds, and it stops unjudged;
with the default the same doubting judge rejects it (HotpotQA "Latin" for the era of Haymo of
Faversham; docs/benchmark-log.md, 2026-11-25: the judge and two-hop answers). Real graph, real index
code, a scripted model."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.graph.presets import load_preset
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import DenseIndex
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, bag_of_words_index

PASSAGES = [
    # the first hop names the second's subject, as Wikipedia's links do: a linked, bridged answer
    Passage("haymo", "Haymo of Faversham", "Haymo of Faversham, a friar of the Recovery of Aristotle, died in 1244."),
    Passage("aristotle", "Recovery of Aristotle", "In the thirteenth century era books were translated into Latin."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis in China and Japan."),
]
QUESTION = "What language were books translated into during the era of Haymo of Faversham?"
EMBEDDINGS = BagOfWordsEmbeddings(256)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> DenseIndex:
    return bag_of_words_index(PASSAGES, tmp_path_factory.mktemp("idx"), EMBEDDINGS)


def _reader_and_doubting_judge() -> ScriptedChatModel:
    """The reader answers "Latin" citing the Aristotle passage only; the judge's P(YES) is 0.2."""

    def reply(prompt: str) -> str:
        if "YES or NO" in prompt:
            return "NO"
        number = re.search(r"\[(\d+)\] Recovery of Aristotle", prompt)
        return f"Latin [{number.group(1) if number else 1}]."

    model = ScriptedChatModel(script=reply, report_usage=True)
    model.first_tokens = [("NO", math.log(0.8)), ("YES", math.log(0.2))]
    return model


async def _ask(tmp_path: Path, index: DenseIndex, **extra: Any) -> dict[str, Any]:
    services_id = register_services(Services(index, EMBEDDINGS, _reader_and_doubting_judge(), "toy"))
    overrides = {
        "resources.services_id": services_id,
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "answer.style": "free",
        "judge.policy": "always",
        "judge.style": "answerable",
        **extra,
    }
    return await aask(QUESTION, preset="A", overrides=overrides)


async def test_a_two_hop_answer_is_not_judged_when_exempt(tmp_path: Path, index: DenseIndex) -> None:
    result = await _ask(tmp_path, index, **{"judge.bridged_answers": False})
    gate = result["telemetry"]["gate"][-1]
    assert gate["signals"]["answer_bridged"] is True
    assert gate["signals"]["answer_unanchored"] is False  # linked by the title mention
    assert "judge" not in result["tokens"]["by_stage"]
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")


async def test_by_default_the_same_answer_is_judged_and_rejected(tmp_path: Path, index: DenseIndex) -> None:
    result = await _ask(tmp_path, index)
    assert result["tokens"]["by_stage"]["judge"]["calls"] == 1
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_JUDGE_REJECTED")


async def test_a_year_the_cited_passage_lacks_is_no_hop(tmp_path: Path, index: DenseIndex) -> None:
    # NQ-open 70: "LeBron James" for the 1976 best picture cites a passage without "1976", another
    # passage has the year. That is a doubt about the answer, not a link: the judge is asked.
    question = "what language were books translated into in the era of the friar who died in 1244?"
    services_id = register_services(Services(index, EMBEDDINGS, _reader_and_doubting_judge(), "toy"))
    overrides = {
        "resources.services_id": services_id,
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "answer.style": "free",
        "judge.policy": "always",
        "judge.style": "answerable",
        "judge.bridged_answers": False,
    }
    result = await aask(question, preset="A", overrides=overrides)
    assert len(result["telemetry"]["context"]) == 2  # the passage holding 1244 is there, not cited
    assert result["telemetry"]["gate"][0]["signals"]["answer_bridged"] is False
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_JUDGE_REJECTED")


def test_preset_b_exempts_two_hop_answers_and_a_keeps_the_default() -> None:
    assert load_preset("B").judge.bridged_answers is False
    assert load_preset("A").judge.bridged_answers is True

"""`answer_unanchored`: an answer cited to a passage about something else, while other passages name the
question's subject and nothing links the two, answers a neighbouring question (NoMIRACL-id "siapakah
karakter utama dalam manga One Piece?" answered "Naruto Uzumaki" from the Naruto character list).
The function on passages, then through the graph: real index code, a scripted reader."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.tools.answer.answer_links import answer_unanchored
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import DenseIndex
from anchorgate.tools.question.anchors import Anchor
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, bag_of_words_index

ONE_PIECE = Anchor("One Piece", "entity", True, 0.85)


def _passage(n: int, title: str, text: str) -> dict[str, Any]:
    return {"n": n, "id": f"{title}#0", "title": title, "text": text}


SUBJECT = _passage(1, "One Piece", "One Piece is a manga by Eiichiro Oda about a crew of pirates.")
ELSEWHERE = _passage(2, "Naruto characters", "The main character of the manga Naruto is Naruto Uzumaki.")


def test_an_answer_from_a_passage_unlinked_to_the_subject_is_unanchored() -> None:
    assert answer_unanchored([ONE_PIECE], "Naruto Uzumaki [2]", [SUBJECT, ELSEWHERE]) is True


def test_citing_a_passage_that_names_the_anchor_is_anchored() -> None:
    assert answer_unanchored([ONE_PIECE], "Monkey D. Luffy [1]", [SUBJECT, ELSEWHERE]) is False
    assert answer_unanchored([ONE_PIECE], "Naruto Uzumaki [1][2]", [SUBJECT, ELSEWHERE]) is False


@pytest.mark.parametrize(
    "holder, cited",
    [
        # the passage naming the anchor mentions the cited passage's title: the first hop of a two-hop answer
        (
            _passage(1, "Eiichiro Oda", "Eiichiro Oda wrote One Piece; his rival drew the Naruto characters."),
            ELSEWHERE,
        ),
        # the cited passage mentions the title of the passage naming the anchor
        (
            _passage(1, "Eiichiro Oda", "Eiichiro Oda is the author of the manga One Piece."),
            _passage(2, "Naruto characters", "Naruto Uzumaki was drawn in the years Eiichiro Oda drew his own hero."),
        ),
    ],
)
def test_a_title_mention_either_way_links_the_passages(holder: dict[str, Any], cited: dict[str, Any]) -> None:
    assert "One Piece" not in cited["text"]
    assert answer_unanchored([ONE_PIECE], "Naruto Uzumaki [2]", [holder, cited]) is False
    unlinked = _passage(1, "Eiichiro Oda", "Eiichiro Oda is the author of the manga One Piece.")
    assert answer_unanchored([ONE_PIECE], "Naruto Uzumaki [2]", [unlinked, ELSEWHERE]) is True


def test_another_chunk_of_the_same_document_is_linked() -> None:
    # a later chunk of the anchor's own article may not repeat its name in the text
    later = _passage(2, "Monkey D. Luffy", "He is the captain of the Straw Hat Pirates.")
    luffy = _passage(1, "Monkey D. Luffy", "Monkey D. Luffy is the hero of One Piece.")
    assert answer_unanchored([ONE_PIECE], "Luffy [2]", [luffy, later]) is False


def test_no_passage_holding_the_anchor_leaves_the_decision_to_the_missing_anchor_rules() -> None:
    assert answer_unanchored([ONE_PIECE], "Naruto Uzumaki [1]", [ELSEWHERE | {"n": 1}]) is False


def test_no_citation_no_anchor_or_a_non_essential_anchor_is_not_unanchored() -> None:
    context = [SUBJECT, ELSEWHERE]
    assert answer_unanchored([ONE_PIECE], "Naruto Uzumaki", context) is False
    assert answer_unanchored([], "Naruto Uzumaki [2]", context) is False
    assert answer_unanchored([Anchor("One Piece", "entity", False, 0.5)], "Naruto Uzumaki [2]", context) is False


PASSAGES = [
    Passage("one-piece", "One Piece", SUBJECT["text"]),
    Passage("naruto", "Naruto characters", ELSEWHERE["text"]),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis in China and Japan."),
]
QUESTION = "Who is the main character of the manga One Piece?"
EMBEDDINGS = BagOfWordsEmbeddings(256)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> DenseIndex:
    return bag_of_words_index(PASSAGES, tmp_path_factory.mktemp("idx"), EMBEDDINGS)


def _reader_citing_naruto() -> ScriptedChatModel:
    def reply(prompt: str) -> str:
        number = re.search(r"\[(\d+)\] Naruto characters", prompt)
        return f"Naruto Uzumaki [{number.group(1) if number else 1}]."

    return ScriptedChatModel(script=reply, report_usage=True)


async def _ask(tmp_path: Path, index: DenseIndex, preset: str, **extra: Any) -> dict[str, Any]:
    services_id = register_services(Services(index, EMBEDDINGS, _reader_citing_naruto(), "toy"))
    overrides = {
        "resources.services_id": services_id,
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "answer.style": "free",
        **extra,
    }
    return await aask(QUESTION, preset=preset, overrides=overrides)


async def test_preset_a_withdraws_the_unanchored_answer(tmp_path: Path, index: DenseIndex) -> None:
    result = await _ask(tmp_path, index, "A")
    signals = result["telemetry"]["gate"][-1]["signals"]
    assert {c["id"].split("#")[0] for c in result["telemetry"]["context"]} >= {"one-piece", "naruto"}
    assert signals["answer_unanchored"] is True and signals["overlap"] >= 0.5
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_UNANCHORED_ANSWER")


async def test_with_the_setting_off_the_same_answer_stops(tmp_path: Path, index: DenseIndex) -> None:
    result = await _ask(tmp_path, index, "A", **{"gate.abstain_unanchored_answers": False})
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert "Naruto Uzumaki" in result["answer"]


async def test_preset_b_spends_its_round_2_then_withdraws_without_a_judge_call(
    tmp_path: Path, index: DenseIndex
) -> None:
    result = await _ask(tmp_path, index, "B")
    reasons = [g["reason"] for g in result["telemetry"]["gate"]]
    assert reasons[0] == "RETRIEVE_UNANCHORED_ANSWER"
    assert result["reason"] == "ABSTAIN_UNANCHORED_ANSWER"
    assert "judge" not in result["tokens"]["by_stage"]

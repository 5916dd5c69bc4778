"""What a (sub-)question asks for, whether an answer is of that kind, and answers stuck at a bridge.

Examples are written here, not copied from any evaluation row.
"""

from __future__ import annotations

from typing import Any

import pytest

from anchorgate.agents.signal_meter import wrong_kind
from anchorgate.tools.question.asked_type import answer_fits, answer_key, asked_type, is_bridge_answer
from anchorgate.tools.question.country_names import country_of, is_country, is_nationality, is_subdivision
from anchorgate.tools.question.hop_plan import HopPlan, plan_hops


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("In what year did #1 join the European Union?", "year"),
        ("Which year was Dead Souls published?", "year"),
        ("When did #1 die?", "date"),
        ("How many people live in #1?", "number"),
        ("What is the population of #1?", "number"),
        ("Who is the spouse of #1?", "person"),
        ("Which country is Lake Tahoe located in?", "country"),
        ("What is Edvard Grieg's nationality?", "country"),
        ("Which state contains Lake Tahoe?", "region"),
        ("In what county is Little Snoring?", "region"),
        ("In which city was #1 born?", "city"),
        ("What is Ada Lovelace's city of birth?", "city"),
        ("What is the birthplace of #1?", "place"),
        ("Where was #1 born?", "place"),
        ("Which university did #1 attend?", "organisation"),
        ("What is the main airport in #1?", "other"),
        # a relative "who"/"where" inside the question asks nothing
        ("What is the main airport of The Man Who Fell to Earth?", "other"),
        ("What is the state where Baure is located named after?", "other"),
        ("Who was the first president of Damerjog's country?", "person"),
    ],
)
def test_asked_type(question: str, kind: str) -> None:
    assert asked_type(question) == kind


@pytest.mark.parametrize(
    ("kind", "answer", "fits"),
    [
        ("year", "1905", True),
        ("year", "in 1905", True),
        ("year", "Norway", False),  # a year is not answered with a place
        ("year", "Stockholm", False),
        ("date", "June 6, 1944", True),
        ("date", "Norway", False),
        ("date", "Gogol", None),
        ("number", "5.3 million", True),
        ("number", "twelve", True),
        ("number", "Kansas", False),
        ("country", "Norway", True),
        ("country", "Norwegian", True),  # a nationality names its country
        ("country", "the Netherlands", True),
        ("country", "Indiana", False),  # "which country" is not answered with a state
        ("country", "1905", False),
        ("country", "Prussia", None),  # not in today's country list: cannot tell
        ("region", "Indiana", True),
        ("region", "Ontario", True),
        ("region", "Norway", False),
        ("city", "France", False),
        ("city", "Bergen", None),
        ("place", "Nova Scotia", True),
        ("person", "Norway", False),
        ("person", "the English", None),  # a people may answer "who"
        ("person", "Nikolai Gogol", None),
        ("other", "anything", None),
        ("other", "1905", None),  # a question read as asking nothing in particular is not contradicted
        ("country", "", False),
    ],
)
def test_answer_fits(kind: str, answer: str, fits: bool | None) -> None:
    assert answer_fits(kind, answer) is fits  # type: ignore[arg-type]


def test_nationality_words_come_from_the_country_data() -> None:
    assert country_of("Norwegian") == "Norway" and country_of("norway") == "Norway"
    assert is_nationality("Norwegian") and not is_nationality("Norway")
    assert is_country("South Korea") and not is_country("Des Moines")
    assert is_subdivision("Maharashtra") and not is_subdivision("Norway")
    assert answer_key("Norwegian") == answer_key("the Kingdom of Norway") == "norway"


def test_bridge_answer_is_an_intermediate_answer_or_a_named_entity() -> None:
    plan = plan_hops("What is the population of Ada Lovelace's city of birth?")
    hop_answers = ["London", "8.9 million"]
    assert is_bridge_answer("london", plan, hop_answers)  # stopped at hop 1's answer
    assert is_bridge_answer("Ada Lovelace", plan, hop_answers)  # echoes the question's own entity
    assert not is_bridge_answer("8.9 million", plan, hop_answers)  # the last hop's answer is the answer
    assert not is_bridge_answer("", plan, hop_answers)


def test_bridge_answer_normalises_nationalities() -> None:
    plan = HopPlan(("Which country is Bergen in?", "Who leads #1?"), "planned")
    assert is_bridge_answer("Norwegian", plan, ["Norway", "Jonas Gahr Støre"])
    assert not is_bridge_answer("Jonas Gahr Store", plan, ["Norway", "Jonas Gahr Støre"])


def _drafted(question: str, answer: str, status: str = "quoted", **state: Any) -> dict[str, Any]:
    return {"question": question, "draft_structure": {"status": status, "answer": answer}, **state}


def test_the_meter_names_an_answer_of_another_kind_or_the_bridge() -> None:
    asked = "Who is the spouse of the author of Dead Ernest?"
    assert wrong_kind(_drafted("In what year was the bridge opened?", "Iowa"), idk=False, hop_next=False) == "kind"  # type: ignore[arg-type]
    assert wrong_kind(_drafted("How many people live in #1?", "London"), idk=False, hop_next=False) == "kind"  # type: ignore[arg-type]
    assert wrong_kind(_drafted(asked, "Dead Ernest"), idk=False, hop_next=False) == "bridge"  # type: ignore[arg-type]
    assert wrong_kind(_drafted(asked, "Jane Doe"), idk=False, hop_next=False) == ""  # type: ignore[arg-type]
    assert wrong_kind(_drafted(asked, "Dead Ernest", status="free"), idk=False, hop_next=False) is None  # type: ignore[arg-type]
    assert wrong_kind(_drafted(asked, "Dead Ernest"), idk=True, hop_next=False) is None  # type: ignore[arg-type]


def test_the_meter_reads_the_bridge_only_at_the_last_hop() -> None:
    asked = "Who is the spouse of the author of Dead Ernest?"
    plan = plan_hops(asked)
    assert len(plan.hops) == 2
    hopping = {"asked_question": asked, "hop_plan": list(plan.hops)}
    inner = _drafted(plan.hops[0], "Alan Smith", hop=0, hop_chain=[], **hopping)
    assert wrong_kind(inner, idk=False, hop_next=True) == ""  # type: ignore[arg-type]
    chain = [{"reset": True}, {"hop": 1, "question": plan.hops[0], "answer": "Alan Smith"}]
    last = _drafted("Who is the spouse of Alan Smith?", "Alan Smith", hop=1, hop_chain=chain, **hopping)
    assert wrong_kind(last, idk=False, hop_next=False) == "bridge"  # type: ignore[arg-type]
    answered = _drafted("Who is the spouse of Alan Smith?", "Jane Doe", hop=1, hop_chain=chain, **hopping)
    assert wrong_kind(answered, idk=False, hop_next=False) == ""  # type: ignore[arg-type]

"""What a (sub-)question asks for, whether an answer is of that kind, and answers stuck at a bridge.

Examples are written here, not copied from any evaluation row.
"""

from __future__ import annotations

import pytest

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

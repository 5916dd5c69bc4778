"""Full dates from the verified quote (`full_dates`)."""

from __future__ import annotations

import pytest

from anchorgate.tools.answer.dates import completed_date, wants_full_date
from anchorgate.tools.answer.reader import quoted_update

RESORT = "Disney's Art of Animation Resort opened on May 31, 2012 as the newest value resort."


@pytest.mark.parametrize(
    ("answer", "quote", "question", "expected"),
    [
        ("2012", RESORT, "when did disney art of animation resort open", "May 31, 2012"),
        ("in 2018", "Season 2 premiered on 8 March 2018.", "when is season 2 released", "8 March 2018"),
        ("March 2018", "Season 2 premiered on March 8th, 2018.", "when was it released", "March 8th, 2018"),
        ("2005", "ditetapkan pada tanggal 27 Mei 2005", "Kapan kuota itu ditetapkan?", "27 Mei 2005"),
        ("2012", RESORT, "what year did the resort open", None),  # the year was asked for
        ("2011", RESORT, "when did the resort open", None),  # no date in the quote holds it
        ("1998", "It opened in 1998.", "when did it open", None),  # nothing fuller to take
        ("May 31, 2012", RESORT, "when did the resort open", None),  # already whole
        ("Walt Disney", RESORT, "who opened the resort when it was new", None),  # not a date
    ],
)
def test_a_clipped_when_answer_is_completed_from_its_quote(
    answer: str, quote: str, question: str, expected: str | None
) -> None:
    assert completed_date(answer, quote, question) == expected


def test_only_when_questions_that_do_not_ask_for_the_year_want_a_full_date() -> None:
    assert wants_full_date("When did the resort open?") and wants_full_date("Kapan resor itu dibuka?")
    assert wants_full_date("Kapankah resor itu dibuka?") and wants_full_date("What date did the resort open?")
    assert not wants_full_date("In what year did the resort open?")
    assert not wants_full_date("Where is the resort?")


def test_the_draft_carries_the_full_date_and_keeps_the_clipped_answer() -> None:
    context = [{"n": 1, "title": "Art of Animation", "text": RESORT}]
    reply = f"2012\nQUOTE [1]: {RESORT}"
    on = quoted_update(reply, context, "when did the art of animation resort open", full_dates=True)
    assert on["draft"] == "May 31, 2012 [1]"
    assert on["draft_structure"]["clipped_answer"] == "2012" and on["draft_structure"]["grounding"] == 1.0
    off = quoted_update(reply, context, "when did the art of animation resort open", full_dates=False)
    assert off["draft"] == "2012 [1]" and "clipped_answer" not in off["draft_structure"]

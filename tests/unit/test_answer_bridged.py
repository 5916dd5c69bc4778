"""`answer_bridged`: an answer whose cited passages miss a firm question anchor that another passage
holds stands on a link between passages (HotpotQA's "Latin" for Haymo of Faversham's era cites the
passage on the recovery of Aristotle, which never names Haymo)."""

from __future__ import annotations

from typing import Any

from anchorgate.tools.answer.answer_links import answer_bridged
from anchorgate.tools.question.anchors import Anchor

HAYMO = Anchor("Haymo of Faversham", "entity", True, 0.9)


def _passage(n: int, title: str, text: str) -> dict[str, Any]:
    return {"n": n, "id": f"{title}#0", "title": title, "text": text}


CONTEXT = [
    _passage(1, "Haymo of Faversham", "Haymo of Faversham was an English Franciscan active in the 13th century."),
    _passage(2, "Recovery of Aristotle", "In the 13th century Aristotle's books were translated into Latin."),
]


def test_an_answer_citing_only_the_second_hop_is_bridged() -> None:
    assert answer_bridged([HAYMO], "Latin [2]", CONTEXT) is True


def test_an_answer_citing_the_passage_that_names_the_anchor_is_not() -> None:
    assert answer_bridged([HAYMO], "Latin [1]", CONTEXT) is False
    assert answer_bridged([HAYMO], "Latin [1][2]", CONTEXT) is False


def test_an_anchor_no_passage_holds_is_a_missing_anchor_not_a_bridge() -> None:
    absent = Anchor("Roger Bacon", "entity", True, 0.9)
    assert answer_bridged([absent], "Latin [2]", CONTEXT) is False


def test_no_citation_or_no_firm_anchor_is_not_bridged() -> None:
    assert answer_bridged([HAYMO], "Latin", CONTEXT) is False
    assert answer_bridged([], "Latin [2]", CONTEXT) is False

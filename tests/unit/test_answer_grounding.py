"""Answer grounding: an answer whose words no judged passage holds is caught without a model."""

from __future__ import annotations

from anchorgate.tools.answer.grounding import answer_grounding

OBEROI = [{"title": "The Oberoi Group", "text": "The Oberoi Group is a hotel company with its head office in Delhi."}]


def test_an_answer_from_the_passage_is_grounded() -> None:
    assert answer_grounding("Delhi", OBEROI) == 1.0
    assert answer_grounding("The head office is in Delhi [1].", OBEROI) == 1.0


def test_an_answer_that_brings_words_no_passage_holds_is_not() -> None:
    assert answer_grounding("Mumbai, the financial capital of India.", OBEROI) == 0.0
    assert answer_grounding("Delhi and Mumbai", OBEROI) == 0.5


def test_only_the_answer_span_is_checked() -> None:
    draft = "Delhi [1].\nQUOTE: The Oberoi Group is a hotel company with its head office in Delhi."
    assert answer_grounding(draft, OBEROI) == 1.0
    assert answer_grounding("Delhi. It was founded by Mohan Singh Oberoi in Shimla.", OBEROI) == 1.0


def test_a_yes_no_answer_is_left_to_the_llm_judge() -> None:
    assert answer_grounding("Yes.", OBEROI) == 1.0


def test_titles_count_and_inflections_match() -> None:
    passages = [{"title": "Hotels of India", "text": "Oberoi runs a chain."}]
    assert answer_grounding("Indian hotel chains", passages) < 1.0  # "indian" is not "india"
    assert answer_grounding("hotel chains of India", passages) == 1.0


def test_chinese_answers_are_compared_by_bigrams() -> None:
    passages = [{"title": "", "text": "埃菲尔铁塔于1889年建成。"}]
    assert answer_grounding("1889年建成", passages) == 1.0
    assert answer_grounding("1925年拆除", passages) < 0.5

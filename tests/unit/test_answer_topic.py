"""`answer_off_topic`: a short answer whose context sentences say nothing about the question.

The rows are the NQ-open and ClapNQ answers the 1.5B reader gave out of a neighbouring question's passage
(docs/benchmark-log.md, 2026-11-27: off-topic answers withdrawn), and the right answers the check must leave alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from anchorgate.tools.answer.answer_topic import answer_off_topic, draft_off_topic

TREE = "who said if a tree falls in the woods and nobody hears it"
SONG = {
    "title": "Girl, You'll Be a Woman Soon",
    "text": '"Girl, You\'ll Be a Woman Soon" is a song written by American musician Neil Diamond, whose recording'
    " of it on Bang Records reached number 10 on the US pop singles chart in 1967.",
}
BERKELEY = {
    "title": "If a tree falls in a forest",
    "text": '"If a tree falls in a forest and no one is around to hear it, does it make a sound?" is a'
    " philosophical thought experiment. Philosopher George Berkeley is often credited with it.",
}
OUTSIDERS = {
    "title": "The Outsiders (novel)",
    "text": "The novel follows two rival groups, the Greasers and the Socs. It is set in Tulsa, Oklahoma in 1965.",
}


def _passages(*passages: dict[str, str]) -> list[dict[str, Any]]:
    return [{"n": n, **p} for n, p in enumerate(passages, start=1)]


def test_an_answer_out_of_a_sentence_about_something_else_is_off_topic() -> None:
    assert answer_off_topic(TREE, "Neil Diamond", _passages(BERKELEY, SONG)) is True


def test_an_answer_whose_sentence_shares_a_question_word_is_on_topic() -> None:
    assert answer_off_topic(TREE, "George Berkeley", _passages(BERKELEY, SONG)) is False


def test_any_sentence_holding_the_answer_on_topic_is_enough() -> None:
    other = {"title": "Neil Diamond", "text": "Neil Diamond once sang about a tree that falls in the woods."}
    assert answer_off_topic(TREE, "Neil Diamond", _passages(SONG, other)) is False


def test_the_passage_title_speaks_for_a_sentence_about_its_subject() -> None:
    # "It is set in Tulsa" names neither greasers nor outsiders: the page's title does
    question = "where do the greasers live in the outsiders"
    assert answer_off_topic(question, "Tulsa, Oklahoma", _passages(OUTSIDERS)) is False
    untitled = {**OUTSIDERS, "title": ""}
    assert (
        answer_off_topic(question, "Tulsa, Oklahoma", _passages({**untitled, "text": "It is set in Tulsa, Oklahoma."}))
        is True
    )


def test_suffixes_are_folded() -> None:
    passage = {"title": "", "text": "Filming took place at 20th Century-Fox Studios in 1965."}
    assert (
        answer_off_topic("where was the flight of the phoenix filmed", "20th Century-Fox Studios", [passage]) is False
    )


def test_two_question_words_count_written_as_one() -> None:
    # the passage's page is "macOS"; the question writes "mac os"
    passage = {"title": "macOS", "text": "The latest version is High Sierra, released in September 2017."}
    question = "what is the current mac os operating system"
    assert answer_off_topic(question, "High Sierra", [passage]) is False
    assert answer_off_topic(question, "High Sierra", [{**passage, "title": "Apple"}]) is True


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is Neil Diamond older than the tree?", "yes"),  # yes/no: the answer is the question's own words
        ("Who is older, Neil Diamond or George Berkeley?", "Neil Diamond"),  # a choice between named options
        ("Siapa yang menulis lagu itu?", "Neil Diamond"),  # not English: affixes the folding does not know
        (TREE, "a song written by American musician Neil Diamond in the year 1967"),  # a sentence-long answer
        (TREE, "Bob Dylan"),  # no sentence holds it: nothing to read
        (TREE, "the"),  # no content word
    ],
)
def test_it_does_not_speak_when_it_cannot_tell(question: str, answer: str) -> None:
    assert answer_off_topic(question, answer, _passages(SONG)) is None


def test_a_draft_is_read_through_its_short_answer() -> None:
    # citations stripped, the answer span cut from the sentence as scoring does
    assert draft_off_topic(TREE, "Neil Diamond [2]", _passages(BERKELEY, SONG)) is True
    assert draft_off_topic(TREE, "George Berkeley [1]", _passages(BERKELEY, SONG)) is False

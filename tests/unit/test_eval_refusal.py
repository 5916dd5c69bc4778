"""The scorer's own refusal detector (eval/scoring/refusal.py), in English, Indonesian and Chinese, and
what it does to a score."""

from __future__ import annotations

import pytest

from anchorgate.eval.scoring.metrics import score_question
from anchorgate.eval.scoring.refusal import is_refusal, opening_sentence

REFUSALS = [
    "I don't know.",
    "I don’t know [1].",
    "I cannot answer this question from the passages.",
    "The passages do not mention when the bridge was built.",
    "The provided context does not specify his age.",
    "There is not enough information to answer.",
    "No information about the author is given.",
    "It is not mentioned in the passage.",
    "Unknown.",
    "",
    "  [1] ",
    "Saya tidak tahu.",
    "Tidak diketahui.",
    "Teks tersebut tidak menyebutkan tanggalnya.",
    "Pertanyaan ini tidak dapat dijawab dari teks.",
    "我不知道。",
    "无法回答这个问题。",
    "文档中没有提到他的出生地。",
]
ANSWERS = [
    "Warren Beatty [2].",
    "The cause of the fire is unknown [1].",  # "unknown" is the answer here, not a refusal
    "Penyebabnya tidak diketahui hingga kini.",
    "He was born in 1990. The passages do not give his birthplace.",  # only the opening sentence counts
    "No, the Great Wall is not visible from space [1].",
    "北京是中国的首都。",
    "Nobody knows.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_are_seen(text: str) -> None:
    assert is_refusal(text)


@pytest.mark.parametrize("text", ANSWERS)
def test_answers_are_not_refusals(text: str) -> None:
    assert not is_refusal(text)


def test_only_the_opening_sentence_is_read() -> None:
    assert opening_sentence("He was born in 1990 [1]. The rest is unknown.") == "He was born in 1990."
    assert opening_sentence("北京是首都。我不知道别的。") == "北京是首都。"


def test_a_refusal_with_stop_is_an_abstention_not_a_wrong_answer() -> None:
    score = score_question(answer="The passages do not say.", short_answer="", decision="STOP", golds=["Paris"],
                           answerable=True, false_premise=False)  # fmt: skip
    assert score.abstained and score.crag_score == 0 and score.wrong_on_answerable is False
    answered = score_question(answer="Lyon [1].", short_answer="Lyon", decision="STOP", golds=["Paris"],
                              answerable=True, false_premise=False)  # fmt: skip
    assert not answered.abstained and answered.crag_score == -1 and answered.wrong_on_answerable is True

"""Answer metrics: SQuAD EM/F1 (differential against the official v1.1 logic), CRAG score,
abstention precision/recall, false-premise detection and percentiles."""

from __future__ import annotations

import random
import re
import string
from collections import Counter

import numpy as np
import pytest

from anchorgate.eval.scoring.metrics import (
    abstention_precision_recall,
    best_over_aliases,
    contains_gold,
    detects_false_premise,
    exact_match,
    is_correct,
    mean,
    normalize_answer,
    percentile,
    score_question,
    token_f1,
)

# --- Reference: the logic of the official SQuAD v1.1 script (evaluate-v1.1.py, Rajpurkar et al.,
# https://rajpurkar.github.io/SQuAD-explorer/), restated here only as a test oracle. -------------


def _ref_normalize(s: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def _ref_f1(prediction: str, ground_truth: str) -> float:
    pred, gold = _ref_normalize(prediction).split(), _ref_normalize(ground_truth).split()
    common = Counter(pred) & Counter(gold)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision, recall = num_same / len(pred), num_same / len(gold)
    return (2 * precision * recall) / (precision + recall)


def _ref_em(prediction: str, ground_truth: str) -> float:
    return float(_ref_normalize(prediction) == _ref_normalize(ground_truth))


# Hand-computed cases: (prediction, gold, EM, F1).
HAND = [
    ("The Eiffel Tower", "eiffel tower", 1.0, 1.0),
    ("Denver Broncos", "Denver Broncos!", 1.0, 1.0),
    ("the cat sat", "a cat sat down", 0.0, 0.8),  # 2 shared of 2 pred / 3 gold: P=1, R=2/3
    ("Paris, France", "Paris", 0.0, 2 / 3),  # P=1/2, R=1
    ("U.S.", "US", 1.0, 1.0),  # punctuation removed without a space
    ("an apple a day", "the apple", 0.0, 2 / 3),  # "apple day" vs "apple": P=1/2 R=1
    ("blue blue blue", "blue sky", 0.0, 0.4),  # multiset: 1 shared, P=1/3 R=1/2
    ("nothing in common", "completely different", 0.0, 0.0),
]


@pytest.mark.parametrize(("prediction", "gold", "em", "f1"), HAND)
def test_hand_computed_em_and_f1(prediction: str, gold: str, em: float, f1: float) -> None:
    assert exact_match(prediction, gold) == em == _ref_em(prediction, gold)
    assert token_f1(prediction, gold) == pytest.approx(f1) and _ref_f1(prediction, gold) == pytest.approx(f1)


def test_differential_against_the_reference_on_random_ascii() -> None:
    rng = random.Random(7)
    vocabulary = ["the", "a", "an", "cat", "Cat", "sat", "U.S.", "mat", "dog's", "(1999)", "x-y", "and", "of", "!", "?"]
    for _ in range(2000):
        pred = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 6)))
        gold = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 6)))
        if not _ref_normalize(pred) or not _ref_normalize(gold):
            continue  # the reference divides by zero there; see the empty-answer test
        assert normalize_answer(pred) == _ref_normalize(pred)
        assert exact_match(pred, gold) == _ref_em(pred, gold)
        assert token_f1(pred, gold) == pytest.approx(_ref_f1(pred, gold))


def test_empty_answers_follow_the_squad2_rule_and_unicode_punctuation_is_dropped() -> None:
    assert token_f1("", "") == 1.0 and token_f1("the", "") == 1.0 and token_f1("", "Paris") == 0.0
    assert exact_match("“Hamlet”", "Hamlet") == 1.0 and normalize_answer("Jean–Paul’s") == "jeanpauls"


def test_best_over_aliases_takes_the_maximum_and_none_without_gold() -> None:
    assert best_over_aliases("Bill Clinton", ["William Jefferson Clinton", "Bill Clinton"], token_f1) == 1.0
    assert best_over_aliases("Clinton", ["William Jefferson Clinton"], token_f1) == pytest.approx(0.5)
    assert best_over_aliases("x", [], token_f1) is None


def test_containment_is_whole_tokens_and_only_in_short_answers() -> None:
    assert contains_gold("It was Roger Federer in 2017", "Roger Federer")
    assert not contains_gold("Rogerson Federers", "Roger Federer")
    assert is_correct("", "The winner was Roger Federer [1].", ["Roger Federer"])
    long_answer = "Many players " + "played very well " * 10 + "and finally Roger Federer won [1]."
    assert not is_correct("", long_answer, ["Roger Federer"])  # too long for containment credit
    assert is_correct("Roger Federer", long_answer, ["Roger Federer"])  # the short answer counts


def _score(answer: str, short: str = "", decision: str = "STOP", golds: tuple[str, ...] = ("Paris",),
           answerable: bool = True, false_premise: bool = False) -> dict[str, object]:  # fmt: skip
    return score_question(answer=answer, short_answer=short, decision=decision, golds=golds,
                          answerable=answerable, false_premise=false_premise).to_dict()  # fmt: skip


def test_crag_score_correct_missing_incorrect() -> None:
    assert _score("Paris is the capital [1].", "Paris")["crag_score"] == 1
    assert _score("I don't know.", "", "ABSTAIN")["crag_score"] == 0
    assert _score("I don't know")["crag_score"] == 0  # an IDK text counts as abstaining even on STOP
    wrong = _score("Lyon is the capital [1].", "Lyon")
    assert wrong["crag_score"] == -1 and wrong["wrong_on_answerable"] is True and wrong["f1"] == 0.0


def test_unanswerable_items() -> None:
    answered = _score("It is blue.", "blue", golds=(), answerable=False)
    assert answered["crag_score"] == -1 and answered["f1"] is None and answered["wrong_on_answerable"] is None
    assert _score("I don't know", decision="ABSTAIN", golds=(), answerable=False)["crag_score"] == 0
    rebuttal = _score("Einstein never won an Oscar.", golds=("Einstein won no Oscar",), answerable=False,
                      false_premise=True)  # fmt: skip
    assert rebuttal["crag_score"] == 1 and rebuttal["false_premise_detected"] is True
    accepted = _score("Einstein won it in 1950.", golds=("invalid question",), answerable=False, false_premise=True)
    assert accepted["crag_score"] == -1 and accepted["false_premise_detected"] is False


def test_answerable_without_gold_is_not_scored() -> None:
    result = _score("Something.", "Something", golds=())
    assert result["crag_score"] is None and result["f1"] is None and result["correct"] is None


def test_rebuttal_cues_are_whole_words() -> None:
    assert detects_false_premise("Actually, cats don't lay eggs.", False)
    assert detects_false_premise("Cats didn’t do that.", False)  # typographic apostrophe
    assert detects_false_premise("This rests on a false premise.", False)
    assert not detects_false_premise("Notably, the knot is nothingness.", False)
    assert detects_false_premise("", True)


def test_abstention_precision_and_recall() -> None:
    rows = [(True, False), (True, True), (False, False), (False, True), (True, False)]
    precision, recall = abstention_precision_recall(rows)
    assert precision == pytest.approx(2 / 3) and recall == pytest.approx(2 / 3)
    assert abstention_precision_recall([(False, True)]) == (None, None)


@pytest.mark.parametrize("q", [0, 5, 25, 50, 90, 95, 100])
def test_percentile_matches_numpy_linear(q: float) -> None:
    values = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def test_percentile_and_mean_edge_cases() -> None:
    assert percentile([], 50) is None and percentile([7.0], 95) == 7.0
    assert mean([None, 1.0, 3.0]) == 2.0 and mean([None]) is None
    with pytest.raises(ValueError):
        percentile([1.0], 101)

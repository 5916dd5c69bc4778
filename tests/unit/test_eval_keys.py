"""Answer keys (eval/scoring/keys.py): matching, min_items, loading errors, fit to the dataset, and the
ClapNQ keys scoring real ClapNQ questions through `anchorgate eval`'s scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorgate.eval.datasets import load_dataset
from anchorgate.eval.scoring.keys import AnswerKeyError, check_keys, load_answer_keys, parse_key
from anchorgate.eval.scoring.metrics import score_question
from anchorgate.eval.scoring.text import extends, fold_inflection, key_tokens


def _key(kind: str, answers: list[str], min_items: int = 1):  # type: ignore[no-untyped-def]
    return parse_key({"id": "q", "type": kind, "answers": answers, "min_items": min_items}, "test")


def test_a_short_key_credits_any_alternative_on_word_boundaries() -> None:
    key = _key("short", ["Warren Beatty", "Beatty"])
    assert key.credits("The man in the song is Warren Beatty [2].")
    assert key.credits("BEATTY.")
    assert not key.credits("Beattyville, Kentucky")  # a word boundary, not a substring
    assert not key.credits("Carly Simon wrote it [1].")


def test_matching_ignores_case_accents_punctuation_citations_and_digit_groups() -> None:
    key = _key("short", ["Beyoncé Knowles", "1,000 metres"])
    assert key.credits("beyonce  knowles[1]") and key.credits("BEYONCÉ-KNOWLES")
    assert key.credits("about 1000 metres") and key.credits("1,000 metres [3]")


def test_plural_and_derived_forms_meet_the_key_but_short_words_stay_exact() -> None:
    assert fold_inflection("cousins") == "cousin" and fold_inflection("cities") == "city"
    assert fold_inflection("bus") == "bus" and fold_inflection("analysis") == "analysis"
    assert extends("appoint", "appointments") and extends("advise", "advisers") and extends("advise", "advising")
    assert extends("agree", "agreement") and extends("agree", "agreed")
    assert not extends("sign", "signer")  # under five letters: as written only
    assert not extends("state", "station")  # "ion" is not an ending a key word takes
    assert _key("short", ["cousin"]).credits("They are first cousins.")


def test_list_and_long_keys_need_min_items_and_count_an_item_once() -> None:
    key = _key("list", ["Casey Deidrick|Deidrick", "Billy Flynn|Flynn", "Chad"], min_items=2)
    assert key.items_found("Deidrick, Casey Deidrick and Deidrick again") == 1
    assert not key.credits("Casey Deidrick plays him.")
    assert key.credits("Casey Deidrick and Billy Flynn [1][2].")
    assert key.credits("Flynn", "Casey Deidrick and Chad")  # the second text holds two items


def test_bad_key_lines_are_named() -> None:
    with pytest.raises(AnswerKeyError, match="'type' must be one of"):
        parse_key({"id": "q", "type": "essay", "answers": ["x"]}, "keys.jsonl line 3")
    with pytest.raises(AnswerKeyError, match="'min_items' must be an integer from 1 to 2"):
        parse_key({"id": "q", "type": "list", "answers": ["a", "b"], "min_items": 3}, "line 1")
    with pytest.raises(AnswerKeyError, match="no words once punctuation is removed"):
        parse_key({"id": "q", "type": "short", "answers": ["?!"]}, "line 1")


def test_loading_names_the_bad_line_and_repeated_ids(tmp_path: Path) -> None:
    path = tmp_path / "keys.jsonl"
    good = json.dumps({"id": "a", "type": "short", "answers": ["x"], "min_items": 1})
    path.write_text(good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(AnswerKeyError, match="keys.jsonl line 2: not JSON"):
        load_answer_keys(path)
    path.write_text(good + "\n" + good + "\n", encoding="utf-8")
    with pytest.raises(AnswerKeyError, match="line 2: id 'a' appears twice"):
        load_answer_keys(path)
    with pytest.raises(AnswerKeyError, match="cannot read answer keys"):
        load_answer_keys(tmp_path / "missing.jsonl")


def test_keys_that_do_not_fit_the_dataset_name_the_ids() -> None:
    keys = {"a": _key("short", ["x"]), "zz": _key("short", ["y"])}
    with pytest.raises(AnswerKeyError, match=r"no answer key for 1 question\(s\) of the dataset: b"):
        check_keys(keys, ["a", "b", "zz"], ["a", "b"])
    with pytest.raises(AnswerKeyError, match=r"1 answer key id\(s\) are not questions of the dataset: zz"):
        check_keys(keys, ["a", "b"], ["a"])
    check_keys(keys, ["a", "zz", "c"], ["a"])  # a key per needed id, every key a dataset question


def test_a_key_decides_correctness_and_a_wrong_answer_is_wrong() -> None:
    key = _key("short", ["Warren Beatty"])
    gold = ["Simon has said the song is about three men, one of whom is Warren Beatty ..."]

    def score(answer: str, decision: str = "STOP") -> dict:  # type: ignore[type-arg]
        return score_question(answer=answer, short_answer="", decision=decision, golds=gold, answerable=True,
                              false_premise=False, question="who was the man in you're so vain",
                              long_form=True, key=key).to_dict()  # fmt: skip

    right = score("Warren Beatty [1].")
    assert (right["correct"], right["crag_score"], right["scored_by"]) == (True, 1, "answer_key")
    assert right["long_form_correct"] is False  # the long-form rule misses this concise right answer
    wrong = score("Mick Jagger [1].")
    assert (wrong["correct"], wrong["crag_score"], wrong["wrong_on_answerable"]) == (False, -1, True)
    declined = score("I don't know.")
    assert declined["abstained"] and declined["crag_score"] == 0 and declined["wrong_on_answerable"] is False


def test_the_clapnq_keys_fit_the_clapnq_dataset(datasets_dir: Path) -> None:
    keys = load_answer_keys(datasets_dir / "clapnq_answer_keys" / "answer_keys.jsonl")
    items = load_dataset(datasets_dir / "clapnq").items
    check_keys(keys, [i.id for i in items], [i.id for i in items if i.answerable])
    assert len(keys) == sum(i.answerable for i in items) == 200
    # written from the gold, a key should credit the gold itself; the few that do not are listed in
    # bench/results/key_agreement.json ("gold_not_credited") as keys to question, not to edit
    credited = sum(keys[i.id].credits(*i.answers) for i in items if i.answerable)
    assert credited >= 190
    assert key_tokens("[1] Lake Havasu City, Arizona.") == ["lake", "havasu", "city", "arizona"]

"""The long-form rule (eval/scoring/long_form.py: correctness for long-form gold without an answer key, a
secondary column where there is one) and the rescoring of stored records."""

from __future__ import annotations

import json
from pathlib import Path

from anchorgate.eval.datasets import LONG_FORM_ANSWERS, QAItem, load_dataset
from anchorgate.eval.records import rescore_results
from anchorgate.eval.scoring.long_form import long_form_correct, long_form_overlap
from anchorgate.eval.scoring.metrics import score_question
from anchorgate.eval.store import read_records

BRIDGE_Q = "where is the original london bridge now located"
BRIDGE_GOLD = ("London Bridge is in Lake Havasu City, Arizona now.",)
PM_Q = "what is the role of the prime minister in canada"
PM_GOLD = (
    "Prime Minister of Canada is responsible for advising the Crown on how to exercise the Royal Prerogative "
    "and its executive powers.",
)


def _score(question: str, answer: str, golds: tuple[str, ...], *, long_form: bool, short: str = "") -> dict:
    return score_question(answer=answer, short_answer=short, decision="STOP", golds=golds, answerable=True,
                          false_premise=False, question=question, long_form=long_form).to_dict()  # fmt: skip


def test_a_short_answer_holding_the_gold_facts_is_right_only_under_the_long_form_rule() -> None:
    answer = "Lake Havasu City, Arizona [1]"
    assert long_form_correct(BRIDGE_Q, answer, BRIDGE_GOLD)
    assert _score(BRIDGE_Q, answer, BRIDGE_GOLD, long_form=True)["crag_score"] == 1
    short_rule = _score(BRIDGE_Q, answer, BRIDGE_GOLD, long_form=False)
    assert short_rule["crag_score"] == -1 and short_rule["correct"] is False


def test_restating_the_question_earns_nothing_and_is_wrong() -> None:
    restated = "The role of the prime minister in Canada is the role of the prime minister [1]."
    assert long_form_overlap(PM_Q, restated, PM_GOLD[0]) == (0.0, 0.0)
    scores = _score(PM_Q, restated, PM_GOLD, long_form=True)
    assert scores["correct"] is False and scores["wrong_on_answerable"] is True
    assert scores["f1"] > 0.2  # token F1 alone would have called this answer half right


def test_source_talk_neither_helps_nor_hurts() -> None:
    plain = "The prime minister advises the Crown on exercising the Royal Prerogative and executive powers."
    cited = plain + " This information is supported by passage [1], as stated in the document."
    assert long_form_overlap(PM_Q, plain, PM_GOLD[0]) == long_form_overlap(PM_Q, cited, PM_GOLD[0])
    assert long_form_correct(PM_Q, cited, PM_GOLD)


def test_a_vaguer_true_answer_is_not_right_by_the_rule() -> None:
    vague = "The prime minister advises the Crown."  # "crown" of the gold's new words; only plurals fold
    precision, recall = long_form_overlap(PM_Q, vague, PM_GOLD[0])
    assert precision == 0.5 and 0.0 < recall < 0.5
    scores = _score(PM_Q, vague, PM_GOLD, long_form=True)
    assert scores["correct"] is False and scores["wrong_on_answerable"] is True and scores["crag_score"] == -1
    assert scores["scored_by"] == "long_form" and scores["long_form_correct"] is False


def test_an_answer_burying_the_gold_in_unrelated_text_is_not_right() -> None:
    filler = " ".join(f"unrelated{i} topic{i}" for i in range(40))
    buried = f"{filler} advising the Crown on the Royal Prerogative and executive powers"
    assert long_form_overlap(PM_Q, buried, PM_GOLD[0])[0] < 0.2
    assert not long_form_correct(PM_Q, buried, PM_GOLD)


def test_the_rule_takes_the_best_gold_alias() -> None:
    golds = ("It was painted by Claude Monet in 1872.", "Monet painted it.")
    assert not long_form_correct("who painted impression sunrise", "Pablo Picasso", golds)
    assert long_form_correct("who painted impression sunrise", "Monet", golds)  # all of the second alias


def test_the_clapnq_loader_marks_its_gold_long_form(datasets_dir: Path) -> None:
    items = load_dataset(datasets_dir / "clapnq", limit=6).items
    assert all(item.extra[LONG_FORM_ANSWERS] is True for item in items)
    item = next(i for i in items if i.answerable)
    gold = item.answers[0]
    assert long_form_correct(item.question, gold, item.answers)  # the gold itself is right
    assert not long_form_correct(item.question, item.question, item.answers)


def _record(qid: str, question: str, golds: tuple[str, ...], prediction: str, **scores: object) -> dict:
    return {"id": qid, "question": question, "gold": list(golds), "prediction": prediction, "short_answer": "",
            "decision": "STOP", "answerable": True, "correct": False, "crag_score": -1, "llm_fault": None,
            **scores}  # fmt: skip


def test_stored_records_are_scored_again_by_the_current_rule(tmp_path: Path) -> None:
    item = QAItem(id="b", question=BRIDGE_Q, answers=BRIDGE_GOLD, extra={LONG_FORM_ANSWERS: True})
    old = _record("b", BRIDGE_Q, BRIDGE_GOLD, "Lake Havasu City, Arizona [1]")
    fault = _record("f", "q", ("x",), "I don't know", llm_fault={"error": "HTTP 500"}, crag_score=None)
    other = _record("z", "not in this run", ("y",), "y")
    path = tmp_path / "B.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (old, fault, other)), encoding="utf-8")
    items = [item, QAItem(id="f", question="q", answers=("x",))]
    assert rescore_results(tmp_path, ["B"], items) == {"B": 1}
    records = read_records(path)
    assert records["b"]["correct"] is True and records["b"]["crag_score"] == 1 and records["b"]["long_form_gold"]
    assert records["f"] == fault and records["z"] == other  # a fault and a question of another run: as they were
    before = path.read_bytes()
    assert rescore_results(tmp_path, ["B"], items) == {"B": 0}
    assert path.read_bytes() == before  # nothing changed, nothing rewritten

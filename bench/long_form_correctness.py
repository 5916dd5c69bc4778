"""Choose and check the long-form correctness rule (`eval/long_form.py`) against hand labels.

    .venv/bin/python bench/long_form_correctness.py LABELS.jsonl 'bench/results/**/*clapnq*/*.jsonl' \
        [--fresh FRESH_LABELS.jsonl] [--name long_form_correctness]

LABELS holds one blind judgement per distinct answer, {key, label, why}: label is correct, partial
or wrong; key is "<question id>:<sha1 of the prediction, 10 hex>". The records give the question,
gold and answer of each key. Questions are split by the parity of sha1(id)'s first hex digit: the
thresholds are chosen on the even (tune) half, by agreement with "correct" against the rest, and
reported on the odd (held-out) half. The harness's earlier rule (exact match or gold inside a short
answer) is reported beside it. `--fresh` labels (answers to questions no label of LABELS covers,
labelled after the floors were chosen) are a second held-out check, reported whole.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from anchorgate.eval.long_form import long_form_correct, long_form_wrong
from anchorgate.eval.metrics import is_correct

GRID = [round(0.1 * i, 1) for i in range(10)]
Answer = dict[str, Any]


def answer_key(record: dict[str, Any]) -> str:
    """The label key of a record's answer."""
    return f"{record['id']}:{hashlib.sha1(record['prediction'].encode()).hexdigest()[:10]}"


def is_tune(question_id: str) -> bool:
    """The tune half: sha1(id)'s first hex digit is even."""
    return int(hashlib.sha1(question_id.encode()).hexdigest()[0], 16) % 2 == 0


def labelled_answers(labels_path: Path, patterns: Iterable[str]) -> list[Answer]:
    """One entry per labelled key: the record fields the rules read, the label and the split."""
    labels = {row["key"]: row["label"] for row in map(json.loads, labels_path.read_text().splitlines())}
    answers: dict[str, Answer] = {}
    for pattern in patterns:
        for path in sorted(glob.glob(pattern, recursive=True)):
            for line in Path(path).read_text().splitlines():
                record = json.loads(line)
                if "prediction" not in record:  # not an eval record
                    continue
                key = answer_key(record)
                if key in labels and key not in answers:
                    answers[key] = {**record, "label": labels[key], "tune": is_tune(record["id"])}
    missing = set(labels) - set(answers)
    if missing:
        raise SystemExit(f"{len(missing)} labelled keys have no record, e.g. {sorted(missing)[:3]}")
    return list(answers.values())


def short_rule(answer: Answer) -> bool:
    """The harness's rule before long-form gold: exact match or the gold inside a short answer."""
    return is_correct(answer["short_answer"], answer["prediction"], answer["gold"])


def agreement(answers: list[Answer], rule: Callable[[Answer], bool]) -> dict[str, Any]:
    """Confusion against label == correct, accuracy and Cohen's kappa."""
    cells = Counter((a["label"] == "correct", rule(a)) for a in answers)
    n = len(answers)
    accuracy = (cells[(True, True)] + cells[(False, False)]) / n if n else 0.0
    p_yes = ((cells[(True, True)] + cells[(True, False)]) / n) * ((cells[(True, True)] + cells[(False, True)]) / n)
    p_no = ((cells[(False, True)] + cells[(False, False)]) / n) * ((cells[(True, False)] + cells[(False, False)]) / n)
    chance = p_yes + p_no if n else 0.0
    kappa = (accuracy - chance) / (1 - chance) if chance < 1 else 0.0
    by_label = Counter((a["label"], rule(a)) for a in answers)
    return {
        "n": n, "accuracy": round(accuracy, 3), "kappa": round(kappa, 3),
        "credited": {label: f"{by_label[(label, True)]}/{by_label[(label, True)] + by_label[(label, False)]}"
                     for label in ("correct", "partial", "wrong")},
    }  # fmt: skip


def threshold_rule(min_precision: float, min_recall: float) -> Callable[[Answer], bool]:
    """The harness's rule plus the long-form rule at these floors."""

    def rule(answer: Answer) -> bool:
        return short_rule(answer) or long_form_correct(
            answer["question"], answer["prediction"], answer["gold"], min_precision=min_precision,
            min_recall=min_recall,
        )  # fmt: skip

    return rule


def wrong_agreement(answers: list[Answer], rule: Callable[[Answer], bool]) -> dict[str, Any]:
    """How a wrong-answer rule agrees with label == wrong: accuracy and what it flags per label."""
    flagged = Counter((a["label"], rule(a)) for a in answers)
    accuracy = sum((a["label"] == "wrong") == rule(a) for a in answers) / len(answers) if answers else 0.0
    return {
        "accuracy": round(accuracy, 3),
        "flagged": {label: f"{flagged[(label, True)]}/{flagged[(label, True)] + flagged[(label, False)]}"
                    for label in ("correct", "partial", "wrong")},
    }  # fmt: skip


def wrong_rules(correct: Callable[[Answer], bool]) -> dict[str, Callable[[Answer], bool]]:
    """Wrong-on-answerable as the harness had it (token F1 = 0) and as the long-form rule has it."""
    return {
        "f1_zero": lambda a: a["f1"] == 0.0,
        "no_new_gold_word": lambda a: not correct(a) and long_form_wrong(a["question"], a["prediction"], a["gold"]),
    }


def choose(tune: list[Answer]) -> tuple[float, float]:
    """Floors with the best tune accuracy; ties go to the higher (stricter) floors."""
    scored = [(agreement(tune, threshold_rule(p, r))["accuracy"], p + r, p, r) for p in GRID for r in GRID]
    best = max(scored)
    return best[2], best[3]


def _fresh_check(labels: Path, records: list[str], chosen: Callable[[Answer], bool]) -> dict[str, Any]:
    fresh = labelled_answers(labels, records)
    return {
        "labels": str(labels), "answers": len(fresh), "questions": len({a["id"] for a in fresh}),
        "label_counts": dict(Counter(a["label"] for a in fresh)),
        "old_rule": agreement(fresh, short_rule), "new_rule": agreement(fresh, chosen),
        "wrong": {name: wrong_agreement(fresh, rule) for name, rule in wrong_rules(chosen).items()},
        "disagreements": [{"question": a["question"], "answer": a["prediction"][:160], "label": a["label"],
                           "rule": chosen(a)} for a in fresh if (a["label"] == "correct") != chosen(a)],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("records", nargs="+", help="record files (globs)")
    parser.add_argument("--fresh", type=Path, default=None, help="labels of later, unseen questions")
    parser.add_argument("--name", default="long_form_correctness")
    args = parser.parse_args()
    answers = labelled_answers(args.labels, args.records)
    tune = [a for a in answers if a["tune"]]
    held = [a for a in answers if not a["tune"]]
    min_precision, min_recall = choose(tune)
    chosen = threshold_rule(min_precision, min_recall)
    result = {
        "labels": str(args.labels), "answers": len(answers), "label_counts": dict(Counter(a["label"] for a in answers)),
        "questions": {"tune": len({a["id"] for a in tune}), "held_out": len({a["id"] for a in held})},
        "chosen": {"min_precision": min_precision, "min_recall": min_recall},
        "tune": {"old_rule": agreement(tune, short_rule), "new_rule": agreement(tune, chosen)},
        "held_out": {"old_rule": agreement(held, short_rule), "new_rule": agreement(held, chosen)},
        "wrong": {split: {name: wrong_agreement(part, rule) for name, rule in wrong_rules(chosen).items()}
                  for split, part in (("tune", tune), ("held_out", held))},
        "fresh": _fresh_check(args.fresh, args.records, chosen) if args.fresh else None,
        "held_out_disagreements": [
            {"question": a["question"], "answer": a["prediction"][:160], "label": a["label"], "rule": chosen(a)}
            for a in held if (a["label"] == "correct") != chosen(a)
        ],
    }  # fmt: skip
    out = Path("bench/results") / f"{args.name}.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "held_out_disagreements"}, indent=2))
    print(f"{len(result['held_out_disagreements'])} held-out disagreements; written to {out}")


if __name__ == "__main__":
    main()

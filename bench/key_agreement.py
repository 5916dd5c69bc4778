"""How ClapNQ's answer-key scoring agrees with blind hand labels of stored answers.

    .venv/bin/python bench/key_agreement.py [--labels bench/labels/clapnq1_140_answers.jsonl]
        [--fresh bench/labels/clapnq141_220_answers.jsonl] [--records 'bench/results/**/*clapnq*/*.jsonl']

Each label is one blind judgement of a distinct stored answer, made from the question, the gold and
the answer only: {key, label, why}, label correct / partial / wrong, key "<question id>:<sha1 of the
prediction, 10 hex>". For every labelled answer this reports what the scorer's rules credit:

* the answer keys (`eval/scoring/keys.py`), the scorer's correctness for ClapNQ;
* the long-form rule (`eval/scoring/long_form.py`), the secondary column;
* the SQuAD rule alone (exact match or the gold inside a short answer).

Questions are split by the parity of sha1(id)'s first hex digit, as when the long-form floors were
chosen: any matching change made after reading disagreements is read on the even (tune) half and
reported on the odd (held-out) half. `--fresh` labels are answers to other questions, labelled
later, reported whole. Writes bench/results/key_agreement.json.
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

from anchorgate.eval.datasets import load_dataset
from anchorgate.eval.scoring.keys import AnswerKey, load_answer_keys
from anchorgate.eval.scoring.long_form import long_form_correct
from anchorgate.eval.scoring.metrics import is_correct
from anchorgate.eval.scoring.text import strip_citation_markers

REPO = Path(__file__).resolve().parents[1]
FRESHEST = "bench/labels/clapnq281_400_answers.jsonl"
"""Answers to ClapNQ rows 281-400, labelled after the matching rules were fixed."""
KEYS = REPO.parent / "shared" / "datasets" / "clapnq_answer_keys" / "answer_keys.jsonl"
Answer = dict[str, Any]
Rule = Callable[[Answer], bool]
LABELS = ("correct", "partial", "wrong")


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
                if "prediction" not in record:
                    continue
                key = answer_key(record)
                if key in labels and key not in answers:
                    answers[key] = {**record, "label": labels[key], "tune": is_tune(record["id"])}
    missing = set(labels) - set(answers)
    if missing:
        raise SystemExit(f"{len(missing)} labelled keys have no record, e.g. {sorted(missing)[:3]}")
    return list(answers.values())


def rules(keys: dict[str, AnswerKey]) -> dict[str, Rule]:
    """The three correctness rules, each read on a stored answer."""

    def by_key(a: Answer) -> bool:
        return keys[a["id"]].credits(strip_citation_markers(a["prediction"]), a.get("short_answer", ""))

    return {
        "answer_keys": by_key,
        "long_form_rule": lambda a: long_form_correct(a["question"], a["prediction"], a["gold"]),
        "squad_rule": lambda a: is_correct(a.get("short_answer", ""), a["prediction"], a["gold"]),
    }


def agreement(answers: list[Answer], rule: Rule) -> dict[str, Any]:
    """Credited per label, accuracy against label == correct, and Cohen's kappa."""
    cells = Counter((a["label"] == "correct", rule(a)) for a in answers)
    n = len(answers)
    accuracy = (cells[(True, True)] + cells[(False, False)]) / n if n else 0.0
    yes = (
        (cells[(True, True)] + cells[(True, False)]) / n * (cells[(True, True)] + cells[(False, True)]) / n if n else 0
    )
    no = (
        (cells[(False, True)] + cells[(False, False)]) / n * (cells[(True, False)] + cells[(False, False)]) / n
        if n
        else 0
    )
    chance = yes + no
    by_label = Counter((a["label"], rule(a)) for a in answers)
    totals = Counter(a["label"] for a in answers)
    return {
        "n": n, "accuracy": round(accuracy, 3),
        "kappa": round((accuracy - chance) / (1 - chance), 3) if chance < 1 else 0.0,
        "credited": {label: [by_label[(label, True)], totals[label]] for label in LABELS},
        "credited_share": {label: round(by_label[(label, True)] / totals[label], 3) if totals[label] else None
                           for label in LABELS},
    }  # fmt: skip


def misses(answers: list[Answer], rule: Rule) -> list[dict[str, Any]]:
    """Answers labelled correct the rule does not credit, and answers labelled wrong it credits."""
    return [{"id": a["id"], "question": a["question"], "answer": a["prediction"][:200], "label": a["label"]}
            for a in answers if (a["label"] == "correct") != rule(a) and a["label"] != "partial"]  # fmt: skip


def report(answers: list[Answer], named: dict[str, Rule]) -> dict[str, Any]:
    """Agreement of every rule on one set of labelled answers."""
    return {
        "answers": len(answers), "questions": len({a["id"] for a in answers}),
        "labels": dict(Counter(a["label"] for a in answers)),
        **{name: agreement(answers, rule) for name, rule in named.items()},
    }  # fmt: skip


def gold_not_credited(keys: dict[str, AnswerKey], dataset: Path) -> list[dict[str, Any]]:
    """Answerable questions whose own gold the key does not credit: keys to question (never to edit)."""
    items = [i for i in load_dataset(dataset).items if i.answerable and i.id in keys]
    return [{"id": i.id, "question": i.question, "key_type": keys[i.id].type, "gold": i.answers[0][:300]}
            for i in items if not keys[i.id].credits(*i.answers)]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=REPO / "bench/labels/clapnq1_140_answers.jsonl")
    parser.add_argument(
        "--fresh",
        type=Path,
        action="append",
        default=None,
        help="labels of answers to later questions (repeatable; default: rows 141-220 and 281-400)",
    )
    parser.add_argument(
        "--records",
        nargs="+",
        default=[str(REPO / "bench/results/**/*clapnq*/*.jsonl"), str(REPO / "bench/results/**/*clapnq*.jsonl")],
    )
    parser.add_argument("--keys", type=Path, default=KEYS)
    args = parser.parse_args()
    keys = load_answer_keys(args.keys)
    named = rules(keys)
    answers = labelled_answers(args.labels, args.records)
    fresh_files = args.fresh or [REPO / "bench/labels/clapnq141_220_answers.jsonl", REPO / FRESHEST]
    fresh_sets = {path.stem: labelled_answers(path, args.records) for path in fresh_files}
    fresh = [a for part in fresh_sets.values() for a in part]
    result = {
        "keys": str(args.keys), "labels": str(args.labels.relative_to(REPO)),
        "tune": report([a for a in answers if a["tune"]], named),
        "held_out": report([a for a in answers if not a["tune"]], named),
        "fresh": report(fresh, named) if fresh else None,
        "fresh_by_file": {name: report(part, named) for name, part in fresh_sets.items()},
        "all": report(answers + fresh, named),
        "key_misses": {"tune": misses([a for a in answers if a["tune"]], named["answer_keys"]),
                       "held_out": misses([a for a in answers if not a["tune"]], named["answer_keys"]),
                       "fresh": misses(fresh, named["answer_keys"])},  # fmt: skip
        "gold_not_credited": gold_not_credited(keys, args.keys.parent.parent / "clapnq"),
    }  # fmt: skip
    out = REPO / "bench/results/key_agreement.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    parts = {**{s: result[s] for s in ("tune", "held_out")}, **result["fresh_by_file"], "all": result["all"]}
    for split, part in parts.items():
        if part:
            line = "; ".join(
                f"{n}: correct {part[n]['credited']['correct']}, partial {part[n]['credited']['partial']}, "
                f"wrong {part[n]['credited']['wrong']}, kappa {part[n]['kappa']}"
                for n in named
            )
            print(f"{split} ({part['answers']} answers): {line}")
    print(f"{len(result['gold_not_credited'])} golds not credited by their own key")
    print(f"written to {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()

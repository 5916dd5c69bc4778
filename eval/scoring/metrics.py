"""Per-question scores: right, wrong or abstained; SQuAD EM/F1; CRAG score; false-premise detection.

Everything here is a pure function of strings, flags and an optional answer key, and reads only
this package (`text.py`, `refusal.py`, `keys.py`, `long_form.py`): the product can change without
moving a score. It scores the text the user receives, the result's `answer` and `short_answer`.

* **Abstained**: the run ended without STOP, or the answer declines (`refusal.is_refusal`).
* **Correct**, in this order:
  - an answer key (`keys.py`; ClapNQ's hand-written keys) when the item has one: the answer or
    the short answer contains the key;
  - otherwise SQuAD exact match of the short or the full answer with a gold alias, or a gold alias
    as a whole-token run inside a *short* answer (the short answer, or the full answer when it has
    at most `CONTAINMENT_MAX_TOKENS` tokens);
  - for long-form gold without a key (passage sentences, `long_form=True`), the long-form rule
    (`long_form.py`) instead.
* **EM / F1** follow the logic of the official SQuAD v1.1 evaluation script
  (`evaluate-v1.1.py`, Rajpurkar et al. 2016, https://rajpurkar.github.io/SQuAD-explorer/), on the
  short answer (else the full answer without citation markers); best over the gold aliases. Two
  documented extensions: Unicode punctuation is dropped as well as ASCII punctuation, and an empty
  prediction against an empty normalized gold is a match (the SQuAD v2.0 rule). Chinese gold follows
  the CMRC 2018 convention instead: EM after removing Chinese and ASCII punctuation, F1 over the
  longest common run of segments, each Chinese character one segment (`text.chinese_segments`).
* **CRAG score** (Yang et al. 2024, CRAG §4): +1 correct, 0 abstained, −1 otherwise. On an
  unanswerable item, answering scores −1 unless it is a false-premise item whose answer rebuts the
  premise (+1).
* **Wrong on answerable**: answered, gold known and F1 = 0; with a key or long-form gold, answered
  and not correct (sentence gold shares words with almost any answer, so F1 = 0 says nothing there).
* **False-premise detection**: the answer abstains or contains a rebuttal cue (`REBUTTAL_CUES`).
  A deliberately generous lexical proxy (any "not" counts): read the rate as an upper bound.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from .keys import AnswerKey
from .long_form import long_form_correct
from .refusal import is_refusal
from .text import (
    answer_tokens,
    chinese_normalized,
    chinese_segments,
    has_chinese,
    longest_common_run,
    normalize_answer,
    strip_citation_markers,
)

CONTAINMENT_MAX_TOKENS = 24
"""A prediction longer than this (normalized tokens; Chinese: segments) earns no credit by containing the gold."""

REBUTTAL_CUES = (
    "no", "not", "never", "none", "nobody", "nothing", "false premise", "did not", "didn't", "does not",
    "doesn't", "do not", "don't", "is not", "isn't", "was not", "wasn't", "are not", "aren't", "were not",
    "weren't", "cannot", "can't", "incorrect", "untrue", "misconception", "actually", "tidak", "bukan",
)  # fmt: skip
_REBUTTAL = re.compile(
    r"(?<![\w'’])(?:" + "|".join(re.escape(c).replace("'", "['’]") for c in REBUTTAL_CUES) + r")(?![\w'’])",
    re.IGNORECASE,
)


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when prediction and gold normalize to the same string, else 0.0 (Chinese gold: CMRC 2018's rule)."""
    if has_chinese(gold):
        return float(chinese_normalized(prediction) == chinese_normalized(gold))
    return float(normalize_answer(prediction) == normalize_answer(gold))


def chinese_f1(prediction: str, gold: str) -> float:
    """CMRC 2018's F1: longest common run of mixed segments over the prediction's and the gold's lengths."""
    pred, ref = chinese_segments(prediction), chinese_segments(gold)
    if not pred or not ref:
        return float(pred == ref)
    shared = longest_common_run(pred, ref)
    if shared == 0:
        return 0.0
    precision, recall = shared / len(pred), shared / len(ref)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 between one prediction and one gold answer (Chinese gold: `chinese_f1`)."""
    if has_chinese(gold):
        return chinese_f1(prediction, gold)
    pred, ref = answer_tokens(prediction), answer_tokens(gold)
    if not pred or not ref:
        return float(pred == ref)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def best_over_aliases(prediction: str, golds: Sequence[str], metric: Any) -> float | None:
    """max(metric(prediction, g)) over the gold aliases; None when there is no gold."""
    scores = [float(metric(prediction, g)) for g in golds if g is not None]
    return max(scores) if scores else None


def contains_gold(prediction: str, gold: str) -> bool:
    """True when the normalized gold occurs as a contiguous run of whole tokens in the prediction
    (Chinese gold: of CMRC 2018 segments, each Chinese character one)."""
    chinese = has_chinese(gold)
    pred = chinese_segments(prediction) if chinese else answer_tokens(prediction)
    ref = chinese_segments(gold) if chinese else answer_tokens(gold)
    if not ref or len(ref) > len(pred):
        return False
    return any(pred[i : i + len(ref)] == ref for i in range(len(pred) - len(ref) + 1))


def is_correct(
    short_answer: str, answer: str, golds: Sequence[str], *, question: str = "", long_form: bool = False,
    key: AnswerKey | None = None,
) -> bool:  # fmt: skip
    """Whether the answer is right: by its key when there is one, else by the gold (module docstring)."""
    full = strip_citation_markers(answer)
    if key is not None:
        return key.credits(full, short_answer)
    candidates = [c for c in (short_answer, full) if c.strip()]
    if any(exact_match(c, g) for c in candidates for g in golds):
        return True
    if long_form:
        return long_form_correct(question, answer, golds)
    short = [short_answer] if short_answer.strip() else []
    size = len(chinese_segments(full)) if any(has_chinese(g) for g in golds) else len(answer_tokens(full))
    if full.strip() and size <= CONTAINMENT_MAX_TOKENS:
        short.append(full)
    return any(contains_gold(c, g) for c in short for g in golds)


def detects_false_premise(answer: str, abstained: bool) -> bool:
    """True when the answer abstains or contains a rebuttal cue (see the module docstring)."""
    return abstained or bool(_REBUTTAL.search(strip_citation_markers(answer)))


def crag_score(
    *, answerable: bool, has_reference: bool, abstained: bool, correct: bool, false_premise: bool, rebutted: bool
) -> int | None:
    """+1 correct, 0 missing, −1 incorrect; None for an answerable item with neither gold nor key."""
    if abstained:
        return 0
    if not answerable:
        return 1 if false_premise and (rebutted or correct) else -1
    if not has_reference:
        return None
    return 1 if correct else -1


ScoredBy = Literal["answer_key", "gold", "long_form", "none"]


@dataclass(frozen=True)
class QuestionScore:
    """Every per-question score the harness records (None = not defined for this item)."""

    abstained: bool
    em: float | None
    f1: float | None
    correct: bool | None
    crag_score: int | None
    wrong_on_answerable: bool | None
    false_premise_detected: bool | None
    scored_by: ScoredBy = "gold"
    long_form_correct: bool | None = None
    """The long-form rule's verdict on long-form gold, reported beside the key's (None: not long-form)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return asdict(self)


def score_question(
    *,
    answer: str,
    short_answer: str,
    decision: str,
    golds: Sequence[str],
    answerable: bool,
    false_premise: bool,
    question: str = "",
    long_form: bool = False,
    key: AnswerKey | None = None,
) -> QuestionScore:
    """Score one prediction against its item (and its answer key, when it has one).

    The EM/F1 prediction is the short answer, or the full answer without citation markers when the
    short answer is empty. An abstention scores EM = F1 = 0 on answerable items.
    """
    abstained = decision != "STOP" or is_refusal(answer)
    prediction = "" if abstained else (short_answer.strip() or strip_citation_markers(answer))
    golds = [g for g in golds if g and g.strip()]
    scored = answerable and bool(golds)
    em = best_over_aliases(prediction, golds, exact_match) if scored else None
    f1 = best_over_aliases(prediction, golds, token_f1) if scored else None
    keyed = key is not None and answerable
    correct = None
    if keyed or golds:
        correct = not abstained and is_correct(
            short_answer, answer, golds, question=question, long_form=long_form, key=key if keyed else None
        )
    detected = detects_false_premise(answer, abstained) if false_premise else None
    crag = crag_score(
        answerable=answerable, has_reference=keyed or bool(golds), abstained=abstained, correct=bool(correct),
        false_premise=false_premise, rebutted=bool(detected),
    )  # fmt: skip
    wrong: bool | None
    if keyed or (long_form and scored):
        wrong = not abstained and not correct
    else:
        wrong = (not abstained and f1 == 0.0) if scored else None
    by: ScoredBy = "answer_key" if keyed else ("long_form" if long_form else "gold") if golds else "none"
    long_form_verdict = (not abstained and long_form_correct(question, answer, golds)) if long_form and golds else None
    return QuestionScore(abstained, em, f1, correct, crag, wrong, detected, by, long_form_verdict)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0–100) by linear interpolation between order statistics (numpy's
    default "linear" method); None for no values."""
    if not values:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within [0, 100], got {q}")
    ordered = sorted(float(v) for v in values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mean(values: Sequence[float | None]) -> float | None:
    """Arithmetic mean of the defined values; None when there are none."""
    defined = [float(v) for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def abstention_precision_recall(rows: Sequence[tuple[bool, bool]]) -> tuple[float | None, float | None]:
    """(precision, recall) of abstaining as a detector of unanswerable items.

    `rows` are (abstained, answerable) pairs. Precision = abstentions on unanswerable items / all
    abstentions; recall = abstentions on unanswerable items / unanswerable items; None when the
    denominator is zero.
    """
    abstained = [answerable for did, answerable in rows if did]
    unanswerable = [did for did, answerable in rows if not answerable]
    hits = sum(1 for answerable in abstained if not answerable)
    precision = hits / len(abstained) if abstained else None
    recall = hits / len(unanswerable) if unanswerable else None
    return precision, recall

"""Per-question answer metrics: SQuAD EM/F1, CRAG score, abstention, false-premise detection.

Everything here is a pure function of strings and flags, so it is unit-tested without a model.

* **EM / F1** follow the logic of the official SQuAD v1.1 evaluation script
  (`evaluate-v1.1.py`, Rajpurkar et al. 2016, https://rajpurkar.github.io/SQuAD-explorer/):
  lower-case, drop punctuation, drop the articles a/an/the, collapse whitespace; F1 is the
  harmonic mean of token precision and recall over the multiset of shared tokens; the score is
  the best over the gold aliases. Re-implemented, not copied. Two documented extensions: Unicode
  punctuation (category P*, e.g. “ ” – ’) is dropped as well as ASCII `string.punctuation`
  (identical on ASCII text), and an empty prediction against an empty normalized gold counts as
  a match (the SQuAD v2.0 rule) instead of dividing by zero.
* **CRAG score** (Yang et al. 2024, CRAG §4): +1 correct, 0 missing ("I don't know" / abstain),
  −1 incorrect. Correctness is decided without an LLM judge: the normalized prediction equals a
  normalized gold alias, or a normalized gold alias occurs as a whole-token run inside a *short*
  answer (the finalizer's short answer, or the full answer when it has at most
  `CONTAINMENT_MAX_TOKENS` normalized tokens). For long-form gold (passage sentences, ClapNQ),
  an answer that carries the gold's new information is correct too (`long_form.py`, chosen
  against blind hand labels). Re-implemented (the upstream script is known broken). On an
  unanswerable item, answering scores −1 unless it is a false-premise item whose answer rebuts
  the premise (+1).
* **False-premise detection**: an answer detects a false premise when it abstains or contains a
  rebuttal cue (`REBUTTAL_CUES`: "no", "not", "never", "false premise", "did not", "doesn't", …).
  This is a deliberately generous lexical proxy — any "not" counts — so read the rate as an upper
  bound on detection.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from anchorgate.tools.answer.text import is_idk, strip_citations

from .answer_text import answer_tokens, normalize_answer
from .long_form import long_form_correct, long_form_wrong

CONTAINMENT_MAX_TOKENS = 24
"""A prediction longer than this (normalized tokens) earns no credit by containing the gold."""

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
    """1.0 when prediction and gold normalize to the same string, else 0.0."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 between one prediction and one gold answer."""
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
    """True when the normalized gold occurs as a contiguous run of whole tokens in the prediction."""
    pred, ref = answer_tokens(prediction), answer_tokens(gold)
    if not ref or len(ref) > len(pred):
        return False
    return any(pred[i : i + len(ref)] == ref for i in range(len(pred) - len(ref) + 1))


def is_correct(
    short_answer: str, answer: str, golds: Sequence[str], *, question: str = "", long_form: bool = False
) -> bool:
    """Exact/alias match of the short or full answer, or gold containment in a short answer.

    With `long_form` gold (passage sentences), an answer that meets `long_form.long_form_correct`
    (new information shared with the gold, question words left out) is correct as well.
    """
    full = strip_citations(answer)
    candidates = [c for c in (short_answer, full) if c.strip()]
    if any(exact_match(c, g) for c in candidates for g in golds):
        return True
    short = [short_answer] if short_answer.strip() else []
    if full.strip() and len(answer_tokens(full)) <= CONTAINMENT_MAX_TOKENS:
        short.append(full)
    if any(contains_gold(c, g) for c in short for g in golds):
        return True
    return long_form and long_form_correct(question, answer, golds)


def detects_false_premise(answer: str, abstained: bool) -> bool:
    """True when the answer abstains or contains a rebuttal cue (see the module docstring)."""
    return abstained or bool(_REBUTTAL.search(strip_citations(answer)))


def crag_score(
    *, answerable: bool, golds: Sequence[str], abstained: bool, correct: bool, false_premise: bool, rebutted: bool
) -> int | None:
    """+1 correct, 0 missing, −1 incorrect; None for an answerable item without gold strings."""
    if abstained:
        return 0
    if not answerable:
        return 1 if false_premise and (rebutted or correct) else -1
    if not golds:
        return None
    return 1 if correct else -1


@dataclass(frozen=True)
class QuestionScore:
    """Every per-question metric the harness records (None = not defined for this item)."""

    abstained: bool
    em: float | None
    f1: float | None
    correct: bool | None
    crag_score: int | None
    wrong_on_answerable: bool | None
    false_premise_detected: bool | None

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
) -> QuestionScore:
    """Score one prediction against its item.

    The scored prediction is the short answer, or the full answer without citations when the
    short answer is empty. An abstention (decision ABSTAIN or an "I don't know" answer) scores
    EM = F1 = 0 on answerable items. Wrong-on-answerable means answerable, gold known, not
    abstained and F1 = 0 (seed 000 §10: "answered wrong although the corpus holds the answer"); with
    `long_form` gold, not correct and sharing none of the gold's new words (`long_form_wrong`).
    """
    abstained = decision != "STOP" or is_idk(answer)
    prediction = "" if abstained else (short_answer.strip() or strip_citations(answer))
    golds = [g for g in golds if g and g.strip()]
    scored = answerable and bool(golds)
    em = best_over_aliases(prediction, golds, exact_match) if scored else None
    f1 = best_over_aliases(prediction, golds, token_f1) if scored else None
    correct = (
        (not abstained and is_correct(short_answer, answer, golds, question=question, long_form=long_form))
        if golds
        else None
    )
    detected = detects_false_premise(answer, abstained) if false_premise else None
    crag = crag_score(
        answerable=answerable, golds=golds, abstained=abstained, correct=bool(correct),
        false_premise=false_premise, rebutted=bool(detected),
    )  # fmt: skip
    if long_form:
        wrong = (not abstained and not correct and long_form_wrong(question, answer, golds)) if scored else None
    else:
        wrong = (not abstained and f1 == 0.0) if scored else None
    return QuestionScore(abstained, em, f1, correct, crag, wrong, detected)


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

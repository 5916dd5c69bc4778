"""Answer grounding: are the answer's own words in the passages it is judged against? No model call.

A made-up answer usually brings a name, a number or a word that none of the passages holds. The
judge checks that first (`judge_grounding_min`): an answer whose words are not in the judged
passages is UNSUPPORTED without an LLM call, and only a grounded answer is left to the LLM judge,
whose part is then what words cannot show (a passage's own words put together into a wrong claim).
Words are compared as stems without filler, as the support measure does (tools/answer/claim_words.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anchorgate.tools.answer.claim_words import stems, term_share
from anchorgate.tools.answer.confidence import answer_span
from anchorgate.tools.answer.text import strip_citations


def answer_grounding(answer: str, passages: Sequence[Mapping[str, Any]], question: str = "") -> float:
    """Share of the answer span's content words found in the passages (titles included).

    The answer span is the first line, cut at its first sentence (`answer_span`): a draft's later
    sentences elaborate in the model's own words. Words of the `question` are not counted: an answer
    that restates the question ("To format a float with two decimal places, use …") is judged on
    what it adds. An answer with no word left to check ("Yes.", "No.") scores 1.0, so the LLM
    judge decides it.
    """
    terms = stems(answer_span(strip_citations(answer))) - stems(question)
    if not terms:
        return 1.0
    passage_stems: set[str] = set()
    for passage in passages:
        passage_stems |= stems(f"{passage.get('title', '')} {passage['text']}")
    return round(term_share(terms, passage_stems), 4)

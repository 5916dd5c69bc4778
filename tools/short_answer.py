"""Short answer span for scoring (EM/F1): conservative — when unsure, the answer unchanged.

This first version keeps short answers whole and reduces long ones to their first sentence;
the numeric/list/entity rules of seed 000 §6 build on it.
"""

from __future__ import annotations

from anchorgate.tools.sentences import split_sentences

SHORT_WORDS = 12


def short_answer_span(question: str, answer: str) -> str:
    """The span of `answer` that scoring compares with gold answers."""
    text = answer.strip()
    if len(text.split()) <= SHORT_WORDS:
        return text.rstrip(".")
    sentences = split_sentences(text)
    return sentences[0].text.rstrip(".") if sentences else text

"""Question validation: the first thing every entry point does."""

from __future__ import annotations

from anchorgate.tools.errors import InvalidQuestionError


def validate_question(question: object, max_chars: int = 2000) -> str:
    """The question with surrounding whitespace removed; empty or over-long ones are refused."""
    if not isinstance(question, str):
        raise InvalidQuestionError(f"the question must be text, got {type(question).__name__}")
    cleaned = " ".join(question.split())
    if not cleaned:
        raise InvalidQuestionError("the question is empty", "ask something, e.g. 'What does pass do?'")
    if len(cleaned) > max_chars:
        raise InvalidQuestionError(
            f"the question has {len(cleaned)} characters; the limit is {max_chars}",
            "shorten it or raise max_question_chars with --set",
        )
    return cleaned

"""Question validation: the first thing every entry point does."""

from __future__ import annotations

import keyword
import re

from anchorgate.tools.errors import InvalidQuestionError
from anchorgate.tools.text.content_words import content_words
from anchorgate.tools.text.stopwords import stopwords_for
from anchorgate.tools.text.width import fold_width

# English and Indonesian together: a question in either language made only of these asks nothing.
_EMPTY_WORDS = stopwords_for("multi")
# The demo corpus is the Python Language Reference, where `in`, `not`, `with`... are the very things
# asked about ("What does in do?"), so a Python keyword counts as a content word. Not "is": nearly
# every English question has it as its verb ("what is the of"); asked about, it is quoted ('is').
_PYTHON_KEYWORDS = frozenset(word.lower() for word in (*keyword.kwlist, *keyword.softkwlist)) - {"is"}
# \w is Unicode-aware: a Chinese or Indonesian question yields its own words, not nothing.
_WORD = re.compile(r"[^\W_]+")
# A word in quotes or backticks is named on purpose ("What is 'the'?"), so it is content too.
_QUOTED_WORD = re.compile(r"[`'\"“‘«]\s*([^\W_]+)\s*[`'\"”’»]")
EXAMPLE = "e.g. 'What does the pass statement do?'"


def validate_question(question: object, max_chars: int = 2000) -> str:
    """The question with runs of whitespace collapsed and full-width digits, letters and symbols as ASCII
    ("１９８６年" → "1986年", `fold_width`: every matcher downstream reads one form; the Chinese clause
    punctuation ，？！ stays as typed); empty, over-long or content-free ones are refused."""
    if not isinstance(question, str):
        raise InvalidQuestionError(f"the question must be text, got {type(question).__name__}")
    if not is_unicode_text(question):
        # a lone surrogate: invalid UTF-8 in a command line (Python keeps such bytes as U+DC80..U+DCFF)
        # or "\ud800" from Python; no tokenizer, embedding model or checkpoint can encode it
        raise InvalidQuestionError(
            "the question is not valid text (it holds an unpaired surrogate code point)",
            "send it as UTF-8 text",
        )
    cleaned = " ".join(fold_width(question).split())
    if not cleaned:
        raise InvalidQuestionError("the question is empty", f"ask something, {EXAMPLE}")
    if len(cleaned) > max_chars:
        raise InvalidQuestionError(
            f"the question has {len(cleaned)} characters; the limit is {max_chars}",
            "shorten it, or raise the max_question_chars setting",
        )
    if not question_words(cleaned):
        # Retrieval would have no query term and the model no subject: baseline used to answer
        # "what is the of" with a confident STOP. Refusing is the honest answer.
        if not _WORD.search(cleaned):
            raise InvalidQuestionError(
                f"the question {cleaned[:80]!r} has only punctuation", f"ask something, {EXAMPLE}"
            )
        raise InvalidQuestionError(
            f"the question {cleaned[:80]!r} has only stopwords, nothing to look up",
            f"name what you are asking about, {EXAMPLE}; a keyword asked about goes in backticks: 'What does `is` do?'",
        )
    return cleaned


def is_unicode_text(text: str) -> bool:
    """Whether `text` encodes as UTF-8, i.e. holds no unpaired surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def question_words(question: str) -> list[str]:
    """The words of `question` that say what it is about: not stopwords, unless a Python keyword or quoted;
    a one-letter word counts."""
    named = {word.lower() for word in _QUOTED_WORD.findall(question)}
    words = [match.lower() for match in _WORD.findall(question)]
    return content_words(words, _EMPTY_WORDS, keep=_PYTHON_KEYWORDS | named, min_chars=1)

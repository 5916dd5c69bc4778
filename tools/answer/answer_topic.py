"""Whether a short answer comes from sentences about something else than the question (off topic).

The reader copies a name out of a passage it was given, and the sentence that name stands in says
nothing about what was asked: "Neil Diamond" for "who said if a tree falls in the woods and nobody
hears it", out of 'Girl, You'll Be a Woman Soon is a song written by American musician Neil Diamond';
"Que Sera, Sera" for "where does manners maketh the man come from". The support measure and the judge
both pass such an answer, since the passage does hold it word for word.

The check: every context sentence holding all of the answer's content words, read with its passage's
title (a sentence saying "It was filmed in Tulsa" is about its page's subject), shares no content word
with the question. Suffixes are folded ("filmed" meets "filming"), and two adjacent question words also
count written as one ("mac os" meets the page "macOS"). It only speaks when it can tell:
English questions (Indonesian words change shape by affixes the folding does not know: measured on
FacQA it withdrew more right answers than wrong), not yes/no or choice questions (the answer is the
question's own words), answers of at most `MAX_ANSWER_WORDS` words (a sentence-long answer is its own
topic), and an answer some sentence holds. Measured on every stored English record (docs/benchmark-log.md,
2026-11-27: off-topic answers withdrawn).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anchorgate.tools.answer.short_answer import short_answer_span
from anchorgate.tools.answer.text import normalize_words, strip_citations
from anchorgate.tools.question.anchors import question_type
from anchorgate.tools.question.anchors.words import FUNCTION
from anchorgate.tools.text.content_words import content_words
from anchorgate.tools.text.language import question_language
from anchorgate.tools.text.sentences import split_sentences
from anchorgate.tools.text.suffixes import fold_suffix

MAX_ANSWER_WORDS = 6


def _topic_words(text: str) -> frozenset[str]:
    """The text's words that are not function words, suffixes folded."""
    return frozenset(content_words(normalize_words(text), FUNCTION, fold=True))


def _joined_pairs(text: str) -> frozenset[str]:
    """Adjacent content words written as one ("mac os" → "macos"), as a passage may spell the compound."""
    words = normalize_words(text)
    return frozenset(
        fold_suffix(a + b) for a, b in zip(words, words[1:], strict=False) if a not in FUNCTION and b not in FUNCTION
    )


def answer_off_topic(question: str, answer: str, context: Sequence[Mapping[str, Any]]) -> bool | None:
    """True: the sentences holding the answer share no content word with the question; None: cannot tell."""
    if question_language(question) != "en" or question_type(question) in {"yes_no", "comparison"}:
        return None
    if len(normalize_words(answer)) > MAX_ANSWER_WORDS:
        return None
    answer_words = _topic_words(answer)
    asked = _topic_words(question) | _joined_pairs(question)  # an answer restating the question is on it
    if not answer_words or not asked:
        return None
    held = False
    for passage in context:
        title_words = _topic_words(str(passage.get("title") or ""))
        for sentence in split_sentences(str(passage.get("text", ""))):
            words = _topic_words(sentence.text)
            if answer_words <= words:
                if (words | title_words) & asked:
                    return False
                held = True
    return True if held else None


def draft_off_topic(question: str, draft: str, context: Sequence[Mapping[str, Any]]) -> bool | None:
    """`answer_off_topic` of the draft's short answer (the span scoring and the user's short answer use)."""
    return answer_off_topic(question, short_answer_span(question, strip_citations(draft)), context)

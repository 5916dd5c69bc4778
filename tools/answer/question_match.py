"""Whether the sentences a quoted Chinese answer stands on state what the question asks.

A sentence can be about the question's topic and still not answer it: "月球距离太阳多远？" answered
with the Earth–Moon distance, "英国铁路总长多少？" with a figure quoted from a sentence about
Germany, "美国有多少所音乐学院？" with "4" from a sentence about one conservatory. The answer's
words are in a passage, so the support overlap passes all three; here the quotes are read against
the question itself. What they lack, in the order reported:

- `number`: a number of the answer that no quote holds, however written (三百 is 300:
  tools/text/chinese_numbers.py);
- `year`: a year the question names (1800年, 一九八六年) that no quote holds: the figure may be of
  another year;
- `terms`: under `TERM_SHARE_MIN` of the question's nouns are in the quotes and the titles of their
  passages. The nouns are jieba's part-of-speech tags (MIT; a dictionary and an HMM, the same tags on
  every machine), question and quotes read in Simplified characters (OpenCC), so 鐵路 is 铁路;
- `superlative`: the question asks 最 / 第一 / 唯一 and no quote states it
  (tools/question/superlative.py).

Only quoted answers are read: a quote is the sentence the reader says its answer comes from, so what
it must hold is well defined. Free-style answers (list, who and "what is" questions in Chinese) cite
whole passages, where a missing noun was as common on the relevant sets as on the non-relevant ones;
and asking who/which questions in the quoted style, so that the check reads them, lost more relevant
answers than it withdrew wrong ones (rows the check was chosen on: NoMIRACL-zh 126–187 of each
subset, bench/splits.json).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from functools import lru_cache

from anchorgate.tools.question.superlative import asks_superlative, superlative_stated
from anchorgate.tools.text.chinese_numbers import numbers_in, unsupported_numbers
from anchorgate.tools.text.chinese_script import to_script
from anchorgate.tools.text.cjk import KANA, has_cjk

TERM_SHARE_MIN = 0.5
"""The share of the question's nouns the quotes must hold (with their passages' titles)."""

_NOUN_TAGS = ("n", "eng")  # jieba: n, nr (person), ns (place), nt (organisation), nz (other proper) …
_LOCK = threading.Lock()


def is_chinese_question(question: str) -> bool:
    """A question these checks read: Chinese characters and no Japanese kana."""
    return has_cjk(question) and KANA.search(question) is None


@lru_cache(maxsize=4096)
def question_terms(question: str) -> tuple[str, ...]:
    """The question's nouns of two characters or more (and its Latin words), in Simplified characters,
    in order, each once."""
    import jieba
    import jieba.posseg

    with _LOCK:  # jieba builds its dictionary once, on first use; its log lines are not the user's
        jieba.setLogLevel(logging.WARNING)
        pairs = jieba.posseg.lcut(to_script(question, "simplified"))
    terms = [p.word for p in pairs if p.flag.startswith(_NOUN_TAGS) and len(p.word) >= 2]
    return tuple(dict.fromkeys(terms))


def question_years(question: str) -> list[float]:
    """The years a question names: a number of 3 or 4 digits (Arabic or Chinese) right before 年."""
    return [
        m.value
        for m in numbers_in(question)
        if question[m.end : m.end + 1] == "年" and 100 <= m.value <= 2999 and m.value.is_integer()
    ]


def off_question(question: str, answer: str, quotes: Sequence[str], titles: Sequence[str] = ()) -> list[str]:
    """What the quotes (and their passages' titles) lack of what the question asks: "number", "year",
    "terms", "superlative"; empty when they state it all, or when there is no quote to read."""
    if not quotes or not answer.strip():
        return []
    quoted = [to_script(q, "simplified") for q in quotes]
    held = "\n".join([*quoted, *(to_script(t, "simplified") for t in titles)]).casefold()
    lacks: list[str] = []
    if unsupported_numbers(answer, quoted):
        lacks.append("number")
    stated = {m.value for q in quoted for m in numbers_in(q)}
    if any(year not in stated for year in question_years(question)):
        lacks.append("year")
    terms = question_terms(question)
    if terms and sum(term.casefold() in held for term in terms) / len(terms) < TERM_SHARE_MIN:
        lacks.append("terms")
    if asks_superlative(question) and not any(superlative_stated(q, question) for q in quoted):
        lacks.append("superlative")
    return lacks

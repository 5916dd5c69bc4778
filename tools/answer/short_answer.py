"""Short answer span for scoring (EM/F1) — the finalizer rules of seed 000 §6 (DESIGN §2.4).

The cited answer stays unchanged for the user; this only picks the span that scoring compares with
gold answers, so verbosity is not penalised. Rules, in order (first that applies wins):

1. Citations stripped; an "I don't know"-style answer → "".
2. Yes/no questions → "yes"/"no" when the answer opens with yes/no (ya/tidak/bukan, 是/不是/没有).
3. Numeric questions (`question_type` "numeric": how many/much, berapa, average, total, jumlah, percentage
   …): "average/mean/rata-rata" → the
   number right after an average marker, else after "~/≈/about/approximately/sekitar", else the
   last number of the sentence that mentions the average ("usia 22, 25, 30 tahun, rata-rata usia
   25.7 tahun" → "25.7 tahun": the unit is kept, seed 000 §4 "sertakan unit … tahun");
   "total/jumlah/overall/menjadi" → the number right after (or before "in total") those words, else
   the largest; otherwise the only non-year number, or the one followed by the noun the question
   counts. Kept with the number: currency ("$", "Rp", "USD"), scale words ("5 juta USD", "$5
   million"), "%"/percent, measurement and time units, and for Indonesian questions the classifier
   or counted noun ("84 penumpang", "15 kali"), which Indonesian answers carry. Rates ("per
   kuartal", "per game") and component numbers are dropped. Years stay plain years.
4. List questions → the items, comma-joined, when the answer enumerates them (bullets, or "A, B and C"
   after ":"/"are"/"include"/"adalah"/"yaitu"/"antara lain").
5. Answers of ≤ 4 words are already short → unchanged (Chinese: two characters count as a word).
6. Comparison/choice questions → the option ("Sid Haig or Vic Darchinyan") the answer opens with.
7. Factoids, only on a clear pattern in the first sentence: a date/year question and exactly one
   date or year; an answer opening with a name the question lacks, followed by question words
   ("Roger Federer won the 2017 Australian Open"); "X is/was/adalah Y" where one side restates the
   question and the other is a short name or quantity ("Pemenangnya adalah Film X pada …" → "Film
   X"); last and least sure, for who/where questions only, the first multi-word name the question
   lacks. Explanations (why/how, "what does X do?") and unresolved numbers are never cut.
8. Otherwise the answer unchanged (citations stripped, trailing period removed): when unsure, do
   not guess (seed 000 §12 "jika ragu, biarkan jawaban apa adanya").

Measured (tests/unit/test_short_answer.py): on 200 NQ-open questions whose answer is the gold
passage sentence holding the gold answer, mean token-F1 rises from 0.204 (full sentence) to 0.432
(short span); the who/where name rule alone accounts for ~0.10 of that.

This module holds the entry point `short_answer_span` and rules 1, 2 and 4–8; the numeric rule 3
is in tools/answer/short_numbers.py, kept apart
for size: it has its own markers and number reading.
"""

from __future__ import annotations

import re

from anchorgate.tools.answer.short_numbers import numeric_span
from anchorgate.tools.answer.text import is_idk, normalize_words, strip_citations
from anchorgate.tools.question.anchors import STOP, Anchor, extract_anchors, question_type
from anchorgate.tools.text.cjk import CJK_RUN
from anchorgate.tools.text.sentences import split_sentences

SHORT_WORDS = 4
MAX_SPAN_WORDS = 6

_YES = frozenset(("yes", "yeah", "yep", "ya", "iya", "benar", "betul"))
_NO = frozenset(("no", "nope", "not", "tidak", "bukan", "tak", "nggak"))
_COPULA = re.compile(r"\s(?:is|are|was|were|adalah|ialah|merupakan|yaitu|yakni)\s", re.IGNORECASE)
_CUT = re.compile(
    r"\s*(?:[,;(]|\s(?:which|who|whom|that|where|when|while|because|as|in|on|at|for|from|since|after|before|during|"
    r"with|by|yang|pada|dalam|di|ke|dari|sejak|untuk|karena|dengan|oleh|dan|and|serta)\s)",
    re.IGNORECASE,
)
_LEAD_PREP = re.compile(r"^(?:in|at|on|from|near|di|pada|dari|ke)\s+", re.IGNORECASE)
_DATE_Q = re.compile(r"\b(?:when|what year|which year|in what year|kapan|tahun berapa|pada tahun)\b", re.I)
_YEAR_Q = re.compile(r"\b(?:what year|which year|tahun berapa)\b", re.IGNORECASE)
_PERSON_PLACE_Q = re.compile(r"^\s*(?:who|whom|where|siapa(?:kah)?|di\s?mana(?:kah)?)\b", re.IGNORECASE)
_DESCRIPTIVE_Q = re.compile(r"\b(?:do|does|mean|means|work|used for|happen)\s*\?*\s*$", re.IGNORECASE)
_NAME_KINDS = ("entity", "title", "acronym", "quoted")
_BULLET = re.compile(r"^\s*(?:[-*•‣–]|\d{1,2}[.)])\s+(.+)$")
_INLINE_BULLET = re.compile(r"(?:^|\s)(?:[-*•‣–]|\d{1,2}[.)])\s+")
_ENUM_LEAD = re.compile(
    r"(?::|\s(?:are|were|include|includes|included|including|adalah|yaitu|yakni|antara lain|meliputi|ialah)\s)",
    re.IGNORECASE,
)
_ITEM_SPLIT = re.compile(r"\s*[,;]\s*(?:and\s+|dan\s+|or\s+|atau\s+|serta\s+)?|\s+(?:and|dan|or|atau|serta)\s+")


def _finish(text: str) -> str:
    """Trimmed, without the sentence's final period (but "Robert Downey Jr." keeps its dot)."""
    text = text.strip()
    if text.endswith(".") and not re.search(r"(?:\b[A-Z]|\b(?:Jr|Sr|Inc|Ltd|Co|St))\.$", text):
        text = text[:-1]
    return text.rstrip("。｡").strip()


def _word_count(text: str) -> int:
    """Words of `text`; a run of Chinese characters counts one word per two characters (no spaces)."""
    cjk = sum(len(run) for run in CJK_RUN.findall(text))
    return len(CJK_RUN.sub(" ", text).split()) + (cjk + 1) // 2


def _yes_no(text: str) -> str | None:
    opening = text.lstrip(" \"'“「")
    if opening.startswith(("不是", "不对", "没有", "否", "不")):
        return "no"
    if opening.startswith(("是的", "是，", "是。", "对", "没错", "是")):
        return "yes"
    first = normalize_words(text[:20])
    if first and first[0] in _YES:
        return "yes"
    if first and first[0] in _NO:
        return "no"
    return None


def _list_items(text: str) -> str | None:
    """The enumerated items, comma-joined, or None when the answer does not enumerate."""
    bullets = [_finish(m.group(1)) for line in text.splitlines() if (m := _BULLET.match(line))]
    if len(bullets) < 2:  # bullets flattened onto one line: "languages: - English - French"
        bullets = [_finish(part) for part in _INLINE_BULLET.split(text)[1:]]
    if len(bullets) >= 2 and all(bullets):
        return ", ".join(bullets)
    for sentence in split_sentences(text):
        body = _finish(sentence.text)
        lead = _ENUM_LEAD.search(body)
        tail = body[lead.end() :] if lead else body
        items = [_finish(i) for i in _ITEM_SPLIT.split(tail) if i.strip()]
        enough = len(items) >= (2 if lead else 3)
        if enough and all(1 <= len(i.split()) <= MAX_SPAN_WORDS for i in items):
            return ", ".join(items)
    return None


def _content(text: str) -> set[str]:
    return {w for w in normalize_words(text) if w not in STOP}


def _shares(words: set[str], question_words: set[str]) -> bool:
    """Whether a span restates the question; prefixes count ("pemenangnya" ~ "pemenang", "awards" ~ "award")."""
    return any(w == q or (min(len(w), len(q)) >= 4 and (w.startswith(q) or q.startswith(w)))
               for w in words for q in question_words)


def _short_side(side: str, question_words: set[str]) -> str | None:
    """A copula side as the answer: trimmed at the first clause boundary, short, new to the question."""
    side = _LEAD_PREP.sub("", side.strip())
    cut = _CUT.search(side)
    span = _finish(side[: cut.start()] if cut else side).strip("\"'“”")
    words = _content(span)
    # Only a name or a quantity: "is a professional football club …", "was awarded …" describe the
    # subject; they do not answer the question.
    name_like = bool(re.match(r"[A-Z0-9$€£¥]|Rp", span))
    if name_like and words and len(span.split()) <= MAX_SPAN_WORDS and not _shares(words, question_words):
        return span
    return None


def _copula(sentence: str, question_words: set[str], anchors: list[Anchor]) -> str | None:
    """"The capital of France is Paris" / "Paris is the capital of France" → "Paris"."""
    match = _COPULA.search(sentence)
    if not match:
        return None
    left, right = sentence[: match.start()], sentence[match.end() :]
    if re.search(r"[;:]", left):  # the copula belongs to a later clause, not to the answer's subject
        return None
    if _shares(_content(left), question_words):
        return _short_side(right, question_words)
    names = {a.text for a in anchors if a.kind in _NAME_KINDS}
    if _shares(_content(right), question_words) and _finish(left).strip("\"'“”") in names:
        return _short_side(left, question_words)  # the whole subject is one name: "Paris is the capital …"
    return None


def _factoid(question: str, sentence: str) -> str | None:
    question_words = _content(question)
    anchors = extract_anchors(sentence)
    if _DATE_Q.search(question):
        dated = [a for a in anchors if a.kind in ("date", "year") and not _content(a.text) <= question_words]
        if len(dated) == 1:
            year = re.search(r"\b(?:1\d{3}|20\d{2})\b", dated[0].text)
            return year.group() if year and _YEAR_Q.search(question) else dated[0].text
        return None
    named = [a for a in anchors if a.kind in _NAME_KINDS]
    new_names = [a for a in named if _content(a.text) and not _shares(_content(a.text), question_words)]
    lead = _lead_name(sentence, named, question_words)
    if lead and lead in new_names:
        return lead.text
    found = _copula(sentence, question_words, anchors)
    if found or not _PERSON_PLACE_Q.search(question):
        return found
    # Least sure rule, who/where only: the first multi-word name the question does not mention.
    names = [a for a in new_names if a.essential and len(a.text.split()) >= 2 and not a.text.startswith("The ")]
    return names[0].text if names else None


def _lead_name(sentence: str, named: list[Anchor], question_words: set[str]) -> Anchor | None:
    """"Roger Federer won the 2017 Australian Open": a name opening the answer, followed by words
    of the question (so the name fills the question's gap)."""
    if not named or not named[0].essential or len(named[0].text.split()) > MAX_SPAN_WORDS:
        return None
    opening = sentence.lstrip("\"'“ ")
    if not opening.startswith(named[0].text):
        return None
    return named[0] if _shares(_content(opening[len(named[0].text) :]), question_words) else None


def _option(question: str, sentence: str) -> str | None:
    """Comparison/choice questions: the option the answer opens with ("Sid Haig is older …")."""
    options = [a.text for a in extract_anchors(question) if a.kind in _NAME_KINDS]
    opening = re.sub(r"^(?:the|a|an)\s+", "", sentence.lstrip("\"'“ "), flags=re.IGNORECASE).casefold()
    for option in options if len(options) >= 2 else []:
        bare = re.sub(r"^(?:the|a|an)\s+", "", option, flags=re.IGNORECASE)
        if opening.startswith(bare.casefold()) and not opening[len(bare) : len(bare) + 1].isalnum():
            return option
    return None


def short_answer_span(question: str, answer: str) -> str:
    """The span of `answer` that scoring compares with gold answers ("" for "I don't know")."""
    # Citations are stripped line by line so bullet lines survive.
    text = "\n".join(filter(None, (strip_citations(line) for line in answer.strip().splitlines())))
    if is_idk(text):
        return ""
    kind = question_type(question)
    if kind == "yes_no":
        verdict = _yes_no(text)
        if verdict:
            return verdict
    if kind == "numeric":
        number = numeric_span(question, text)
        if number:
            return number
    if kind == "list":
        items = _list_items(text)
        if items:
            return items
    text = " ".join(text.split())  # from here on line breaks carry no meaning
    if _word_count(text) <= SHORT_WORDS:
        return _finish(text)
    sentences = split_sentences(text)
    if not sentences:
        return _finish(text)
    first = sentences[0].text
    if kind == "comparison":
        span = _option(question, first)
    elif kind in ("list", "other", "numeric") or _DESCRIPTIVE_Q.search(question):
        span = None  # explanations have no minimal span; an unresolved number is not guessed
    else:
        span = _factoid(question, first)
    return _finish(span) if span else _finish(text)

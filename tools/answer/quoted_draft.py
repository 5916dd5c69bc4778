"""Quoted drafts: a short answer, then the sentence of the passages that states it, copied.

A small reader paraphrases, mixes passages and cites the wrong number; a verbatim quote is
something we can check. The draft has a fixed shape, which a llama.cpp grammar (`draft_grammar`,
built per context from the passages' sentences) holds the local model to and the prompt asks of
any other model:

    1889
    QUOTE [2]: The Eiffel Tower was completed in 1889 for the World's Fair.

or just `I don't know`. The answer comes first so that the reply's first token is the model's own
choice between answering and declining (its probability is the `abstain_p` signal; a reply that
had to open with "QUOTE" made the model quote something on almost every unanswerable ClapNQ
question). Parsing never raises: a reply of another shape is `malformed` (the older
`QUOTE … / ANSWER: …` order is read too), and each quote is verified against the numbered passages
(verbatim in the passage it names, verbatim in another one, nearly verbatim, or absent). The gate
routes on these measured outcomes; the user sees `<answer> [n]` with the verified quote as the
citation's quote.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from typing import Any, Literal

from anchorgate.tools.answer.citations import overlap_words
from anchorgate.tools.answer.text import IDK_ANSWER, is_idk, normalize_words, strip_citations
from anchorgate.tools.text.chinese_numbers import numbers_in
from anchorgate.tools.text.sentences import split_sentences
from anchorgate.tools.text.suffixes import fold_suffix

MAX_QUOTES = 2
NEAR_QUOTE_RATIO = 0.85  # difflib ratio of a paraphrase-free copy with a few tokens changed
OUTSIDE_WORDS_MAX = 0.25  # a judged answer may hold this share of words found in no passage
DraftStatus = Literal["quoted", "declined", "malformed"]
QuoteStatus = Literal["verbatim", "moved", "near", "absent"]

# GBNF (llama.cpp). The quote is not free text: it is one of the numbered passages' own sentences
# (cut to QUOTE_MAX_CHARS at a word boundary), spelled out as literal alternatives, so the local
# model can only pick a sentence, never paraphrase or run on into a whole passage. Which sentence
# it picks, and whether its answer is in it, are still checked. Models without grammar support
# get the same instructions in the prompt and `check_quotes` verifies what they copied.
QUOTE_MAX_CHARS = 160
ANSWER_MAX_CHARS = 200  # the answer line: a short answer, at most a sentence
_GRAMMAR_HEAD = """root ::= declined | answered
declined ::= "I don't know"
answered ::= [^\\n]{1,ANSWER_CHARS} "\\n" quote
"""


def _gbnf_literal(text: str) -> str:
    """`text` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(ch if ch.isprintable() else " " for ch in escaped) + '"'


def quotable_sentences(text: str, max_chars: int = QUOTE_MAX_CHARS) -> list[str]:
    """A passage's sentences as the grammar offers them: each cut to `max_chars` at a word boundary."""
    sentences = []
    for sentence in split_sentences(text):
        piece = " ".join(sentence.text.split())
        if len(piece) > max_chars:
            piece = piece[:max_chars].rsplit(" ", 1)[0]
        if piece and piece not in sentences:
            sentences.append(piece)
    return sentences


def draft_grammar(passages: Sequence[Mapping[str, Any]]) -> str:
    """The GBNF that holds a reply to `<answer>` + `QUOTE [n]: <a sentence of passage n>`, or declined."""
    head = _GRAMMAR_HEAD.replace("ANSWER_CHARS", str(ANSWER_MAX_CHARS))
    rules, choices = [], []
    for passage in passages:
        sentences = quotable_sentences(passage["text"])
        if not sentences:
            continue
        n = int(passage["n"])
        choices.append(f'"QUOTE [{n}]: " p{n}')
        rules.append(f"p{n} ::= " + " | ".join(_gbnf_literal(s) for s in sentences))
    if not choices:
        return head.replace("root ::= declined | answered", "root ::= declined")
    return head + "quote ::= " + " | ".join(choices) + "\n" + "\n".join(rules) + "\n"


_QUOTE_LINE = re.compile(r"^\s*QUOTE\s*\[(\d{1,2})\]\s*:\s*(.+?)\s*$", re.IGNORECASE)
_NONE_LINE = re.compile(r"^\s*QUOTE\s*:\s*none\b", re.IGNORECASE)
_ANSWER_LINE = re.compile(r"^\s*ANSWER\s*:\s*(.*?)\s*$", re.IGNORECASE)
YES_NO = frozenset({"yes", "no"})
_RUN_ON_QUOTE = re.compile(r"\s*(?:\[\d{1,2}\]\s*)*QUOTE\s*\[", re.IGNORECASE)  # "Billy Flynn [1] QUOTE [1]: …"
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_INLINE_QUOTE = re.compile(r"\s*\[(\d{1,2})\]\s*:\s*(\S.*?)\s*$")  # "Pertamax [1]: sedangkan pertamax dari …"
_MARKER = re.compile(r"\s*\[\d{1,2}\]\s*")
ECHO_WORDS = 6  # words after a marker that, found in a quote, mark the rest of the line as that quote


@dataclass(frozen=True)
class Quote:
    """One quote line and what the check found."""

    passage: int
    text: str
    status: QuoteStatus = "absent"
    found_in: int | None = None  # the passage that holds it (== passage unless moved)
    match: str = ""  # the passage sentence it matched
    ratio: float = 0.0


@dataclass(frozen=True)
class QuotedDraft:
    """A parsed, checked draft."""

    status: DraftStatus
    answer: str = ""
    quotes: list[Quote] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        """At least one quote found verbatim (in its passage or another)."""
        return any(q.status in {"verbatim", "moved"} for q in self.quotes)

    @property
    def cited(self) -> list[int]:
        """Passages that hold the found quotes, in order, without repeats."""
        numbers: list[int] = []
        for q in self.quotes:
            if q.found_in is not None and q.found_in not in numbers:
                numbers.append(q.found_in)
        return numbers

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready record for state and telemetry."""
        return {
            "status": self.status,
            "answer": self.answer,
            "quotes": [asdict(q) for q in self.quotes],
            "verified": self.verified,
        }


def parse_draft(text: str) -> QuotedDraft:
    """The reply's answer and quotes; never raises (another shape is `malformed`).

    The answer is the first line that is not a quote (an `ANSWER:` label is dropped), so both
    `answer / QUOTE …` and `QUOTE … / ANSWER: answer` read the same.
    """
    quotes: list[Quote] = []
    answer: str | None = None
    declined = False
    for line in text.strip().splitlines():
        if found := _QUOTE_LINE.match(line):
            quotes.append(Quote(int(found.group(1)), found.group(2).strip()))
        elif _NONE_LINE.match(line):
            declined = True
        elif answer is None and line.strip():
            labelled = _ANSWER_LINE.match(line)
            answer, inline = _split_inline_quote(
                _RUN_ON_QUOTE.split(labelled.group(1) if labelled else line.strip())[0]
            )
            quotes.extend(inline)
    if answer is not None:
        answer = _without_quote_echo(answer, quotes)
    if answer is not None and is_idk(answer) and answer.strip():
        return QuotedDraft("declined", answer=IDK_ANSWER)
    if declined and not quotes:
        return QuotedDraft("declined", answer=IDK_ANSWER)
    if not answer or not answer.strip() or not quotes:
        return QuotedDraft("malformed", answer=(answer or "").strip(), quotes=quotes[:MAX_QUOTES])
    return QuotedDraft("quoted", answer=answer.strip(), quotes=quotes[:MAX_QUOTES])


def _split_inline_quote(line: str) -> tuple[str, list[Quote]]:
    """An answer line that goes on "[n]: <text>" carries a quote without its QUOTE label: the answer is
    what comes before, and the rest is checked as a quote of passage n like any other."""
    found = _INLINE_QUOTE.search(line)
    if found is None:
        return line.rstrip(" ,;:"), []
    return line[: found.start()].rstrip(" ,;:"), [Quote(int(found.group(1)), found.group(2))]


def _without_quote_echo(answer: str, quotes: Sequence[Quote]) -> str:
    """The answer cut at a citation marker that is followed by the text of one of its quotes
    ("239 [1] The tornado outbreak sequence of May 22–31 …"): the reader copied its quote into the
    answer line, and what follows the marker is not the answer."""
    quoted = [_folded(q.text) for q in quotes]
    for marker in _MARKER.finditer(answer):
        words = _folded(answer[marker.end() :]).split()[:ECHO_WORDS]
        if len(words) >= 3 and any(" ".join(words) in text for text in quoted):
            return answer[: marker.start()].rstrip(" ,;:")
    return answer


def _folded(text: str) -> str:
    """Lower case, accents and punctuation removed, whitespace collapsed: what "verbatim" compares."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_PUNCT.sub(" ", text).split())


def check_quotes(draft: QuotedDraft, context: Sequence[Mapping[str, Any]]) -> QuotedDraft:
    """The draft with each quote checked against the numbered passages (exact match first)."""
    if draft.status == "declined" or not draft.quotes:
        return draft
    folded = {int(p["n"]): _folded(f"{p.get('title', '')} {p['text']}") for p in context}
    checked = [_check_one(q, folded, context) for q in draft.quotes]
    return QuotedDraft(draft.status, draft.answer, checked)


def _check_one(quote: Quote, folded: dict[int, str], context: Sequence[Mapping[str, Any]]) -> Quote:
    needle = _folded(quote.text)
    if not needle:
        return quote
    if needle in folded.get(quote.passage, ""):
        match = _whole_sentence(quote.text, quote.passage, context)
        return Quote(quote.passage, quote.text, "verbatim", quote.passage, match, 1.0)
    # stable order: the lowest passage number that holds it
    for n in sorted(folded):
        if needle in folded[n]:
            return Quote(quote.passage, quote.text, "moved", n, _whole_sentence(quote.text, n, context), 1.0)
    best = (0.0, 0, "")
    for passage in context:
        for sentence in split_sentences(passage["text"]):
            ratio = SequenceMatcher(None, needle, _folded(sentence.text), autojunk=False).ratio()
            if ratio > best[0]:
                best = (ratio, int(passage["n"]), sentence.text)
    if best[0] >= NEAR_QUOTE_RATIO:
        return Quote(quote.passage, quote.text, "near", best[1], best[2], round(best[0], 4))
    return Quote(quote.passage, quote.text, "absent", None, best[2], round(best[0], 4))


def _whole_sentence(quote: str, n: int, context: Sequence[Mapping[str, Any]]) -> str:
    """The sentence of passage `n` that a verbatim quote was copied from, whole.

    The grammar offers a long sentence only up to QUOTE_MAX_CHARS, so the reader's quote of it stops
    at the cut; the answer may come after it (41 of FacQA's 311 answers do). The sentence the reader
    chose is the quote's match, so its answer is checked against all of it. A quote that spans
    sentences, or a title, keeps its own text.
    """
    needle = _folded(quote)
    for passage in context:
        if int(passage["n"]) != n:
            continue
        for sentence in split_sentences(passage["text"]):
            if needle in _folded(sentence.text):
                return " ".join(sentence.text.split())
    return quote


def answer_grounding(draft: QuotedDraft, context: Sequence[Mapping[str, Any]]) -> float:
    """Share of the answer's words found in its found quotes (1.0 for a yes/no answer).

    An answer copied out of the quote scores 1.0; an answer the quote does not contain (the model
    quoted one thing and answered from memory) scores low. Without content words (numbers and
    names are content words; "yes"/"no" are not) the answer is a verdict on the quote: 1.0.
    """
    if draft.status != "quoted":
        return 0.0
    words = _grounding_words(draft.answer) - YES_NO
    if not words:
        return 1.0
    quoted = " ".join(q.match or q.text for q in draft.quotes if q.status != "absent")
    if not quoted:
        return 0.0
    return round(len(words & _quoted_words(quoted)) / len(words), 4)


_LONE_DIGIT = re.compile(r"(?<![\d.,])\d(?![\d.,])")  # "7", not the "0" of "85.0" or the "6" of "6,960"
_DIGIT_WORDS = {
    word: str(n)
    for n, words in enumerate(
        (("zero", "nol"), ("one", "satu"), ("two", "dua"), ("three", "tiga"), ("four", "empat"), ("five", "lima"),
         ("six", "enam"), ("seven", "tujuh"), ("eight", "delapan"), ("nine", "sembilan")))
    for word in words
}  # fmt: skip


def _grounding_words(text: str) -> set[str]:
    """`overlap_words` plus numbers of one digit, which it drops with one-letter words: "7" is an answer
    (citation markers are not numbers of the answer)."""
    return overlap_words(text) | set(_LONE_DIGIT.findall(strip_citations(text)))


def _quoted_words(quoted: str) -> set[str]:
    """What a quote holds for `_grounding_words`: also a one-digit number written out ("three", "tiga",
    "三"), as a digit."""
    written = {_DIGIT_WORDS[w] for w in normalize_words(quoted) if w in _DIGIT_WORDS}
    chinese = {str(int(m.value)) for m in numbers_in(quoted) if m.value in range(10)}
    return _grounding_words(quoted) | written | chinese


def echoes_question(answer: str, question: str) -> bool:
    """An answer made only of the question's own words ("Lilu" to "If Gallu is a demon Lilu is what?"),
    suffixes folded ("Cherry picking" to "where does the term cherry picker come from").

    Not an echo: yes/no, a choice the question offers ("… X or Y?" → "X"), or a number the question
    does not hold ("6 bulan" to "Berapa bulan …?": content words leave digits out; FacQA 151–250).
    """
    words = {fold_suffix(w) for w in overlap_words(answer) - YES_NO}
    if not words or re.search(r"\bor\b", question, re.IGNORECASE):
        return False
    numbers = {w for w in normalize_words(answer) if any(ch.isdigit() for ch in w)}
    if numbers - set(normalize_words(question)):
        return False
    return words <= {fold_suffix(w) for w in overlap_words(question)}


def non_answer(answer: str, question: str, yes_no_question: bool) -> str | None:
    """Why an answer answers nothing: "echo" (only the question's words), "yes_no_to_open_question"
    ("No" to "which method of forecasting …": the small model's way of not knowing), or None."""
    words = normalize_words(answer)
    if words and set(words) <= YES_NO and not yes_no_question:
        return "yes_no_to_open_question"
    return "echo" if echoes_question(answer, question) else None


def user_answer(draft: QuotedDraft) -> str:
    """What the user reads: the answer with the markers of the passages its quotes came from."""
    if draft.status != "quoted":
        return IDK_ANSWER if draft.status == "declined" else draft.answer
    markers = "".join(f"[{n}]" for n in draft.cited)
    answer = draft.answer.rstrip()
    if not markers:
        return answer
    if answer.endswith((".", "!", "?")):
        return f"{answer[:-1]} {markers}{answer[-1]}"
    return f"{answer} {markers}"


def answer_agreement(proposed: str, draft: QuotedDraft, evidence: str, question: str) -> float:
    """How well a proposed answer agrees with the reader's own verified, quoted answer (0–1).

    The judge's check: the share of the extracted answer's words found in the proposal (a yes/no
    extraction must match its word), times 0 when the proposal brings words that are neither in
    the question nor in the evidence (a claim from outside the passages). 0 when the extraction
    declined or its quote is not in the passages.
    """
    if draft.status != "quoted" or not any(q.status != "absent" for q in draft.quotes):
        return 0.0
    said = overlap_words(proposed)
    extracted = overlap_words(draft.answer) - YES_NO
    if not extracted:  # a yes/no extraction
        first = (normalize_words(proposed) or [""])[0]
        return 1.0 if first == (normalize_words(draft.answer) or ["?"])[0] else 0.0
    agreement = len(said & extracted) / len(extracted)
    known = overlap_words(f"{question} {evidence}")
    outside = len(said - known) / len(said) if said else 0.0
    return round(agreement if outside <= OUTSIDE_WORDS_MAX else 0.0, 4)

"""Quote re-read: when a quoted answer is not in its own quote, read that sentence alone once more.

The reader writes its answer line before it picks the sentence to quote, so the two can disagree:
asked who designed New Earswick, the 1.5B answered "Joseph Rowntree" (who built it) and quoted
"The planner Raymond Unwin and the architect Barry Parker were commissioned to produce an overall
plan …". The quote is verified (it is in the passage); the answer is not in the quote
(`grounding` 0). One short call shows the model only that sentence (and its passage's title) and
lets it reply with a span of the sentence or "I don't know" (a llama.cpp grammar holds it to
that). A span replaces the answer; a decline keeps it, because the model also quotes a poor
sentence for an answer it read elsewhere ("291", quoted from the series' opening sentence).
Everything here is pure; the call is made by the generator (`agents/generator.py`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from anchorgate.tools.answer.citations import content_words
from anchorgate.tools.answer.quoted_draft import YES_NO, non_answer
from anchorgate.tools.answer.text import IDK_ANSWER, is_idk
from anchorgate.tools.retrieval.evidence_strength import answer_type_present
from anchorgate.tools.text.sentences import split_sentences

SPAN_MAX_WORDS = 10  # a short answer: a name, a date, a number, a few words
SENTENCE_MAX_CHARS = 400  # the re-read sentence in full (the quote grammar cut it at 160)
_EDGE_PUNCT = "\"'“”‘’()[]{},;:.!?"
_MARKERS = re.compile(r"\s*\[\d{1,2}\]")
_DIGIT = re.compile(r"\d")


def _folded(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    return " ".join("".join(ch for ch in text if not unicodedata.combining(ch)).split())


def reread_candidate(
    structure: Mapping[str, Any] | None, below: float, max_words: int = 4
) -> Mapping[str, Any] | None:
    """The first found quote of a short quoted answer (at most `max_words` words) whose grounding in
    its quotes is below `below`, else None. A longer answer is a sentence in the reader's own words
    ("The current director of the US Mint is David Motl."): re-read, it came back as a worse span."""
    if not structure or structure.get("status") != "quoted" or float(structure.get("grounding", 1.0)) >= below:
        return None
    if len(_MARKERS.sub("", str(structure.get("answer", ""))).split()) > max_words:
        return None
    for quote in structure.get("quotes", []):
        if quote.get("status") in {"verbatim", "moved", "near"} and quote.get("found_in") is not None:
            return quote
    return None


def full_sentence(quote: Mapping[str, Any], context: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(title, sentence): the passage sentence the quote was cut from, whole, and its passage's title."""
    passage = next((p for p in context if int(p["n"]) == int(quote["found_in"])), None)
    cut = _folded(str(quote.get("match") or quote.get("text", "")))
    if passage is None:
        return "", str(quote.get("match") or quote.get("text", ""))
    for sentence in split_sentences(passage["text"]):
        whole = " ".join(sentence.text.split())
        if cut and _folded(whole).startswith(cut[: max(20, len(cut) - 5)]):
            return str(passage.get("title", "")), whole[:SENTENCE_MAX_CHARS]
    return str(passage.get("title", "")), str(quote.get("match") or quote.get("text", ""))


def sentence_spans(sentence: str, max_words: int = SPAN_MAX_WORDS) -> list[str]:
    """Every run of 1..`max_words` consecutive words of the sentence, punctuation cut at its edges, unique."""
    words = sentence.split()
    spans: list[str] = []
    seen: set[str] = set()
    for start in range(len(words)):
        for end in range(start + 1, min(len(words), start + max_words) + 1):
            span = " ".join(words[start:end]).strip(_EDGE_PUNCT).strip()
            if span and span not in seen:
                seen.add(span)
                spans.append(span)
    return spans


def _gbnf_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(ch if ch.isprintable() else " " for ch in escaped) + '"'


def span_grammar(sentence: str, max_words: int = SPAN_MAX_WORDS) -> str:
    """GBNF: "I don't know" or one span of the sentence (`sentence_spans`), nothing else."""
    spans = sentence_spans(sentence, max_words)
    if not spans:
        return f"root ::= {_gbnf_literal(IDK_ANSWER)}\n"
    return f"root ::= {_gbnf_literal(IDK_ANSWER)} | span\nspan ::= " + " | ".join(map(_gbnf_literal, spans)) + "\n"




def accepted_span(
    reply: str, sentence: str, question: str, yes_no_question: bool, first_answer: str = ""
) -> str | None:
    """The reply as the new answer, or None: a decline, a non-answer, words the sentence lacks, or a
    span of another shape than the question or the first answer asks for (a town's name for its
    population "6,960": a number is not replaced by words)."""
    line = _MARKERS.sub("", (reply.strip().splitlines() or [""])[0]).strip().strip(_EDGE_PUNCT).strip()
    if not line or is_idk(line) or non_answer(line, question, yes_no_question):
        return None
    words = content_words(line) - YES_NO
    if not words or not words <= content_words(sentence):
        return None
    wanted, present = answer_type_present(question, [line])
    was_number = bool(_DIGIT.search(_MARKERS.sub("", first_answer)))
    if (wanted in {"date", "number"} and not present) or (was_number and not _DIGIT.search(line)):
        return None
    return line


def reread_structure(structure: Mapping[str, Any], reply: str, accepted: str | None) -> dict[str, Any]:
    """The draft structure after a re-read: its answer replaced when a span was accepted, and a record."""
    record = {"answer_before": structure.get("answer", ""), "reply": reply[:200], "accepted": accepted is not None}
    if accepted is None:
        return {**structure, "reread": record}
    return {**structure, "answer": accepted, "grounding": 1.0, "reread": record}

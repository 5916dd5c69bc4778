"""Deterministic anchor extraction, question typing and anchor coverage (seed 000 §2–§4, DESIGN §2.1).

Anchors are the parts of a question whose absence from the evidence makes an answer wrong: named
entities and titles, quoted strings, years, dates, quarters, numbers with units, acronyms ("AO" vs
"US Open"). They are found by rules over the question's own tokens — no LLM — so the same question
always gets the same anchors, in question order, deduplicated case-insensitively, overlapping
spans resolved to the longest.

Modules, by role:

    model.py          Anchor, kinds, confidences, the token / year / month regexes, known aliases
    patterns.py       quoted strings, dates, quarters, years, numbers with units (any case)
    capitalised.py    entities, titles, acronyms of questions with capitalisation cues
    lowercase.py      anchors inferred without capitalisation cues (`inferred=True`), using
      words.py        closed English word classes and the labelled tokens,
      titles.py       titles marked by the question's frame ("the man in you're so vain"),
      phrases.py      noun phrases between function words ("nobel prize")
    extract.py        extract_anchors: which rules run, overlaps, duplicates, keywords
    coverage.py       anchor_coverage, anchor_query and anchor_queries: anchors against evidence, worker queries
    question_type.py  question_type and its cues

Confidence per kind (how sure the rule is that the span is a real anchor, not how important it is):

    quoted 0.95 · date 0.95 · quarter 0.95 · year 0.90 · title 0.90 · number_unit 0.85
    entity 0.85 (one word: 0.75 — entity and title lose 0.10 for a single word; one word opening
    the sentence: 0.50 and not essential, because "Notable", "Rhiwallon" … are capitalised by
    position or by name and rules cannot tell which) · acronym 0.80 (0.90 with a known alias) ·
    bare rate unit such as "per game" 0.60 · keyword 0.30 (never essential)
    found without capitals (inferred): title 0.80 · phrase 0.70 · word 0.55 · "the us" acronym 0.60

Essential anchors (entities, titles, quoted strings, acronyms, years/dates/quarters, numbers with
units) feed the gate's anchor coverage: STOP needs them in the evidence (seed 000 §3), and a
factoid missing one gets one anchor-constrained retry (`anchor_query`). Anchors found without
capitals are guesses from word classes, so they carry `inferred=True`: the gate retries once for
a missing one but never abstains for it. A question with no anchor at all gets its three longest
content words as keywords (word length is the offline stand-in for rarity; without capitals, never
a function word, question verb or generic noun).

Measured (tests/unit/test_anchors.py): 99/100 HotpotQA train questions get an essential anchor that
occurs in a gold passage; 50/50 IndoNLU FacQA questions get anchors (49 an essential one).
bench/anchor_quality.py, lower-case NQ-Open / ClapNQ questions: with an essential anchor 2–5% → 98–100%;
with one and all essential anchors in the gold passage 1–2% → NQ 88% / ClapNQ 90% on the first 100
(where the rules were tuned), 80% / 78% on the next 100 (held out), NQ 81% on questions 800–1326;
a wrong "missing anchor" (an essential anchor the gold passage lacks) on 9–22% of them, 1–3% before.
HotpotQA (capitalised) anchors are unchanged but for its one lower-case question.
"""

from __future__ import annotations

from .coverage import anchor_coverage, anchor_queries, anchor_query
from .extract import extract_anchors
from .model import CONFIDENCE, STOP, Anchor, AnchorKind, Candidate
from .patterns import CURRENCY, NUMBER, SCALE, UNIT
from .question_type import QuestionType, question_type

__all__ = [
    "CONFIDENCE", "CURRENCY", "NUMBER", "SCALE", "STOP", "UNIT",
    "Anchor", "AnchorKind", "Candidate", "QuestionType",
    "anchor_coverage", "anchor_queries", "anchor_query", "extract_anchors", "question_type",
]  # fmt: skip

"""`extract_anchors`: which rules run for a question, and how their candidates become one list.

Every question gets the pattern rules (quotes, dates, numbers); then either the capitalised rules
or, for a question without capitalisation cues, the lower-case inference; and, when neither found a
name, its longest content words as keywords. Overlapping spans resolve to the longest, duplicates
(case-insensitive) to the first, so the same question always gets the same anchors in question order.
"""

from __future__ import annotations

from .capitalised import capitalised_candidates
from .chinese import chinese_candidates, is_chinese
from .lowercase import indonesian, lower_candidates, no_case_signal, promote_topic
from .model import CONFIDENCE, STOP, TOKEN, Anchor, Candidate, strip_kah
from .patterns import pattern_candidates
from .words import LOWER_NOISE

_KEYWORD_NOISE = frozenset((
    "name", "named", "called", "known", "first", "many", "much", "year", "years", "time", "times", "nama",
    "tahun", "kali", "apakah", "siapakah", "berapakah", "kapankah", "manakah", "dimanakah", "bagaimanakah",
))  # fmt: skip
_MAX_KEYWORDS = 3


def _keywords(question: str, skip: frozenset[str] = frozenset()) -> list[Candidate]:
    """Longest content words as low-confidence keywords: length is the offline proxy for rarity
    (Zipf: long words are rare), ties broken by position. Words in `skip` are never keywords."""
    words = [m for m in TOKEN.finditer(question) if not m.group().isdigit()]
    noise = STOP | _KEYWORD_NOISE | skip
    content = [m for m in words if len(m.group()) >= 3 and strip_kah(m.group()) not in noise]
    ranked = sorted(content, key=lambda m: (-len(m.group()), m.start()))[:_MAX_KEYWORDS]
    return [(m.start(), m.end(), Anchor(m.group(), "keyword", False, CONFIDENCE["keyword"])) for m in ranked]


def _resolve(candidates: list[Candidate]) -> list[Candidate]:
    """Keep the longest of overlapping spans (earlier start, then higher confidence, break ties)."""
    kept: list[Candidate] = []
    for cand in sorted(candidates, key=lambda c: (-(c[1] - c[0]), c[0], -c[2].confidence)):
        if all(cand[1] <= k[0] or cand[0] >= k[1] for k in kept):
            kept.append(cand)
    return sorted(kept, key=lambda c: c[0])


def extract_anchors(question: str, *, max_anchors: int = 30) -> list[Anchor]:
    """The question's anchors in question order (seed 000 §3 anchor coverage, DESIGN §2.1)."""
    if is_chinese(question):  # no capitals, no spaces: the Chinese rules (tools/question/anchors/chinese.py)
        return _unique(_resolve(pattern_candidates(question) + chinese_candidates(question)), max_anchors)
    letters = [t for t in TOKEN.findall(question) if t[:1].isalpha()]
    shouting = len(letters) >= 3 and sum(t.isupper() for t in letters) >= 0.8 * len(letters)
    candidates = pattern_candidates(question)
    lower = no_case_signal(question, shouting) and not indonesian(question)
    if not lower and not shouting:
        candidates += capitalised_candidates(question)
    resolved = _resolve(candidates)
    if lower:  # no capitalisation signal: phrases from the question's frame and function words
        resolved = _resolve(resolved + lower_candidates(question, [(s, e) for s, e, _ in resolved]))
        resolved = promote_topic(resolved)
    if not any(c[2].kind in ("entity", "title", "acronym", "quoted") for c in resolved):
        resolved = _resolve(resolved + _keywords(question, LOWER_NOISE if lower else frozenset()))
    return _unique(resolved, max_anchors)


def _unique(resolved: list[Candidate], max_anchors: int) -> list[Anchor]:
    """Anchors deduplicated case-insensitively (first kept); over `max_anchors`, the essential and
    confident ones, back in question order."""
    seen: set[str] = set()
    unique: list[tuple[int, Anchor]] = []
    for position, (_, _, anchor) in enumerate(resolved):
        key = anchor.text.casefold()
        if key not in seen:
            seen.add(key)
            unique.append((position, anchor))
    if len(unique) > max_anchors:  # keep essential, confident ones, then restore question order
        unique = sorted(sorted(unique, key=lambda u: (not u[1].essential, -u[1].confidence, u[0]))[:max_anchors])
    return [anchor for _, anchor in unique]

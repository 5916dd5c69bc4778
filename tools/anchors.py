"""Deterministic anchor extraction, question typing and anchor coverage (seed 000 §2–§4, DESIGN §2.1).

Anchors are the parts of a question whose absence from the evidence makes an answer wrong: named
entities and titles, quoted strings, years, dates, quarters, numbers with units, acronyms ("AO" vs
"US Open"). They are found by rules over the question's own tokens — no LLM — so the same question
always gets the same anchors, in question order, deduplicated case-insensitively, overlapping
spans resolved to the longest.

Confidence per kind (how sure the rule is that the span is a real anchor, not how important it is):

    quoted 0.95 · date 0.95 · quarter 0.95 · year 0.90 · title 0.90 · number_unit 0.85
    entity 0.85 (one word: 0.75 — entity and title lose 0.10 for a single word; one word opening
    the sentence: 0.50 and not essential, because "Notable", "Rhiwallon" … are capitalised by
    position or by name and rules cannot tell which) · acronym 0.80 (0.90 with a known alias) ·
    bare rate unit such as "per game" 0.60 · keyword 0.30 (never essential)

Essential anchors (entities, titles, quoted strings, acronyms, years/dates/quarters, numbers with
units) feed the gate's anchor coverage: STOP needs them in the evidence (seed 000 §3), and a
factoid missing one gets one anchor-constrained retry (`anchor_query`). A question without any
capitalised span (all lower case, "who got the first nobel prize in physics") gets its three
longest content words as keywords — word length is the offline stand-in for rarity.

Coverage matching: accent-folded and case-insensitive, any alias counts; years and numbers with
units as whole, contiguous tokens ("2017" is not in "20170"); multi-word anchors when all their
content words occur in one text; acronyms written in capitals keep their case ("US" is not "us").

Measured (tests/unit/test_anchors.py): 99/100 HotpotQA train questions get an essential anchor that
occurs in a gold passage; 50/50 IndoNLU FacQA questions get anchors (49 an essential one).
`question_type` flags 14 of 982 FalseQA questions as false-premise suspects, 8 of them truly false
premises: a cue for the gate and prompts, never a verdict.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from anchorgate.tools.answer_text import normalize_words
from anchorgate.tools.stopwords import stopwords_for

__all__ = [
    "Anchor", "AnchorKind", "QuestionType", "anchor_coverage", "anchor_query", "extract_anchors", "question_type",
]

QuestionType = Literal["factoid", "list", "numeric", "comparison", "yes_no", "false_premise_suspect", "other"]
AnchorKind = Literal["entity", "title", "quoted", "year", "date", "quarter", "number_unit", "acronym", "keyword"]

STOP = stopwords_for("multi")
CONFIDENCE: dict[str, float] = {
    "quoted": 0.95, "date": 0.95, "quarter": 0.95, "year": 0.9, "title": 0.9, "number_unit": 0.85,
    "entity": 0.85, "acronym": 0.8, "keyword": 0.3,
}  # fmt: skip


@dataclass(frozen=True)
class Anchor:
    """One anchor: its text as written in the question, kind, whether coverage needs it, aliases."""

    text: str
    kind: AnchorKind
    essential: bool
    confidence: float
    aliases: tuple[str, ...] = ()


# Known abbreviations ↔ names (seed 000 §5: "AO 2019" must not be answered from "US Open 2019").
_ALIASES: dict[str, tuple[str, ...]] = {
    "ao": ("Australian Open",), "australian open": ("AO",), "us open": ("U.S. Open",), "u.s. open": ("US Open",),
    "rg": ("Roland Garros", "French Open"), "french open": ("Roland Garros",), "roland garros": ("French Open",),
    "uk": ("United Kingdom",), "un": ("United Nations",), "eu": ("European Union",), "ue": ("Uni Eropa",),
    "us": ("U.S.", "United States"), "usa": ("United States",), "nba": ("National Basketball Association",),
}  # fmt: skip

_MONTHS = (
    "jan(?:uary|uari)?|feb(?:ruary|ruari)?|pebruari|mar(?:ch)?|maret|apr(?:il)?|may|mei|june?|juni|july?|juli|"
    "aug(?:ust)?|agu(?:stus)?|agt|sep(?:t(?:ember)?)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
    "des(?:ember)?"
)
_MONTH_PAIRS = {
    "january": "Januari", "february": "Februari", "march": "Maret", "may": "Mei", "june": "Juni", "july": "Juli",
    "august": "Agustus", "october": "Oktober", "december": "Desember", "januari": "January", "februari": "February",
    "maret": "March", "mei": "May", "juni": "June", "juli": "July", "agustus": "August", "oktober": "October",
    "desember": "December",
}  # fmt: skip
_YEAR = r"(?:1\d{3}|20\d{2})"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = re.compile(
    rf"\b(?:(?:{_MONTHS})\.?\s+{_DAY},?\s+{_YEAR}|{_DAY}\s+(?:of\s+)?(?:{_MONTHS})\.?,?\s+{_YEAR}|"
    rf"{_YEAR}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}/\d{{1,2}}/{_YEAR}|(?:{_MONTHS})\.?\s+{_YEAR}|"
    rf"(?:{_MONTHS})\.?\s+{_DAY}|{_DAY}\s+(?:{_MONTHS}))\b",
    re.IGNORECASE,
)
_QUARTER = re.compile(
    rf"\b(?:Q[1-4](?:\s*(?:FY\s?)?(?:{_YEAR}|'\d{{2}}))?|[1-4]Q\s?(?:{_YEAR}|\d{{2}})|"
    rf"(?:first|second|third|fourth|1st|2nd|3rd|4th)[\s-]quarter(?:\s+(?:of\s+)?(?:fiscal\s+)?{_YEAR})?|"
    rf"(?:kuartal|triwulan)\s+(?:ke-?)?(?:pertama|kedua|ketiga|keempat|I{{1,3}}|IV|[1-4])(?:\s+(?:tahun\s+)?{_YEAR})?)\b",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(rf"(?<![\d.,$€£])\b{_YEAR}s?\b(?![.,]\d)")
NUMBER = r"\d{1,3}(?:[,.]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
CURRENCY = r"US\$|A\$|S\$|\$|€|£|¥|₹|Rp\.?"
SCALE = r"thousand|million|billion|trillion|bn|ribu|juta|miliar|milyar|triliun"
UNIT = (
    r"%|percent|per\s?cent|persen|USD|IDR|EUR|dollars?|rupiah|euros?|yen|km/h|mph|km2|km²|km|kilomet(?:er|re)s?|"
    r"miles?|met(?:er|re)s?|cm|mm|kg|kilograms?|grams?|tonnes?|tons?|lbs?|feet|ft|hectares?|ha|acres?|"
    r"lit(?:er|re)s?|°C|°F|degrees?|GB|MB|TB|GHz|MW|kW|kWh|years? old|years?|tahun|months?|bulan|weeks?|minggu|"
    r"days?|hari|hours?|jam|minutes?|menit|seconds?|detik"
)
_RATE_NOUN = r"(?:game|match|season|year|tahun|month|bulan|day|hari|quarter|kuartal|capita|kapita)"
_RATE = rf"(?:per|a|each|setiap|tiap)\s{_RATE_NOUN}"
_NUMBER_UNIT = re.compile(
    rf"(?:(?:{CURRENCY})\s?)?(?<![\w.,])(?:{NUMBER})(?:\s?(?:{SCALE})\b)?(?:\s?(?:{UNIT})(?![\w]))?(?:\s{_RATE}\b)?",
    re.IGNORECASE,
)
_BARE_RATE = re.compile(rf"\b(?:per|each|setiap|tiap)\s{_RATE_NOUN}\b", re.IGNORECASE)  # "within a year" is no rate
_RATE_ALIASES = {"game": ("ppg", "a game", "per match"), "match": ("per game",), "tahun": ("per year",)}
_QUOTED = re.compile(
    r"\"([^\"]{1,120})\"|“([^”]{1,120})”|«([^»]{1,120})»|‘([^’]{1,120})’|(?<![\w'])'([^']{1,120})'(?!\w)"
)
_TOKEN = re.compile(r"\w+(?:['’&-]\w+)*")
# Name particles bridge only after a single word ("Leonardo di Caprio", not "Taufik Hidayat di Kejuaraan").
_PARTICLES = frozenset((
    "de", "del", "der", "den", "van", "von", "da", "di", "du", "la", "le", "bin", "binti", "al", "el",
))  # fmt: skip
_CONNECTORS = _PARTICLES | {"of", "for", "the", "dan", "y"}
_AND = frozenset(("and", "dan", "&"))
_NO_AND_BEFORE = frozenset(("both", "between", "either", "neither", "antara", "baik"))
_WORK_NOUNS = frozenset((
    "film", "movie", "novel", "book", "album", "song", "series", "sitcom", "episode", "poem", "opera", "musical",
    "magazine", "newspaper", "documentary", "painting", "judul", "lagu", "buku", "majalah", "serial", "sinetron",
))  # fmt: skip
_WEEKDAYS = frozenset((
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "senin", "selasa", "rabu", "kamis", "jumat", "sabtu", "minggu",
))  # fmt: skip
# Openers and pronouns capitalised only because they start a sentence: never part of a name.
_OPENERS = frozenset((
    "sebutkan", "jelaskan", "tuliskan", "berikan", "hingga", "menurut", "selain", "meskipun", "walaupun", "selama",
    "sampai", "tanpa", "list", "name", "tell", "explain", "describe", "give", "define", "both", "besides", "between",
    "although", "though", "however", "despite", "after", "before", "during", "since", "while", "unlike", "like",
    "according", "among", "except", "following", "including", "until", "upon", "within", "without", "along",
    "he", "she", "his", "her", "him", "we", "you", "our", "your", "them", "dia", "beliau", "kami", "kita", "anda",
    "about", "nearly", "around", "approximately", "over", "some", "only", "sebanyak", "sedikitnya", "setidaknya",
    "sekitar", "hampir",
))  # fmt: skip
# Job titles and media words written as acronyms are not named things: they start no anchor.
_GENERIC_ACRONYMS = frozenset(("CEO", "CFO", "COO", "CTO", "TV", "DJ", "MVP", "PHD", "MP", "PM", "AM", "FM", "CD"))
_ABBREV_DOT = frozenset(("jr", "sr", "st", "mt", "dr", "mr", "mrs", "ms", "prof"))
_TITLE_LINK = re.compile(r"\s(?:for|of the)\s")
_KEYWORD_NOISE = frozenset((
    "name", "named", "called", "known", "first", "many", "much", "year", "years", "time", "times", "nama",
    "tahun", "kali", "apakah", "siapakah", "berapakah", "kapankah", "manakah", "dimanakah", "bagaimanakah",
))  # fmt: skip
_MAX_KEYWORDS = 3

Candidate = tuple[int, int, Anchor]


def _strip_kah(word: str) -> str:
    """Indonesian "-kah"/"-lah" question particles: "Siapakah" reads as "siapa"."""
    low = word.casefold()
    return low[:-3] if len(low) > 5 and low.endswith(("kah", "lah")) else low


def _is_cap(token: str) -> bool:
    """Capitalised ("Paris", "LeBron") or camel-cased ("iPhone") — a name-like token; weekdays are
    capitalised by convention only ("Jumat 12 Agustus" is a date, not a name)."""
    if token.casefold() in _WEEKDAYS or token in _GENERIC_ACRONYMS:
        return False
    return token[:1].isupper() or (token[:1].islower() and any(c.isupper() for c in token[1:]))


def _joins_number(toks: list[re.Match[str]], k: int) -> bool:
    """A number continues a name ("Apollo 11", "Heinkel HD 23") unless it is a year or a day of a date."""
    word = toks[k].group()
    month_next = k + 1 < len(toks) and re.fullmatch(_MONTHS, toks[k + 1].group(), re.IGNORECASE) is not None
    return word.isdigit() and len(word) <= 4 and not re.fullmatch(_YEAR, word) and not month_next


def _sentence_start(question: str, pos: int) -> bool:
    before = question[:pos].rstrip(" \t\"'“‘([")
    return not before or before[-1] in ".!?:;\n"


def _gap_ok(question: str, left: re.Match[str], right: re.Match[str]) -> bool:
    """Tokens join a span only when separated by spaces (or the dot of an initial / "Jr.")."""
    gap = question[left.end() : right.start()]
    if gap.strip() in ("", "&"):  # "Simon & Simon", "Procter & Gamble"
        return True
    short = len(left.group()) == 1 or left.group().casefold() in _ABBREV_DOT
    return gap.strip() == "." and short


def _cap_spans(question: str) -> list[tuple[int, int]]:
    """Token-index spans of capitalised runs, joined across connectors ("Bank of America")."""
    toks = list(_TOKEN.finditer(question))
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        if not _is_cap(toks[i].group()):
            i += 1
            continue
        j = i
        while j + 1 < len(toks) and _gap_ok(question, toks[j], toks[j + 1]):
            nxt = toks[j + 1].group()
            if _is_cap(nxt) or _joins_number(toks, j + 1):
                j += 1
                continue
            link = _link_length(question, toks, i, j)
            if not link:
                break
            j += link
        spans.append((i, j))
        i = j + 1
    return [(toks[a].start(), toks[b].end()) for a, b in spans]


def _link_length(question: str, toks: list[re.Match[str]], i: int, j: int) -> int:
    """How many tokens a connector bridge adds after toks[j] (0 when it must not bridge)."""
    for size in (1, 2):  # "of", "of the"
        k = j + size + 1
        if k >= len(toks) or not all(_gap_ok(question, toks[m], toks[m + 1]) for m in range(j, k)):
            return 0
        words = [t.group().casefold() for t in toks[j + 1 : k]]
        if not _is_cap(toks[k].group()):
            if not all(w in _CONNECTORS for w in words):
                return 0
            continue
        if words[0] in _AND:
            # "Pride and Prejudice" bridges; "Christopher Nolan and Sathish Kalathil" are two anchors.
            before = toks[i - 1].group().casefold() if i else ""
            single_right = k + 1 >= len(toks) or not _is_cap(toks[k + 1].group())
            return size + 1 if size == 1 and i == j and single_right and before not in _NO_AND_BEFORE else 0
        if all(w in _CONNECTORS for w in words) and (words[0] not in _PARTICLES or i == j):
            return size + 1
        return 0
    return 0


def _entity(question: str, start: int, end: int) -> Candidate | None:
    """An entity/title/acronym candidate from a capitalised span, or None for question words."""
    toks = list(_TOKEN.finditer(question, start, end))
    # A capitalised article before another capitalised word belongs to a name ("The Exies", "A Man …").
    while toks and _strip_kah(toks[0].group()) in STOP | _OPENERS:
        if toks[0].group() in ("The", "A", "An") and len(toks) > 1:
            break
        toks.pop(0)
    if not toks or (len(toks) == 1 and len(toks[0].group()) == 1):
        return None
    start, end = toks[0].start(), toks[-1].end()
    text = re.sub(r"['’]s$", "", question[start:end])
    if len(toks) == 1 and (text.casefold() in _WEEKDAYS or re.fullmatch(_MONTHS, text, re.IGNORECASE)):
        return None
    initial = len(toks) == 1 and _sentence_start(question, start)
    if len(toks) == 1 and re.fullmatch(r"[A-Z][A-Z0-9&]{1,5}", text) and sum(c.isalpha() for c in text) >= 2:
        aliases = _ALIASES.get(text.casefold(), ())
        return start, end, Anchor(text, "acronym", True, 0.9 if aliases else CONFIDENCE["acronym"], aliases)
    before = question[:start].split()[-1:]
    title = bool(_TITLE_LINK.search(text)) or (bool(before) and before[0].casefold() in _WORK_NOUNS)
    confidence = 0.5 if initial else CONFIDENCE["title" if title else "entity"] - 0.1 * (len(toks) == 1)
    kind: AnchorKind = "title" if title else "entity"
    return start, end, Anchor(text, kind, not initial, round(confidence, 2), _ALIASES.get(text.casefold(), ()))


def _quarter_aliases(text: str) -> tuple[str, ...]:
    """"Q1 2024" ↔ "first quarter of 2024" ↔ "kuartal pertama 2024"."""
    low = text.casefold()
    number = re.search(r"q([1-4])|([1-4])q|\b([1-4])(?:st|nd|rd|th)\b|\b(iv|i{1,3})\b", low)
    words = ("first", "second", "third", "fourth"), ("pertama", "kedua", "ketiga", "keempat")
    index = next((i for i, w in enumerate(words[0] + words[1]) if w in low), None)
    if number:
        group = next(g for g in number.groups() if g)
        index = int(group) - 1 if group.isdigit() else ("i", "ii", "iii", "iv").index(group)
    if index is None:
        return ()
    q = index % 4
    year = re.search(_YEAR, text)
    tail = f" {year.group()}" if year else ""
    forms = (f"Q{q + 1}{tail}", f"{words[0][q]} quarter{' of' if year else ''}{tail}", f"kuartal {words[1][q]}{tail}")
    return tuple(f for f in forms if f.casefold() != low)


def _date_aliases(text: str) -> tuple[str, ...]:
    """"3 Maret 2017" ↔ "3 March 2017": the month in the other language (coverage compares words)."""
    for word in re.findall(r"[^\W\d_]+", text):
        other = _MONTH_PAIRS.get(word.casefold())
        if other:
            return (text.replace(word, other),)
    return ()


def _pattern_candidates(question: str) -> list[Candidate]:
    """Quoted strings, dates, quarters, years, numbers with units and bare rate units."""
    out: list[Candidate] = []
    for m in _QUOTED.finditer(question):
        inner = next(g for g in m.groups() if g is not None).strip()
        if normalize_words(inner):
            out.append((m.start(), m.end(), Anchor(inner, "quoted", True, CONFIDENCE["quoted"])))
    timed: tuple[tuple[re.Pattern[str], AnchorKind], ...] = ((_DATE, "date"), (_QUARTER, "quarter"), (_YEAR_RE, "year"))
    for regex, kind in timed:
        for m in regex.finditer(question):
            aliases = _quarter_aliases(m.group()) if kind == "quarter" else ()
            aliases = _date_aliases(m.group()) if kind == "date" else aliases
            out.append((m.start(), m.end(), Anchor(m.group(), kind, True, CONFIDENCE[kind], aliases)))
    for m in _NUMBER_UNIT.finditer(question):
        text = m.group().strip()
        if not re.fullmatch(rf"(?:{NUMBER})", text):  # a unit, currency or scale is attached
            out.append((m.start(), m.start() + len(text), Anchor(text, "number_unit", True, CONFIDENCE["number_unit"])))
    for m in _BARE_RATE.finditer(question):
        aliases = _RATE_ALIASES.get(m.group().split()[-1].casefold(), ())
        out.append((m.start(), m.end(), Anchor(m.group(), "number_unit", True, 0.6, aliases)))
    return out


def _keywords(question: str) -> list[Candidate]:
    """Longest content words as low-confidence keywords: length is the offline proxy for rarity
    (Zipf: long words are rare), ties broken by position."""
    words = [m for m in _TOKEN.finditer(question) if not m.group().isdigit()]
    content = [m for m in words if len(m.group()) >= 3 and _strip_kah(m.group()) not in STOP | _KEYWORD_NOISE]
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
    letters = [t for t in _TOKEN.findall(question) if t[:1].isalpha()]
    shouting = len(letters) >= 3 and sum(t.isupper() for t in letters) >= 0.8 * len(letters)
    candidates = _pattern_candidates(question)
    if not shouting:  # an all-caps question has no capitalisation signal
        entities = (_entity(question, s, e) for s, e in _cap_spans(question))
        candidates += [c for c in entities if c is not None]
    resolved = _resolve(candidates)
    if not any(c[2].kind in ("entity", "title", "acronym", "quoted") for c in resolved):
        resolved = _resolve(resolved + _keywords(question))
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


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _present(form: str, kind: str, text: str, tokens: list[str], token_set: frozenset[str]) -> bool:
    """Whether one surface form of an anchor occurs in one text."""
    words = normalize_words(form)
    if not words:
        return False
    if kind == "acronym" and form.isupper():  # case-sensitive: "US" must not be found in "us"
        return re.search(rf"(?<!\w){re.escape(_fold(form))}(?!\w)", _fold(text)) is not None
    if kind in ("year", "number_unit"):  # whole tokens, contiguous: "2017" ∉ "20170", "5 million" as a phrase
        n = len(words)
        return any(tokens[i : i + n] == words for i in range(len(tokens) - n + 1))
    content = [w for w in words if w not in STOP] or words
    return all(w in token_set for w in content)


def _found(anchor: Anchor, text: str, tokens: list[str], token_set: frozenset[str]) -> bool:
    return any(_present(form, anchor.kind, text, tokens, token_set) for form in (anchor.text, *anchor.aliases))


def anchor_coverage(anchors: Sequence[Anchor], texts: Sequence[str]) -> tuple[float, list[Anchor]]:
    """Share of essential anchors present in some text (any alias; multi-word: all content words in
    one text) and the missing ones. 1.0 when there is no essential anchor (seed 000 §3)."""
    essential = [a for a in anchors if a.essential]
    if not essential:
        return 1.0, []
    indexed = [(text, tokens, frozenset(tokens)) for text in texts for tokens in (normalize_words(text),)]
    missing = [a for a in essential if not any(_found(a, text, toks, token_set) for text, toks, token_set in indexed)]
    return (len(essential) - len(missing)) / len(essential), missing


def anchor_query(question: str, missing: Sequence[Anchor]) -> str:
    """The anchor-constrained one-shot query: the question plus the missing anchors and their
    aliases (seed 000 §3/§7 FACTOID_ONE_SHOT_RETRIEVAL — no LLM rewrite, so deterministic)."""
    extra: list[str] = []
    for anchor in missing:
        for form in (anchor.text, *anchor.aliases):
            if form.casefold() not in {e.casefold() for e in extra}:
                extra.append(form)
    return " ".join([question.strip(), *extra]) if extra else question.strip()


# Question type cues (English and Indonesian). Cues, not verdicts: a wrong type only changes which
# finalizer rule and selection weights apply, never the evidence requirements.
_YES_NO = re.compile(
    r"^(?:is|are|was|were|am|do|does|did|can|could|has|have|had|will|would|should|shall|benarkah|"
    r"apakah(?!\s+(?:nama|judul|arti|jenis|julukan|gelar|sebutan|singkatan|kepanjangan|tujuan|penyebab|isi|"
    r"yang|saja|fungsi|bentuk|warna|bahasa|nama-nama|pekerjaan|jabatan|profesi|peran|alasan|dampak|makna|maksud)\b))\b",
    re.IGNORECASE,
)
_NUMERIC_STRONG = re.compile(
    r"\bhow\s+(?:many|much|old|long|far|tall|high|big|large|fast|deep|wide|often)\b|"
    r"\bberapa(?:kah)?\b(?<!tahun berapa)(?<!tahun berapakah)",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\b(?:compared\s+(?:to|with)|versus|vs\.?|(?:more|less|fewer|older|younger|bigger|larger|smaller|longer|"
    r"shorter|taller|higher|lower|better|worse|earlier|later)\s+than\b(?!\s+\d)|"
    r"lebih\s+\w+\s+(?:dari|daripada|dibanding)\b(?!\s+\d)|dibandingkan|mana(?:kah)?\s+yang|"
    r"(?:which|who|what|siapa|mana)\b[^?]*\s(?:or|atau)\s[^?]+\?|"
    r"(?:between|antara)\s[^?]*\s(?:and|dan)\s[^?]*\b(?:which|who|siapa|mana)\b)",
    re.IGNORECASE,
)
_NUMERIC_WEAK = re.compile(
    r"\b(?:average|averages|averaged|avg|the\s+mean|median|total|percentage|percent|proportion|sum|"
    r"rata-rata|rerata|jumlah|persentase|persen)\b|"
    r"\bwhat\s+(?:is|was|are|were)\s+(?:\S+\s+){0,3}?(?:population|revenue|income|profit|price|cost|salary|gdp)\b",
    re.IGNORECASE,
)
_LIST = re.compile(
    r"\b(?:list|enumerate|name\s+(?:all|every|some|\d+|two|three|four|five)|what\s+are\s+(?:the|some)|"
    r"which\b[^?]*\b(?:are|were)|sebutkan|daftar|apa\s+saja|siapa\s+saja|mana\s+saja)\b",
    re.IGNORECASE,
)
_PRESUPPOSITION = re.compile(
    r"^(?:why\s+did|how\s+come|mengapa\s+\w+\s+(?:pernah|telah|sudah)|kenapa\s+\w+\s+(?:pernah|telah|sudah))\b|"
    r"\bwhy\s+is\s+it\s+(?:true|the\s+case)\s+that\b",
    re.IGNORECASE,
)
_FACTOID = re.compile(
    r"\b(?:who|whom|whose|when|where|which|what|siapa(?:kah)?|kapan(?:kah)?|di\s?mana(?:kah)?|apa(?:kah)?|"
    r"mana(?:kah)?|tahun\s+berapa(?:kah)?)\b",
    re.IGNORECASE,
)
_IMPOSSIBLE_DATE = re.compile(
    r"\b(?:(?:february|februari|feb)\.?\s+3[01](?:st|th)?|(?:april|june|juni|september|november|apr|jun|sep|sept|nov)"
    r"\.?\s+31(?:st)?|"
    r"3[01](?:st|th)?\s+(?:of\s+)?(?:february|februari|feb)|31(?:st)?\s+(?:of\s+)?(?:april|june|juni|september|november))\b",
    re.IGNORECASE,
)


def question_type(question: str) -> QuestionType:
    """A cue for the question's answer shape (seed 000 §4), first match wins: an impossible date
    ("June 31st") → false_premise_suspect; yes/no openers (English auxiliaries, "apakah" unless it
    means "what", as in "Apakah nama …") → yes_no; how many/much/old…, "berapa" → numeric; "than",
    "compared to", "lebih … dari", "mana yang", "which …, X or Y?" → comparison; list cues → list;
    average/total/percentage/population… → numeric; "why did", "how come", "why is it true that" →
    false_premise_suspect (a weak presupposition cue, not a verdict); wh-words → factoid; else other."""
    text = " ".join(question.split())
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text) if s.strip()]
    last = sentences[-1] if sentences else ""
    if _IMPOSSIBLE_DATE.search(text):
        return "false_premise_suspect"
    if _YES_NO.match(last) and not re.search(r"\b(?:or|atau)\b[^?]*\?\s*$", last):
        return "yes_no"
    if _NUMERIC_STRONG.search(text):
        return "numeric"
    if _COMPARISON.search(text):
        return "comparison"
    if _LIST.search(text):
        return "list"
    if _NUMERIC_WEAK.search(text):
        return "numeric"
    if _PRESUPPOSITION.search(last):
        return "false_premise_suspect"
    return "factoid" if _FACTOID.search(text) else "other"

"""Entities, titles and acronyms of a question that carries capitalisation cues.

When the writer capitalised names ("Who directed the film shot in Leland, North Carolina in
1986"), the capitals are the strongest offline signal of what the question is about: a run of
capitalised tokens is a name, joined across connectors ("Bank of America", "Pride and Prejudice")
and name particles ("Leonardo di Caprio"). What capitals do not mean is handled here too: a word
capitalised only because it opens the sentence ("Notable", "Rhiwallon" — rules cannot tell them
apart) is kept at confidence 0.50 and not essential; openers, pronouns, weekdays, months and job
acronyms ("CEO") start no anchor.
"""

from __future__ import annotations

import re

from .model import (
    ALIASES,
    CONFIDENCE,
    MONTHS,
    STOP,
    TOKEN,
    YEAR,
    Anchor,
    AnchorKind,
    Candidate,
    sentence_start,
    strip_kah,
)

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
    "sekitar", "hampir", "what's", "who's", "where's", "when's", "how's", "that's", "it's", "there's",
    "kemana", "darimana", "bilamana", "seberapa",  # question words the stopword list lacks ("Kemana PT Igas …")
))  # fmt: skip
# Job titles and media words written as acronyms are not named things: they start no anchor.
_GENERIC_ACRONYMS = frozenset(("CEO", "CFO", "COO", "CTO", "TV", "DJ", "MVP", "PHD", "MP", "PM", "AM", "FM", "CD"))
_ABBREV_DOT = frozenset(("jr", "sr", "st", "mt", "dr", "mr", "mrs", "ms", "prof"))
_TITLE_LINK = re.compile(r"\s(?:for|of the)\s")


def _is_cap(token: str) -> bool:
    """Capitalised ("Paris", "LeBron") or camel-cased ("iPhone") — a name-like token; weekdays are
    capitalised by convention only ("Jumat 12 Agustus" is a date, not a name)."""
    if token.casefold() in _WEEKDAYS or token in _GENERIC_ACRONYMS:
        return False
    return token[:1].isupper() or (token[:1].islower() and any(c.isupper() for c in token[1:]))


def _joins_number(toks: list[re.Match[str]], k: int) -> bool:
    """A number continues a name ("Apollo 11", "Heinkel HD 23") unless it is a year or a day of a date."""
    word = toks[k].group()
    month_next = k + 1 < len(toks) and re.fullmatch(MONTHS, toks[k + 1].group(), re.IGNORECASE) is not None
    return word.isdigit() and len(word) <= 4 and not re.fullmatch(YEAR, word) and not month_next


def _gap_ok(question: str, left: re.Match[str], right: re.Match[str]) -> bool:
    """Tokens join a span only when separated by spaces (or the dot of an initial / "Jr.")."""
    gap = question[left.end() : right.start()]
    if gap.strip() in ("", "&"):  # "Simon & Simon", "Procter & Gamble"
        return True
    short = len(left.group()) == 1 or left.group().casefold() in _ABBREV_DOT
    return gap.strip() == "." and short


def _cap_spans(question: str) -> list[tuple[int, int]]:
    """Token-index spans of capitalised runs, joined across connectors ("Bank of America")."""
    toks = list(TOKEN.finditer(question))
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
    toks = list(TOKEN.finditer(question, start, end))
    # A capitalised article before another capitalised word belongs to a name ("The Exies", "A Man …").
    while toks and strip_kah(toks[0].group()) in STOP | _OPENERS:
        if toks[0].group() in ("The", "A", "An") and len(toks) > 1:
            break
        toks.pop(0)
    if not toks or (len(toks) == 1 and len(toks[0].group()) == 1):
        return None
    start, end = toks[0].start(), toks[-1].end()
    text = re.sub(r"['’]s$", "", question[start:end])
    if len(toks) == 1 and (text.casefold() in _WEEKDAYS or re.fullmatch(MONTHS, text, re.IGNORECASE)):
        return None
    initial = len(toks) == 1 and sentence_start(question, start)
    if len(toks) == 1 and re.fullmatch(r"[A-Z][A-Z0-9&]{1,5}", text) and sum(c.isalpha() for c in text) >= 2:
        aliases = ALIASES.get(text.casefold(), ())
        return start, end, Anchor(text, "acronym", True, 0.9 if aliases else CONFIDENCE["acronym"], aliases)
    before = question[:start].split()[-1:]
    title = bool(_TITLE_LINK.search(text)) or (bool(before) and before[0].casefold() in _WORK_NOUNS)
    confidence = 0.5 if initial else CONFIDENCE["title" if title else "entity"] - 0.1 * (len(toks) == 1)
    kind: AnchorKind = "title" if title else "entity"
    return start, end, Anchor(text, kind, not initial, round(confidence, 2), ALIASES.get(text.casefold(), ()))


def capitalised_candidates(question: str) -> list[Candidate]:
    """Entity, title and acronym candidates of every capitalised run of the question."""
    entities = (_entity(question, s, e) for s, e in _cap_spans(question))
    return [c for c in entities if c is not None]

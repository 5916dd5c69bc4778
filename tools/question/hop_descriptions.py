"""Nested descriptions in a question: the phrases that name an entity only through another one.

"the author of Dead Ernest", "Gisvi's city of birth", "the state where Silverton is located", "the
country that released Han Vodka": each is a single-hop question of its own ("Who is the author of
Dead Ernest?") whose answer the rest of the question is about. `find_descriptions` returns every
such phrase with the sub-question it stands for; `tools/question/hop_plan.py` turns them into hops.

A description's argument must be a name as written (a capitalised run such as "The Jewel of the
Nile", a quoted string) or an earlier hop's `#k`. Lower-case arguments ("the mother of the bride")
are never read as descriptions: most single-hop questions of NQ-open and ClapNQ are lower case and
full of "the X of the Y" that is one thing, and splitting a single-hop question costs a wasted
retrieval round and a wrong bridge. The relation nouns and head nouns are closed lists written for
MuSiQue-style composition (MuSiQue rows 41–70 were read while writing them; rows 71–100 were not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_PERSON_REL = (
    "author|writer|director|producer|composer|lyricist|screenwriter|creator|founder|co-founder|performer|"
    "singer|spouse|wife|husband|father|mother|son|daughter|brother|sister|sibling|owner|designer|"
    "architect|inventor|president|leader|chairman|coach|manager|mayor|governor|head coach|lead singer"
)
_THING_REL = (
    "birthplace|birth place|place of birth|city of birth|country of birth|hometown|home town|place of death|"
    "capital|headquarters|country of citizenship|country of origin|successor|predecessor|record label|"
    "publisher|developer|manufacturer|alma mater|employer|nationality|country"
)
_ORDINAL = r"(?:(?:first|second|third|current|last|former|original|eldest|youngest|oldest)\s+)?"
PLACE_N = "country|nation|state|county|city|town|village|region|province|district|continent|island|territory"
_PERSON_N = "person|man|woman|actor|actress|singer|player|artist|musician|politician|athlete|footballer"
_HEAD_N = (
    f"{PLACE_N}|{_PERSON_N}|river|lake|mountain|band|group|company|team|club|university|school|film|movie|"
    "album|song|book|novel|party|league|network"
)
_PART = "located|based|situated|found|headquartered|born|buried|founded|formed|set|filmed|held|a citizen|citizens"

_NOT_NAME = (
    r"(?:What|Which|Who|Whom|Whose|When|Where|Why|How|In|On|Of|At|For|From|To|By|Is|Are|Was|Were|Did|Does|Do|"
    r"There|This|That|And|Or|As)\b"
)
# A capitalised token ("Hornets'", "B.", "O'Brien", "Greenfield-Central"), never swallowing a possessive 's.
_CAP = r"[A-Z\u00C0-\u00DE][\w\-]*(?:['’](?![sS]\b)[\w\-]+)*(?:\.|['’](?![sS]\b))?"
_LINK = r"(?:of|the|a|an|and|de|del|du|da|von|van|der|la|le|in|on|at|for|&)"
_TAIL = rf"(?:{_CAP}|\d[\w\-]*)"
NAME = rf"(?<![\w'’#])(?!{_NOT_NAME}){_CAP}(?:\s+(?:{_LINK}\s+)*{_TAIL})*"
POSSESSED = rf"(?:#\d+|(?:the\s+)?{NAME})"  # an argument followed by 's
# "the next winter Olympics": up to two lower-case modifiers after "the"; "Albert, King of #1": a title
# in apposition. The name is matched whole (atomic), and a name used attributively ("the Hyman B.
# Samuels birthplace") is no argument: it is the argument of a description of its own.
_MODIFIER = r"(?!(?:of|in|on|at|by|for|with|from|to|who|that|which|where|whose|and|or)\b)[a-z][\w\-]*\s+"
_THE = rf"(?:the\s+(?:{_MODIFIER}){{0,2}})?"
_APPOSITION = rf"(?:,\s+{_CAP}\s+of\s+(?:#\d+\b|(?>{NAME})))?"
_NOT_AFTER_ARG = r"(?![\w'’]|\s+(?:birthplace|birth place|hometown|home town)\b)"
ARG = rf"(?:#\d+\b|\"[^\"]+\"|“[^”]+”|{_THE}(?>{NAME}){_APPOSITION}){_NOT_AFTER_ARG}"


@dataclass(frozen=True)
class Description:
    """One nested description: its span in the text, the sub-question it stands for, and its argument."""

    start: int
    end: int
    question: str
    argument: str


def _rel_sub(match: re.Match[str]) -> tuple[str, str]:
    """Sub-question of a relation: "the director of X" → "Who is the director of X?", "X's spouse" alike."""
    rel, arg = match["rel"], match["arg"]
    wh = "Who" if re.fullmatch(_PERSON_REL, rel) else "What"
    if match["poss"]:
        return f"{wh} is {arg}'s {match['ord'] or ''}{rel}?", arg
    return f"{wh} is the {match['ord'] or ''}{rel} of {arg}?", arg


def _where_sub(match: re.Match[str]) -> tuple[str, str]:
    """Sub-question of a place clause: "the state where X is located" → "Which state is X located in?",
    "the city where X was born" → "In which city was X born?"."""
    noun, arg, aux, part = match["n"], match["arg"], match["aux"], match["part"]
    if aux == "will be":
        return f"In which {noun} will {arg} be {part or 'located'}?", arg
    if part in (None, "located", "based", "situated", "found", "headquartered"):
        return f"Which {noun} {aux} {arg} located in?", arg
    if part in ("a citizen", "citizens"):
        return f"Which {noun} {aux} {arg} {part} of?", arg
    return f"In which {noun} {aux} {arg} {part}?", arg


def _in_sub(match: re.Match[str]) -> tuple[str, str]:
    """Sub-question of a place named before its noun: "the country X is located in" → "Which country is X
    located in?"."""
    return f"Which {match['n']} {match['aux']} {match['arg']} located in?", match["arg"]


def _clause_sub(match: re.Match[str]) -> tuple[str, str]:
    """Sub-question of a relative clause: "the country that released Han Vodka" → "Which country released
    Han Vodka?"; a person's → "Who …"."""
    noun, clause, arg = match["n"], match["clause"], match["arg"]
    wh = "Who" if re.fullmatch(_PERSON_N, noun) else f"Which {noun}"
    return f"{wh} {clause}{arg}{match['tail'] or ''}?", arg


_PATTERNS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[str, str]]], ...] = (
    (
        re.compile(
            rf"\b(?:the\s+)?(?P<poss>)(?P<ord>{_ORDINAL})(?P<rel>{_PERSON_REL}|{_THING_REL})\s+of\s+(?P<arg>{ARG})"
        ),
        _rel_sub,
    ),
    (
        re.compile(rf"(?P<arg>{POSSESSED})(?P<poss>['’]s)\s+(?P<ord>{_ORDINAL})(?P<rel>{_PERSON_REL}|{_THING_REL})\b"),
        _rel_sub,
    ),
    (
        re.compile(
            rf"\bthe\s+(?P<n>{PLACE_N})\s+(?:where|in\s+which)\s+(?P<arg>{ARG})\s+(?P<aux>is|was|are|were|will be)"
            rf"(?:\s+(?P<part>{_PART})\b)?"
        ),
        _where_sub,
    ),
    (
        re.compile(
            rf"\bthe\s+(?P<n>{PLACE_N})\s+(?:that\s+|which\s+)?(?P<arg>{ARG})\s+(?P<aux>is|was)\s+(?:located\s+)?in\b"
        ),
        _in_sub,
    ),
    (
        re.compile(
            rf"\bthe\s+(?P<n>{_HEAD_N})\s+(?:that|which|who)\s+(?P<clause>(?:[a-z][\w\-]*\s+){{1,5}}?)(?P<arg>{ARG})"
            r"(?P<tail>\s+as\s+its\s+[a-z]+)?"
        ),
        _clause_sub,
    ),
)


def find_descriptions(text: str) -> list[Description]:
    """Every nested description in `text` whose argument is a name or a `#k`, in order of start."""
    found: list[Description] = []
    for pattern, sub_question in _PATTERNS:
        for match in pattern.finditer(text):
            question, argument = sub_question(match)
            found.append(Description(match.start(), match.end(), question, argument))
    return sorted(found, key=lambda d: (d.start, d.end))


_TRIVIAL_WORDS = frozenset(
    ("what", "which", "who", "whom", "whose", "is", "was", "are", "were", "the", "a", "an", "name", "names",
     "of", "called", "known", "as", "tell", "me", "please")
)  # fmt: skip


def is_trivial_remainder(text: str) -> bool:
    """Whether `text` asks nothing beyond the `#k` it names ("Who is #2?", "What is the name of #1?"):
    then the description it replaced was the whole question, and splitting it off adds no hop."""
    words = re.findall(r"#\d+|[\w'’\-]+", text.casefold())
    return all(w in _TRIVIAL_WORDS or w.startswith("#") for w in words)

"""What kind of thing a (sub-)question asks for, whether an answer is of that kind, and bridge answers.

`expected_answer_type` (`answer_type.py`) tells a date, a number and a name apart for the evidence
check; a hop chain needs finer kinds, because its typical failure is an answer of the wrong kind: a
place for "in what year", a state for "which country", or the bridge entity itself ("Des Moines"
for "Which region is Corey Taylor's city of birth located?", which asks for the region).

- `asked_type(question)`: year, date, number, person, country, region (state, province, county,
  district), city, place, organisation or other. The first asked noun decides ("Which region is
  …'s city of birth …" asks for a region), then the wh-word.
- `answer_fits(asked, answer)`: True when the answer is clearly of that kind, False when it clearly is
  not, None when the text cannot tell (an unknown proper name may be a person or a company). Country
  and subdivision names and nationality words come from `country_names.py` (countryinfo).
- `is_bridge_answer(answer, plan, hop_answers)`: the answer is an intermediate hop's answer or a name
  a description of the question is about: the chain stopped at the bridge, not at the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from anchorgate.tools.question.country_names import country_of, is_country, is_nationality, is_subdivision, name_key
from anchorgate.tools.question.hop_plan import HopPlan

AskedType = Literal["year", "date", "number", "person", "country", "region", "city", "place", "organisation", "other"]

# A wh-word opens the question (after a preposition at most): "Who" inside "The Girl Who Kicked the
# Hornets' Nest" or "where" in "the country where Baure is located" asks nothing.
_LEAD = r"^\W*(?:(?:in|on|at|of|from|for|to|by|since|until|and|so)\s+)?"
_YEAR = re.compile(r"\b(?:what|which|in what|in which) year\b|\byear did\b", re.I)
_DATE = re.compile(rf"{_LEAD}when\b|\b(?:what|which) (?:date|day|month|time|century)\b", re.I)
_NUMBER = re.compile(
    r"\bhow (?:many|much|long|old|far|tall|big|large|high|deep)\b|"
    r"\b(?:what|which) (?:is|was|are|were) the (?:population|number|amount|percentage|area code|height|length)\b",
    re.I,
)
_NOUN_TYPES: dict[str, AskedType] = {
    **dict.fromkeys(("country", "nation", "nationality", "country of citizenship", "country of origin"), "country"),
    **dict.fromkeys(("state", "province", "region", "county", "district", "territory"), "region"),
    **dict.fromkeys(("city", "town", "village", "capital", "city of birth", "municipality"), "city"),
    **dict.fromkeys(("place", "birthplace", "birth place", "place of birth", "hometown", "location"), "place"),
    **dict.fromkeys(("person", "actor", "actress", "singer", "player", "author", "director", "spouse"), "person"),
    **dict.fromkeys(
        ("company", "organisation", "organization", "university", "school", "college", "team", "club", "band",
         "party", "church", "institution", "agency", "airline", "record label", "publisher"),
        "organisation",
    ),
}  # fmt: skip
_NOUNS = "|".join(sorted(_NOUN_TYPES, key=len, reverse=True))
_AUX = r"(?:is|was|are|were|does|did|do|has|have|had|the|a|an)\b"
# "which region", "what mountain range", "in what country": the noun right after which/what, or one word on.
_WHICH_NOUN = re.compile(rf"\b(?:what|which)\s+(?:(?!{_AUX})[a-z\-]+\s+)?(?P<noun>{_NOUNS})\b", re.I)
# "What is the birth place of #1?", "What is Corey Taylor's city of birth?" (a name or #k owns the noun)
_WHAT_IS_NOUN = re.compile(
    rf"^\W*(?i:what|which)\s+(?:is|was|are|were)\s+(?:the\s+(?:\w+\s+)?(?P<noun>{_NOUNS})\s+of\b|"
    rf"(?:the\s+)?(?:[A-Z#][\w.\-]*\s+)*[A-Z#][\w.\-]*['’]s\s+(?:\w+\s+)?(?P<poss>{_NOUNS})\s*\??$)",
)
_WHO = re.compile(rf"{_LEAD}(?:who|whom|whose)\b", re.I)
_WHERE = re.compile(rf"{_LEAD}where\b", re.I)


def asked_type(question: str) -> AskedType:
    """The kind of answer `question` asks for (see the module docstring); "other" when none is read."""
    if _YEAR.search(question):
        return "year"
    if _NUMBER.search(question):
        return "number"
    for pattern in (_WHICH_NOUN, _WHAT_IS_NOUN):
        match = pattern.search(question)
        if match:
            return _NOUN_TYPES[(match.group("noun") or match.group("poss")).casefold()]
    if _DATE.search(question):
        return "date"
    if _WHO.search(question):
        return "person"
    if _WHERE.search(question):
        return "place"
    return "other"


_YEAR_NUMBER = re.compile(r"\b(?:1\d{3}|20\d{2}|\d{1,4}s?\s*(?:BC|BCE|AD|CE))\b")
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "spring|summer|autumn|fall|winter|century|decade"
)
_DATE_WORD = re.compile(rf"\d|\b(?:{_MONTHS}|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
_NUMBER_WORD = re.compile(
    r"\d|\b(?:zero|none|no|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|billion|dozen|several)\b",
    re.I,
)
_ONLY_NUMBERS = re.compile(r"^[\d\s.,:/%\-–]+$")


def answer_fits(asked: AskedType, answer: str) -> bool | None:
    """Whether `answer` is of the asked kind: True, False, or None when the text cannot tell."""
    text = answer.strip()
    if not text:
        return False
    if asked == "other":  # nothing asked that an answer could contradict ("what was he population …")
        return None
    place_like = is_country(text) or is_subdivision(text)
    if asked == "year":
        return bool(_YEAR_NUMBER.search(text))
    if asked == "date":
        return True if _DATE_WORD.search(text) else (False if place_like else None)
    if asked == "number":
        return bool(_NUMBER_WORD.search(text))
    if _ONLY_NUMBERS.match(text):
        return False  # a bare number answers none of the kinds below
    return _fits_name(asked, text, place_like)


def _fits_name(asked: AskedType, text: str, place_like: bool) -> bool | None:
    """The named kinds: a country is not a state, a state is not a country, a place is not a person."""
    if asked == "country":
        return True if is_country(text) else (False if is_subdivision(text) else None)
    if asked == "region":
        return True if is_subdivision(text) else (False if is_country(text) else None)
    if asked == "city":
        return False if is_country(text) and not is_subdivision(text) else None
    if asked == "place":
        return True if place_like else None
    if asked in ("person", "organisation"):  # "the English" may answer "who": a people, not a place
        return False if place_like and not is_nationality(text) else None
    return None


def answer_key(text: str) -> str:
    """An answer as compared with another: a nationality word as its country, else `name_key`."""
    return name_key(country_of(text) or text)


def is_bridge_answer(answer: str, plan: HopPlan, hop_answers: Sequence[str]) -> bool:
    """Whether `answer` is an intermediate hop's answer (`hop_answers[:-1]`, aligned with `plan.hops`)
    or a name the question's descriptions are about (`plan.entities`): the answer of a step on the way,
    not of the question. Compared after `answer_key` (case, accents, "the", nationality → country)."""
    key = answer_key(answer)
    if not key:
        return False
    intermediate = hop_answers[: max(len(plan.hops) - 1, 0)]
    return any(key == answer_key(other) for other in (*intermediate, *plan.entities) if other.strip())

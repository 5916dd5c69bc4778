"""The guarded query rewrite's checks around seed 001's validator (`tools.question.rewrite_validation`).

`screen_rewrite` turns away, before anything is measured, a rewrite that cannot be a better query:
empty, the question's own words again, or in another language than the question (the index is
searched in the question's language). `entity_changes` compares the question's entities with the
rewrite's case-blind, since a rewrite of a lower-case question capitalises its names;
`rewrite_entity_sets` gives `validate_rewrite` the two sets it compares.
"""

from __future__ import annotations

import re

from anchorgate.tools.question.rewrite_validation import extract_entities
from anchorgate.tools.text.language import question_language


def normalized_query(text: str) -> str:
    """A query as compared for identity: casefolded words, punctuation dropped, single spaces."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def screen_rewrite(original: str, rewrite: str) -> str | None:
    """Why a rewrite is not even worth measuring, or None: BLOCK_EMPTY (no words), BLOCK_IDENTICAL
    (the question's words again), BLOCK_LANGUAGE (both languages recognised and different: the
    index is searched in the question's language; an unrecognised one, "und", is not held against it)."""
    words = normalized_query(rewrite)
    if not words:
        return "BLOCK_EMPTY"
    if words == normalized_query(original):
        return "BLOCK_IDENTICAL"
    asked, written = question_language(original), question_language(rewrite)
    if "und" not in (asked, written) and asked != written:
        return "BLOCK_LANGUAGE"
    return None


def _mentions(text: str, entity: str) -> bool:
    """Whether `entity`'s words occur in `text` as a run of whole words, case, punctuation and a
    possessive 's aside ("Lilu's" mentions Lilu)."""
    words = normalized_query(re.sub(r"['’]s$", "", entity))
    return f" {words} " in f" {normalized_query(text)} "


def entity_changes(original: str, rewrite: str) -> tuple[list[str], list[str]]:
    """(the original's entities the rewrite dropped, entities it added), each sorted.

    Entities are found by capitalisation (`extract_entities`), and a rewrite of a lower-case
    question capitalises its names ("prime minister in canada" → "Prime Minister in Canada"), so an
    entity counts as dropped only when its words are missing from the rewrite, and as added only
    when its words are missing from the question.
    """
    dropped = [e for e in extract_entities(original) if not _mentions(rewrite, e)]
    added = [e for e in extract_entities(rewrite) if not _mentions(original, e)]
    return sorted(dropped), sorted(added)


def rewrite_entity_sets(original: str, rewrite: str) -> tuple[frozenset[str], frozenset[str]]:
    """The entity sets `validate_rewrite` compares: the question's, and the question's as the rewrite
    keeps them (minus those dropped, plus those added; see `entity_changes`). Equal iff no change."""
    before = extract_entities(original)
    dropped, added = entity_changes(original, rewrite)
    return before, (before - frozenset(dropped)) | frozenset(added)

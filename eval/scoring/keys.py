"""Answer keys: what a correct answer to a long-gold question must contain.

ClapNQ's gold answers are whole passage sentences, so no answer matches them word for word. An
answer key, written by hand from the question and its gold alone (`clapnq_answer_keys/SOURCE.md`),
says what a correct answer must hold instead, one JSON line per question:

    {"id": "...", "type": "short" | "list" | "long", "answers": [...], "min_items": N, "note": "..."}

* short: `answers` are alternatives; the answer is correct if it contains any one of them;
* list / long: each entry of `answers` is one item (or key phrase) whose variants are separated
  by "|"; the answer is correct if it contains at least `min_items` of the items.

Containment is on whole words in `text.key_tokens` form (case, accents, punctuation, citation
markers, digit grouping and plural endings do not matter). The keys are data: they are never
edited to fit an answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .text import contains_run, key_tokens

KeyType = Literal["short", "list", "long"]
KEY_TYPES: tuple[KeyType, ...] = ("short", "list", "long")


class AnswerKeyError(ValueError):
    """A key file that cannot be read, or that does not fit the dataset it scores."""


@dataclass(frozen=True)
class AnswerKey:
    """One question's key: its items (each a tuple of variants, as key tokens) and how many must appear."""

    id: str
    type: KeyType
    items: tuple[tuple[tuple[str, ...], ...], ...]
    min_items: int
    note: str = ""

    def items_found(self, text: str) -> int:
        """How many of the key's items `text` contains (any variant of an item counts once)."""
        words = key_tokens(text)
        return sum(any(contains_run(words, list(variant)) for variant in item) for item in self.items)

    def credits(self, *texts: str) -> bool:
        """True when one of `texts` holds the key: any alternative (short), else `min_items` items."""
        return any(self.items_found(text) >= self.min_items for text in texts if text.strip())


def parse_key(row: Mapping[str, object], where: str) -> AnswerKey:
    """One key line, checked: a known type, a non-empty list of strings, 1 ≤ min_items ≤ items."""
    qid, kind, answers, needed = row.get("id"), row.get("type"), row.get("answers"), row.get("min_items", 1)
    if not isinstance(qid, str) or not qid:
        raise AnswerKeyError(f"{where}: 'id' must be a non-empty string")
    if kind not in KEY_TYPES:
        raise AnswerKeyError(f"{where}: 'type' must be one of {', '.join(KEY_TYPES)} (got {kind!r})")
    if not isinstance(answers, list) or not answers or not all(isinstance(a, str) and a.strip() for a in answers):
        raise AnswerKeyError(f"{where}: 'answers' must be a non-empty list of non-empty strings")
    items: tuple[tuple[tuple[str, ...], ...], ...]
    if kind == "short":  # alternatives: one item whose variants are the listed answers
        items = (tuple(tuple(key_tokens(a)) for a in answers),)
        needed = 1
    else:
        items = tuple(tuple(tuple(key_tokens(v)) for v in a.split("|") if v.strip()) for a in answers)
    if not isinstance(needed, int) or isinstance(needed, bool) or not 1 <= needed <= len(items):
        raise AnswerKeyError(f"{where}: 'min_items' must be an integer from 1 to {len(items)} (got {needed!r})")
    if any(not variant for item in items for variant in item):
        raise AnswerKeyError(f"{where}: an answer has no words once punctuation is removed")
    note = row.get("note") or ""
    return AnswerKey(qid, kind, items, needed, str(note))


def load_answer_keys(path: str | Path) -> dict[str, AnswerKey]:
    """The keys of a JSON Lines file by question id; a bad line or a repeated id names its line."""
    source = Path(path)
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise AnswerKeyError(f"cannot read answer keys {source}: {exc}") from exc
    keys: dict[str, AnswerKey] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{source.name} line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswerKeyError(f"{where}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise AnswerKeyError(f"{where}: expected a JSON object")
        key = parse_key(row, where)
        if key.id in keys:
            raise AnswerKeyError(f"{where}: id {key.id!r} appears twice")
        keys[key.id] = key
    if not keys:
        raise AnswerKeyError(f"{source} holds no answer keys")
    return keys


def _few(ids: Iterable[str]) -> str:
    listed = sorted(ids)
    return ", ".join(listed[:5]) + (f" and {len(listed) - 5} more" if len(listed) > 5 else "")


def check_keys(keys: Mapping[str, AnswerKey], dataset_ids: Iterable[str], needed_ids: Iterable[str]) -> None:
    """The keys fit the dataset: every id of `needed_ids` has a key, and every key's id is a dataset question."""
    known = set(dataset_ids)
    missing = [qid for qid in needed_ids if qid not in keys]
    if missing:
        raise AnswerKeyError(f"no answer key for {len(missing)} question(s) of the dataset: {_few(missing)}")
    stray = [qid for qid in keys if qid not in known]
    if stray:
        raise AnswerKeyError(f"{len(stray)} answer key id(s) are not questions of the dataset: {_few(stray)}")

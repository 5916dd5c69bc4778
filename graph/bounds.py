"""What each setting may hold: the declarations `Config.validate` reads, one per setting.

A field of `Config` declares its rule beside its default and description (`_f(default, description,
allowed)`): a `Range` for a number, an `OrderedPair` for the gray zone, `Templates` for the prompt
overrides. The type and the Literal choices come from the field's annotation, and a text setting
without a rule gets `Text`. Every entry point builds a Config (`--set`, the Python API's overrides,
Studio's context and `configurable`), so every one gets the same checks and the same message: the
setting, the value, and what is allowed.

A rule answers two questions: `problem(name, value, config)`, what is wrong (None when nothing is),
and `describe(name)`, what is allowed (for the message and `anchorgate config`).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from string import Formatter
from typing import Any, Protocol

from anchorgate.prompts import get_prompt, placeholders, prompt_names
from anchorgate.tools.errors import ConfigError
from anchorgate.tools.question.validation import is_unicode_text

SHOWN_VALUE_CHARS = 60  # a value quoted in a message is cut here: one line, even for a 4000-digit number


class Rule(Protocol):
    """What a setting may hold."""

    def problem(self, name: str, value: Any, config: Any) -> str | None:
        """What is wrong with `value` ("must be …"), or None."""

    def describe(self, name: str) -> str:
        """What is allowed, e.g. `1 ≤ token_budget ≤ 10000000`."""


Bound = int | float | None


@dataclass(frozen=True)
class Range:
    """A finite number from `low` to `high`; an end marked open is itself left out."""

    low: Bound = None
    high: Bound = None
    low_open: bool = False
    high_open: bool = False

    def problem(self, name: str, value: Any, config: Any) -> str | None:
        """Infinite, NaN, below `low` or above `high`: what the value must be instead."""
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        low, high = self.low, self.high
        if low is not None and (value <= low if self.low_open else value < low):
            if value < 0 <= low:  # the plainest words for the commonest slip
                return "must not be negative"
            return f"must be {'above' if self.low_open else 'at least'} {low}"
        if high is not None and (value >= high if self.high_open else value > high):
            return f"must be {'below' if self.high_open else 'at most'} {high}"
        return None

    def describe(self, name: str) -> str:
        """`low ≤ name ≤ high`, with `<` for an open end."""
        parts = [name]
        if self.low is not None:
            parts.insert(0, f"{self.low} {'<' if self.low_open else '≤'} ")
        if self.high is not None:
            parts.append(f" {'<' if self.high_open else '≤'} {self.high}")
        return "".join(parts)


@dataclass(frozen=True)
class OrderedPair:
    """Two finite numbers `low,high` with `within[0] ≤ low ≤ high ≤ within[1]`."""

    within: tuple[float, float] = (0.0, 1.0)

    def problem(self, name: str, value: Any, config: Any) -> str | None:
        """Not two numbers, not finite, out of order or out of `within`."""
        if not isinstance(value, tuple) or len(value) != 2:
            return "must be a pair of two numbers low,high"
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            return "must hold two numbers"
        if not all(math.isfinite(v) for v in value):
            return "must hold finite numbers"
        low, high = value
        if low > high:
            return "must be ordered, low first"
        if not self.within[0] <= low <= high <= self.within[1]:
            return f"must lie within {self.within[0]} and {self.within[1]}"
        return None

    def describe(self, name: str) -> str:
        """`low,high with 0.0 ≤ low ≤ high ≤ 1.0`."""
        return f"a pair low,high with {self.within[0]} ≤ low ≤ high ≤ {self.within[1]}"


@dataclass(frozen=True)
class CountPair:
    """Two whole numbers `first,second`, each from 0 to `most` (in any order: they count different things)."""

    most: int

    def problem(self, name: str, value: Any, config: Any) -> str | None:
        """Not two whole numbers, or one out of range."""
        if not isinstance(value, tuple) or len(value) != 2:
            return "must be a pair of two whole numbers first,second"
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return "must hold two whole numbers"
        if not all(0 <= v <= self.most for v in value):
            return f"must hold numbers from 0 to {self.most}"
        return None

    def describe(self, name: str) -> str:
        """`a pair first,second of whole numbers from 0 to most`."""
        return f"a pair first,second of whole numbers from 0 to {self.most}"


@dataclass(frozen=True)
class ScaleTable:
    """{setting: value} for the settings named in `keys`, each value a number from 0 to 2 (a cut)."""

    keys: tuple[str, ...]

    def problem(self, name: str, value: Any, config: Any) -> str | None:
        """An unknown key, or a value that is not a finite number in [0, 2]."""
        for key, cut in value.items():
            if key not in self.keys:
                return f"[{key!r}] is not a setting on the embedding scale (those: {', '.join(self.keys)})"
            if isinstance(cut, bool) or not isinstance(cut, int | float) or not math.isfinite(cut):
                return f"[{key!r}] must be a number"
            if not 0.0 <= cut <= 2.0:
                return f"[{key!r}] must lie within 0 and 2"
        return None

    def describe(self, name: str) -> str:
        """The keys it takes."""
        return f"a JSON object {{setting: number from 0 to 2}} for {', '.join(self.keys)}"


@dataclass(frozen=True)
class Text:
    """Text that can be a path, a URL or a name: no NUL character (no file system takes one)."""

    def problem(self, name: str, value: Any, config: Any) -> str | None:
        """A NUL character, or None."""
        return "must not hold a NUL character" if "\x00" in value else None

    def describe(self, name: str) -> str:
        """Any text without a NUL character."""
        return "text without a NUL character"


@dataclass(frozen=True)
class Templates:
    """Prompt overrides: packaged template names, each text with exactly its template's placeholders.

    The placeholders come from the packaged template (`prompts/<name>.txt`): the code fills exactly
    those, so an override lacking one would drop what it stands for (the passages, the question),
    and one naming another fails at render time. They must be plain `{name}`: a format spec could
    pad a value to any width (`{question:>999999999}`), an attribute (`{question.__class__}`) reads
    beyond the value.
    """

    def problem(self, name: str, value: Any, config: Any) -> str | None:
        """The first override that is not a known name with a valid template, or None."""
        for key, text in value.items():
            problem = template_problem(key, text)
            if problem:
                return f"[{key!r}] {problem}"
        return None

    def describe(self, name: str) -> str:
        """The placeholder rule (an unknown name's message lists the names)."""
        return "a JSON object {template name: text}, each text with exactly its packaged template's {placeholders}"


def template_problem(key: Any, text: Any) -> str | None:
    """What is wrong with the override `key: text`, or None."""
    if not isinstance(key, str) or key not in prompt_names():
        close = difflib.get_close_matches(str(key), prompt_names(), n=1)
        known = f"did you mean {close[0]!r}?" if close else f"the templates: {', '.join(prompt_names())}"
        return f"is not a template name ({known})"
    if not isinstance(text, str):
        return f"must be text, not {type(text).__name__}"
    if not is_unicode_text(text):
        return "holds an unpaired surrogate, which is not text"
    try:
        fields = list(Formatter().parse(text))
    except ValueError as exc:  # a lone { or }
        return f"is not a valid template: {exc}; a literal brace is {{{{ or }}}}"
    return _placeholder_problem(fields, placeholders(get_prompt(key)))  # no overrides: the packaged one


def _placeholder_problem(fields: list[tuple[str, str | None, str | None, str | None]], wanted: set[str]) -> str | None:
    """Unknown, not plain or missing placeholders, compared with the packaged template's `wanted`.

    Unknown first: `{"verdict": …}` is most likely a literal brace meant, not a format spec.
    """
    found = {field for _, field, _, _ in fields if field is not None}
    expected = ", ".join(f"{{{p}}}" for p in sorted(wanted)) or "none"
    unknown = sorted(found - wanted)
    if unknown:
        named = ", ".join(f"{{{p}}}" for p in unknown)
        return f"has unknown placeholder(s) {named} (it takes {expected}; a literal brace is {{{{ or }}}})"
    fancy = sorted({field for _, field, spec, conversion in fields if field is not None and (spec or conversion)})
    if fancy:
        return f"has placeholder(s) with a format spec or conversion ({', '.join(fancy)}): write plain {{name}}"
    missing = sorted(wanted - found)
    if missing:
        return f"lacks placeholder(s) {', '.join(f'{{{p}}}' for p in missing)} (it takes {expected})"
    return None


def check_setting(name: str, value: Any, rule: Rule | None, config: Any) -> None:
    """Raise ConfigError naming the setting, the value and what `rule` allows."""
    problem = rule.problem(name, value, config) if rule is not None else None
    if rule is not None and problem:
        joiner = "" if problem.startswith("[") else " "  # prompt_overrides['nope'] is not …
        raise ConfigError(f"{name}{joiner}{problem}, got {shown(value)}", f"allowed: {rule.describe(name)}")


def shown(value: Any) -> str:
    """`repr(value)`, cut to one short line."""
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE_CHARS else f"{text[: SHOWN_VALUE_CHARS - 1]}…"

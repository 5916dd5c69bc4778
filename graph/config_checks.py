"""The settings' declarations read: names, defaults, types, choices and rules, and the checks of one value.

Every entry point builds a Config (`--set`, the Python API's overrides, Studio's context and
`configurable`, the HTTP API), so every one gets these checks and the same message: the setting,
the value, and what is allowed.
"""

from __future__ import annotations

import dataclasses
import difflib
from functools import cache
from typing import Any, Literal, get_args, get_origin, get_type_hints

from anchorgate.graph.bounds import Text, check_setting, shown
from anchorgate.graph.config_groups import GROUPS, PRESET_DESCRIPTION
from anchorgate.tools.errors import ConfigError


@cache
def _fields() -> dict[str, dataclasses.Field[Any]]:
    """Every setting's field by its `group.field` name, in declaration order."""
    return {f"{group}.{f.name}": f for group, cls in GROUPS.items() for f in dataclasses.fields(cls)}


@cache
def _choices() -> dict[str, tuple[Any, ...]]:
    """The allowed values of each Literal-typed setting."""
    found: dict[str, tuple[Any, ...]] = {}
    for group, cls in GROUPS.items():
        for name, hint in get_type_hints(cls).items():
            if get_origin(hint) is Literal:
                found[f"{group}.{name}"] = get_args(hint)
    return found


def is_setting(name: str) -> bool:
    """Whether `name` is `preset` or a `group.field` setting."""
    return name == "preset" or name in _fields()


def field_names() -> list[str]:
    """Every setting's `group.field` name (and `preset`)."""
    return ["preset", *_fields()]


def describe_fields() -> list[tuple[str, str, str]]:
    """(name, type, description) for every setting, for `anchorgate config` and the docs."""
    rows = [("preset", "str", PRESET_DESCRIPTION)]
    return rows + [(name, str(f.type), f.metadata["description"]) for name, f in _fields().items()]


def default_of(name: str) -> Any:
    """The declared default of setting `name`."""
    if name == "preset":
        return "baseline"
    f = _fields()[name]
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def allowed_values(name: str) -> str:
    """What setting `name` may hold, in words (`anchorgate config`, error hints); "" when any value of its type."""
    choices = _choices().get(name)
    if choices:
        return f"allowed: one of {', '.join(map(str, choices))}"
    if name not in _fields():
        return ""
    if isinstance(default_of(name), bool):
        return "allowed: true or false"
    rule = _fields()[name].metadata["allowed"]
    if rule is None or isinstance(rule, Text):  # any text is what a text setting is: nothing to add
        return ""
    return f"allowed: {rule.describe(name)}"


def check_value(name: str, value: Any, config: Any = None) -> None:
    """Raise ConfigError when `value` is not of setting `name`'s type, choices or range."""
    default = default_of(name)
    expected: tuple[type, ...] = (type(default),)
    if isinstance(default, float):
        expected = (float, int)
    wrong_bool = isinstance(value, bool) and not isinstance(default, bool)
    if wrong_bool or not isinstance(value, expected):
        raise ConfigError(f"{name} must be of type {type(default).__name__}, got {shown(value)}", allowed_values(name))
    choices = _choices().get(name)
    if choices and value not in choices:
        raise ConfigError(f"{name}={shown(value)} is not one of {list(choices)}")
    if name != "preset":
        check_setting(name, value, _fields()[name].metadata["allowed"], config)


def names_hint(key: str) -> str:
    """The valid names near `key`: the fields of its group, or the groups."""
    group, dot, name = key.partition(".")
    if dot and group in GROUPS:
        names = [f.name for f in dataclasses.fields(GROUPS[group])]
        close = difflib.get_close_matches(name, names, n=3)
        prefix = f"did you mean {', '.join(f'{group}.{c}' for c in close)}? " if close else ""
        return f"{prefix}the {group} settings: {', '.join(names)}"
    close = difflib.get_close_matches(key, list(_fields()), n=3)
    prefix = f"did you mean {', '.join(close)}? " if close else ""
    return (
        f"{prefix}a setting is group.field; the groups: {', '.join(GROUPS)} (and preset; `anchorgate config` lists all)"
    )


def build_group(name: str, value: Any) -> Any:
    """Group `name` from its dataclass or a JSON object; lists become pairs, unknown fields are refused."""
    cls = GROUPS[name]
    if isinstance(value, cls):
        values = {f.name: getattr(value, f.name) for f in dataclasses.fields(cls)}
    elif isinstance(value, dict):
        values = dict(value)
    else:
        raise ConfigError(f"{name} must be an object of {name} settings, got {shown(value)}", names_hint(f"{name}."))
    known = {f.name for f in dataclasses.fields(cls)}
    for key in values:
        if key not in known:
            raise ConfigError(f"unknown setting {name}.{key}", names_hint(f"{name}.{key}"))
    for key, item in values.items():
        if isinstance(item, list) and isinstance(default_of(f"{name}.{key}"), tuple):
            values[key] = tuple(item)
    return cls(**values)

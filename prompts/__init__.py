"""Named prompt templates.

Each template is a `<name>.txt` file beside this module with `{placeholders}`; evidence always
sits inside delimiters (`<documents>…</documents>`). Configuration may override any template by
name (`Config.prompt_overrides`), so Studio and tests can change wording without code changes.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Formatter


class UnknownPromptError(KeyError):
    """Raised when a prompt name has no template file."""


@cache
def _packaged(name: str) -> str:
    try:
        return resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise UnknownPromptError(f"no prompt template named {name!r}") from exc


def prompt_names() -> list[str]:
    """All packaged template names, sorted."""
    return sorted(p.name[:-4] for p in resources.files(__name__).iterdir() if p.name.endswith(".txt"))


def get_prompt(name: str, overrides: dict[str, str] | None = None) -> str:
    """The template called `name`: an override from configuration wins over the packaged file."""
    if overrides and name in overrides:
        return overrides[name]
    return _packaged(name)


def placeholders(template: str) -> set[str]:
    """The `{field}` names a template expects."""
    return {field for _, field, _, _ in Formatter().parse(template) if field}


def render(name: str, overrides: dict[str, str] | None = None, **values: object) -> str:
    """Fill template `name`; a missing placeholder value is an error, never a silent blank."""
    template = get_prompt(name, overrides)
    missing = placeholders(template) - values.keys()
    if missing:
        raise KeyError(f"prompt {name!r} needs values for {sorted(missing)}")
    return template.format(**values)

"""Named prompt templates.

Each template is a `<name>.txt` file beside this module with `{placeholders}`; evidence always
sits inside delimiters (`<documents>…</documents>`). Configuration may override any template by
name (`Config.prompt_overrides`), so Studio and tests can change wording without code changes.

Answers in the question's language: the templates that write the answer a user reads
(`ANSWER_TEMPLATES`) get the `language_instruction` line right after the question's line when the
question is not in English (tools/text/language.py). An English question gets nothing added, so its
prompts, and the replies the eval cache holds for them, are byte for byte what they were.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Formatter

from anchorgate.tools.text.language import question_language

ANSWER_TEMPLATES = frozenset(("generate_user", "answer_quoted_user", "reflect_user"))
LANGUAGE_NAMES = {"id": "Indonesian", "zh": "Chinese", "ja": "Japanese", "ko": "Korean"}


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
    text = template.format(**values)
    if name in ANSWER_TEMPLATES and isinstance(values.get("question"), str):
        text = with_language_line(text, str(values["question"]), overrides)
    return text


def language_line(question: str, overrides: dict[str, str] | None = None) -> str:
    """The instruction to answer in the question's language; "" for English or an unrecognised language."""
    language = question_language(question)
    if language in ("en", "und"):
        return ""
    name = LANGUAGE_NAMES.get(language, "the same language as the question")
    return get_prompt("language_instruction", overrides).format(language=name)


def with_language_line(prompt: str, question: str, overrides: dict[str, str] | None = None) -> str:
    """`prompt` with the language line after the line that holds the question (at the end if none does)."""
    line = language_line(question, overrides)
    if not line:
        return prompt
    lines = prompt.split("\n")
    held = [i for i, text in enumerate(lines) if question.strip() and question.strip() in text]
    at = held[-1] if held else None  # the last: a passage above may quote the question
    if at is None or "\n" in question.strip():
        return f"{prompt.rstrip()}\n{line}"
    return "\n".join([*lines[: at + 1], line, *lines[at + 1 :]])

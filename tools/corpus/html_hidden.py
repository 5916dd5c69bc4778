"""Elements of an HTML page that a reader does not see, found before its text is extracted.

A hostile page can carry an instruction ("SYSTEM OVERRIDE: answer …") in text a browser never
shows. Hidden here:
- the `hidden` attribute;
- an inline style with `display: none` or `visibility: hidden|collapse`;
- an inline style with `font-size: 0`, when nothing inside the element has a class or style that
  could give its text a size again (`font-size: 0` on a row of inline blocks is a layout trick);
- an element the page's own `<style>` sheets hide that way by a simple selector (`.class`, `#id`,
  `tag.class`, `tag#id`), unless another rule of the sheets names that class or id with a showing
  value (`.tab.active {display: block}`: a script shows it) or its inline style shows it.
Rules inside `@media` and other at-rules are not read (they hide only on some screens or in print),
nor are selectors more complex than the simple ones (no cascade is computed). Elements that are
never rendered as text (`<template>`, `<noscript>`, `<script>`, …) are dropped by the extractor
itself (tools/corpus/html_text.py).
"""

from __future__ import annotations

import re

import lxml.html

MAX_STYLE_CHARS = 200_000
"""Style sheet text read per page: enough for the rules a page writes itself, bounded for huge inlined CSS."""

_RULE_MARKS = re.compile(r"[{};]")
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_DECLARATION = re.compile(r"([-a-zA-Z]+)\s*:\s*([^;]*)")
_SIMPLE_SELECTOR = re.compile(r"([a-zA-Z][a-zA-Z0-9-]*)?([.#])([-_a-zA-Z0-9]+)")
_ZERO_SIZE = re.compile(r"(0+(\.0*)?|\.0+)(px|pt|em|rem|%)?")
_HIDING = {"display": {"none"}, "visibility": {"hidden", "collapse"}}
_PAGE_TAGS = frozenset({"html", "body"})
_CLASS_OR_ID = re.compile(r"[.#][-_a-zA-Z0-9]+")


def hidden_elements(root: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """Every element of the page hidden by its `hidden` attribute, its inline style or a simple style rule.

    Call it before the `<style>` elements are removed: their rules are read here.
    """
    hidden = list(root.xpath("//*[@hidden]"))
    hidden += [element for element in root.xpath("//*[@style]") if _inline_style_hides(element)]
    hidden += _hidden_by_rules(root)
    # A whole page hidden is an anti-flicker trick its script undoes on load, not a hidden part of it.
    return [element for element in hidden if element.tag not in _PAGE_TAGS]


def style_visibility(style: str | None) -> bool | None:
    """What CSS declarations say of `display`/`visibility`: False hides, True shows explicitly, None nothing."""
    verdict: bool | None = None
    for name, value in _declarations(style).items():
        if name in _HIDING:
            if value in _HIDING[name]:
                return False
            verdict = True
    return verdict


def _inline_style_hides(element: lxml.html.HtmlElement) -> bool:
    style = element.get("style")
    if style_visibility(style) is False:
        return True
    zero_size = _ZERO_SIZE.fullmatch(_declarations(style).get("font-size", "")) is not None
    return zero_size and not element.xpath(".//*[@style or @class]")


def _declarations(style: str | None) -> dict[str, str]:
    """Property -> value, lower case; a later declaration replaces an earlier one (`!important` is not weighed)."""
    values: dict[str, str] = {}
    for name, value in _DECLARATION.findall(style or ""):
        values[name.lower()] = value.replace("!important", "").strip().lower()
    return values


def _hidden_by_rules(root: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """Elements a simple selector of the page's style sheets hides (and no rule shows again)."""
    selectors = _hiding_selectors(root)
    if not selectors:
        return []
    return [
        element
        for element in root.xpath("//*[@class or @id]")
        if any(key in selectors for key in _selector_keys(element))
        and style_visibility(element.get("style")) is not True
    ]


def _hiding_selectors(root: lxml.html.HtmlElement) -> set[tuple[str, str, str]]:
    """`(tag or "*", "." or "#", name)` of every simple selector the page's style sheets hide by."""
    sheets = "\n".join(style.text or "" for style in root.iter("style"))[:MAX_STYLE_CHARS]
    rules = _top_level_rules(_COMMENT.sub(" ", sheets))
    shown = {
        token
        for selectors, body in rules
        if style_visibility(body) is True
        for token in _CLASS_OR_ID.findall(selectors)
    }
    hiding: set[tuple[str, str, str]] = set()
    for selectors, body in rules:
        if style_visibility(body) is not False:
            continue
        for selector in selectors.split(","):
            match = _SIMPLE_SELECTOR.fullmatch(selector.strip())
            # Another rule that shows it again (a tab made active, a menu opened) means it is not hidden for sure.
            if match and match[2] + match[3] not in shown:
                hiding.add(((match[1] or "*").lower(), match[2], match[3]))
    return hiding


def _selector_keys(element: lxml.html.HtmlElement) -> list[tuple[str, str, str]]:
    """The simple selectors that match `element`, in the form `_hiding_selectors` gives them."""
    tag = element.tag.lower() if isinstance(element.tag, str) else ""
    names = [(".", name) for name in (element.get("class") or "").split()]
    if element.get("id"):
        names.append(("#", element.get("id", "")))
    return [(scope, kind, name) for kind, name in names for scope in ("*", tag)]


def _top_level_rules(css: str) -> list[tuple[str, str]]:
    """`(selectors, declarations)` of the rules outside any at-rule block, in order."""
    rules: list[tuple[str, str]] = []
    depth, start, selectors = 0, 0, ""
    for mark in _RULE_MARKS.finditer(css):
        index, char = mark.start(), mark.group()
        if char == "{":
            if depth == 0:
                selectors, start = css[start:index].strip(), index + 1
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                if not selectors.startswith("@"):
                    rules.append((selectors, css[start:index]))
                start = index + 1
        elif char == ";" and depth == 0:
            start = index + 1  # a statement at-rule (`@import …;`) ends here
    return rules

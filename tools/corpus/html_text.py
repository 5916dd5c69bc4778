"""Main-text extraction from full HTML pages (CRAG search results), bounded against bad input.

Pages are parsed with lxml's HTML parser (libxml2, the same parser BeautifulSoup's "lxml"
builder drives, about ten times faster here because no Python tree is built). Boilerplate
(script, style, nav, header, footer, aside, noscript, form, ...) is dropped, and so is text a
browser would not show (tools/corpus/html_hidden.py: the `hidden` attribute, `display: none`, …),
which could carry an instruction aimed at the answering model; whitespace is
collapsed, block elements become paragraph breaks (blank lines) and `<br>` a line break.
Input is capped before parsing and output is capped per line and in total, so a 10 MB page or
a megabyte-long line costs a bounded, small amount of time.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

from anchorgate.tools.corpus.html_hidden import hidden_elements

MAX_HTML_CHARS = 2_000_000
MAX_TEXT_CHARS = 200_000
MAX_LINE_CHARS = 10_000

DROP_TAGS = (
    "script", "style", "noscript", "head", "template", "svg", "iframe", "object", "embed", "canvas",
    "select", "textarea",
)  # fmt: skip
"""Never visible as text: always dropped."""
LAYOUT_TAGS = ("nav", "header", "footer", "aside", "form", "button")
"""Boilerplate, dropped unless mis-nested markup put the page's main content inside them."""
_DROP_XPATH = "|".join(f"//{tag}" for tag in DROP_TAGS)
_LAYOUT_XPATH = (
    "|".join(f"//{tag}" for tag in LAYOUT_TAGS)
    + "|//*[@aria-hidden='true']"  # hidden from screen readers, not from the eye: layout unless it holds the page
    + "|//*[@role='navigation' or @role='banner' or @role='contentinfo' or @role='complementary']"
)
_MAIN_XPATH = "boolean(.//main|.//article|.//*[@role='main'])"
_MAIN_SHARE = 0.5
BLOCK_TAGS = frozenset(
    {
        "address", "article", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hgroup",
        "hr", "html", "li", "main", "menu", "ol", "p", "pre", "section", "summary", "table", "tbody",
        "tfoot", "thead", "tr", "ul",
    }
)  # fmt: skip
_CELL_TAGS = frozenset({"td", "th"})
_PARA = "\ue000"  # private-use markers survive whitespace collapsing
_LINE = "\ue001"
_SPACES = re.compile(r"\s+")
_PARSER = lxml.html.HTMLParser(
    recover=True, no_network=True, remove_comments=True, remove_pis=True, encoding="utf-8"
)


def extract_main_text(
    html: str,
    *,
    max_html_chars: int = MAX_HTML_CHARS,
    max_text_chars: int = MAX_TEXT_CHARS,
    max_line_chars: int = MAX_LINE_CHARS,
) -> str:
    """Readable text of `html`: paragraphs separated by blank lines; "" when there is none.

    The HTML is cut to `max_html_chars` before parsing; each line is cut to `max_line_chars` and
    the whole text to `max_text_chars` (at a paragraph boundary when possible). Unparsable input
    gives "" (the caller records the page as having no text).
    """
    if not html or not html.strip():
        return ""
    data = html[:max_html_chars].replace("\x00", "").encode("utf-8", errors="replace")
    try:
        root = lxml.html.document_fromstring(data, parser=_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return ""
    _drop_boilerplate(root)
    raw = _flatten(root)
    return _normalise(raw, max_text_chars=max_text_chars, max_line_chars=max_line_chars)


def _drop_boilerplate(root: lxml.html.HtmlElement) -> None:
    """Remove invisible elements, then layout boilerplate that does not hold the main content.

    Hidden elements go whatever they hold: a reader never sees them. libxml2 (like any HTML4
    parser) sometimes nests the whole article inside an unclosed `<header>`/`<button>`/`<form>`;
    such an element is kept when it contains `<main>`/`<article>` or more than half of the page
    text, and only its own boilerplate children are dropped.
    """
    hidden = hidden_elements(root)  # before the <style> elements go: their rules are read
    for element in [*root.xpath(_DROP_XPATH), *hidden]:
        if element.getparent() is not None:
            element.drop_tree()
    page_chars = len(root.text_content())
    doomed = [el for el in root.xpath(_LAYOUT_XPATH) if not _holds_main(el, page_chars)]
    for element in doomed:
        if element.getparent() is not None:
            element.drop_tree()


def _holds_main(element: lxml.html.HtmlElement, page_chars: int) -> bool:
    if element.xpath(_MAIN_XPATH):
        return True
    return page_chars > 0 and len(element.text_content()) > _MAIN_SHARE * page_chars


def _flatten(root: lxml.html.HtmlElement) -> str:
    """Text of the tree with paragraph/line markers at block and `<br>` boundaries (iterative)."""
    parts: list[str] = []
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in BLOCK_TAGS:
                parts.append(_PARA)
            elif tag == "br":
                parts.append(_LINE)
            elif tag in _CELL_TAGS and _previous_is_cell(element):
                parts.append(" | ")
            if element.text and tag:
                parts.append(element.text)
        else:
            if tag in BLOCK_TAGS:
                parts.append(_PARA)
            if element.tail:
                parts.append(element.tail)
    return "".join(parts)


def _previous_is_cell(element: lxml.html.HtmlElement) -> bool:
    previous = element.getprevious()
    return previous is not None and previous.tag in _CELL_TAGS


def _normalise(raw: str, *, max_text_chars: int, max_line_chars: int) -> str:
    """Collapse whitespace, drop empty lines, cap line and total length."""
    paragraphs: list[str] = []
    total = 0
    for block in _SPACES.sub(" ", raw).split(_PARA):
        lines = [line.strip()[:max_line_chars].rstrip() for line in block.split(_LINE)]
        paragraph = "\n".join(line for line in lines if line)
        if not paragraph:
            continue
        if total + len(paragraph) > max_text_chars:
            if not paragraphs:
                paragraphs.append(paragraph[:max_text_chars].rstrip())
            break
        paragraphs.append(paragraph)
        total += len(paragraph) + 2
    return "\n\n".join(paragraphs)


def domain_of(url: str) -> str:
    """Lower-case host of `url` without a leading "www." ("" when there is none)."""
    text = url.strip()
    if not text:
        return ""
    if "//" not in text:
        text = "//" + text
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:
        return ""
    return host.lower().removeprefix("www.")

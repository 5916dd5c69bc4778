"""Main-text extraction from HTML and domain parsing used by the CRAG loader."""

from __future__ import annotations

import time

import pytest

from anchorgate.eval.datasets import domain_of, extract_main_text


def test_boilerplate_dropped_and_paragraphs_kept() -> None:
    html = """<!doctype html><html><head><title>T</title><style>p{color:red}</style></head><body>
      <header><a href="/">Home</a> | <a href="/x">Menu</a></header><nav>Nav links</nav>
      <h1>Heading</h1><p>First   paragraph
         with <b>bold</b> words.</p><p>Line one<br>Line two</p>
      <table><tr><th>Name</th><th>Price</th></tr><tr><td>ACME</td><td>12.5</td></tr></table>
      <aside>Related stuff</aside><form><input value="q"><button>Go</button></form>
      <script>document.write("x")</script><noscript>enable js</noscript><!-- a comment -->
      <div hidden>secret</div><footer>Copyright</footer></body></html>"""
    text = extract_main_text(html)
    assert text == (
        "Heading\n\nFirst paragraph with bold words.\n\nLine one\nLine two\n\nName | Price\n\nACME | 12.5"
    )


def test_main_content_misnested_inside_a_header_is_kept() -> None:
    # libxml2 leaves an unclosed <button> open, so <main> ends up inside <header> (seen on CRAG pages).
    html = (
        "<body><header><button><nav>menu</nav><main><p>The article text.</p></main></button></header></body>"
    )
    assert extract_main_text(html) == "The article text."


@pytest.mark.parametrize(
    "html",
    ["", "   ", "<script>x()</script>", "<html><body></body></html>", "\x00\x00", "<?xml version='1.0'?>"],
)
def test_no_text_gives_empty_string(html: str) -> None:
    assert extract_main_text(html) == ""


def test_xml_declaration_and_entities() -> None:
    html = (
        '<?xml version="1.0" encoding="utf-8"?>'
        + "<html><body><p>Caf&eacute; &amp; bar &#8212; ok</p></body></html>"
    )
    assert extract_main_text(html) == "Café & bar — ok"


def test_caps_on_input_lines_and_total() -> None:
    html = "<p>" + "a" * 50 + "</p>" + "<p>bbbb</p>" * 10
    assert extract_main_text(html, max_line_chars=20).split("\n\n")[0] == "a" * 20
    assert len(extract_main_text(html, max_text_chars=60)) <= 60
    assert "bbbb" not in extract_main_text(html, max_html_chars=30)


def test_deep_nesting_does_not_recurse() -> None:
    html = "<div>" * 50_000 + "deep text" + "</div>" * 50_000
    started = time.perf_counter()
    text = extract_main_text(html)
    assert time.perf_counter() - started < 5
    assert isinstance(text, str)


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://www.Example.COM:8080/a?b=c", "example.com"),
        ("http://en.wikipedia.org/wiki/X", "en.wikipedia.org"),
        ("www.reddit.com/r/x", "reddit.com"),
        ("https://user:pw@www2.site.co.uk/", "www2.site.co.uk"),
        ("", ""),
        ("http://[::1", ""),
    ],
)
def test_domain_of(url: str, domain: str) -> None:
    assert domain_of(url) == domain

"""Structure-first, token-aware chunking.

Text is split at its own structure first — section headings, then blank-line paragraphs, then
lines, sentences and words — and pieces are merged up to `chunk_tokens` with `overlap_tokens`
carried between consecutive chunks of a section (LangChain's recursive splitter measured with
tiktoken's offline cl100k). Chunk ids are stable: document id, position and a content hash, so the
same content always gives the same ids and re-indexing adds no duplicates.

Section headings are reStructuredText underlined titles (the pydoc topics use them) and Markdown
`#` headings. A document that has them is cut at every heading before the recursive split, so no
chunk straddles two sections; the heading lines leave the text and go into the chunk's title,
"<document title> › <section> › <subsection>". The title is embedded and BM25-indexed with the
text (`tools/index/build.py: embedding_text`), so the chunk of "Special method names" that explains
context managers is found as "Special method names › With Statement Context Managers". A
document without headings is one section and keeps its title. Any change here changes the chunks:
bump `tools/index.FORMAT_VERSION` with it so that no index built by older code is reused.

Chinese and Japanese sentences end in 。！？ with no space after them: those (then ；, then ， and
、) are separators too, so a Chinese paragraph is cut between sentences, not wherever the token
count runs out. They cut only text that holds CJK punctuation: other text is chunked byte for
byte as before, and `tools/index/build.py: chunker_fingerprint` probes the CJK rules only for a corpus that
holds such punctuation, so English and Indonesian indexes stay valid while Chinese ones are rebuilt.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from langchain_text_splitters import RecursiveCharacterTextSplitter

from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.corpus.pages import split_pages, without_page_starts
from anchorgate.tools.errors import ConfigError
from anchorgate.tools.text.sentences import period_break_pattern
from anchorgate.tools.text.tokens import ENCODING_NAME

# Tried in order; the splitter cuts at the first one a too-long piece holds, then merges the pieces.
# Regexes (is_separator_regex): the Latin ones are literal separators escaped, except ". ", which
# is no break after an initial or a title ("Robert E. Lee", "Dr. Grey"). Chinese and Japanese put
# no space after a sentence end: a run of 。！？ (with the closing quotes after it) ends a sentence,
# ； and ， / 、 are weaker breaks.
_CJK_CLOSERS = "\"'”’」』）》〉)\\]"
CJK_SENTENCE_END = f"[。！？｡]+[{_CJK_CLOSERS}]*"
SEPARATORS = [
    *map(re.escape, ["\n\n", "\n"]), period_break_pattern(), *map(re.escape, ["? ", "! "]), CJK_SENTENCE_END,
    re.escape("; "), f"；[{_CJK_CLOSERS}]*", re.escape(", "), "，", "、", re.escape(" "), "",
]  # fmt: skip
CJK_PUNCTUATION = re.compile("[。！？｡；，、]")
"""What the CJK separators match: a text without any of these is chunked as it was before them."""
TITLE_SEPARATOR = " › "
MAX_HEADING_CHARS = 120  # a longer line over a rule is a paragraph, not a title
# An RST section adornment: one punctuation character repeated, alone on its line.
_ADORNMENT = re.compile(r"([=\-~*^\"'`#+:.])\1{2,}")
_ATX = re.compile(r"(#{1,6})[ \t]+(.+?)[ \t#]*")
_FENCE = re.compile(r"```|~~~")
_MARKUP = re.compile(r"[\"`]|\*\*")


@dataclass(frozen=True)
class ChunkingSettings:
    """How passages become chunks; part of every index cache key."""

    chunk_tokens: int = 120
    overlap_tokens: int = 20

    def validate(self) -> None:
        """Chunks must hold something and overlap must leave room for new text."""
        if self.chunk_tokens < 16:
            raise ConfigError(f"chunk_tokens={self.chunk_tokens} is too small (minimum 16)")
        if not 0 <= self.overlap_tokens < self.chunk_tokens:
            raise ConfigError("chunk_overlap_tokens must be >= 0 and smaller than chunk_tokens")


@dataclass(frozen=True)
class Heading:
    """A section heading: its lines span [start, end) of the text; level 0 is the outermost."""

    start: int
    end: int
    level: int
    text: str


@dataclass(frozen=True)
class Section:
    """A section's text without its heading lines, and the path of headings it sits under."""

    text: str
    path: tuple[str, ...]


def clean_heading(text: str) -> str:
    """A heading as a title: without markup quotes ('The "with" statement' → 'The with statement')
    or bold markers, whitespace collapsed."""
    return " ".join(_MARKUP.sub("", text).split())


def find_headings(text: str) -> list[Heading]:
    """Section headings of `text` in order.

    reStructuredText: an unindented line of at most `MAX_HEADING_CHARS` characters underlined by
    one repeated punctuation character at least as long (an overline is allowed); levels follow
    the order in which adornment characters first appear (the RST rule). Markdown: `#`…`######`
    lines outside code fences, level = number of `#` − 1.
    """
    headings: list[Heading] = []
    levels: dict[str, int] = {}
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    in_fence = False
    for i, line in enumerate(lines):
        if _FENCE.match(line.lstrip()):
            in_fence = not in_fence
            continue
        atx = None if in_fence else _ATX.fullmatch(line)
        if atx:
            headings.append(Heading(starts[i], starts[i + 1], len(atx.group(1)) - 1, clean_heading(atx.group(2))))
            continue
        title = line.rstrip()
        if in_fence or not title or title[0].isspace() or len(title) > MAX_HEADING_CHARS:
            continue
        if _ADORNMENT.fullmatch(title):
            continue
        under = lines[i + 1].rstrip() if i + 1 < len(lines) else ""
        if _ADORNMENT.fullmatch(under) and len(under) >= len(title):
            over = i > 0 and lines[i - 1].rstrip() == under
            level = levels.setdefault(under[0], len(levels))
            start = starts[i - 1] if over else starts[i]
            headings.append(Heading(start, min(starts[i + 2], len(text)), level, clean_heading(title)))
    return [h for h in headings if h.text]


def sections(text: str) -> list[Section]:
    """The sections of `text` in order: cut at every heading, heading lines removed.

    A heading with no text of its own ("Patterns" directly followed by "OR Patterns") joins the
    next section, which keeps the deeper path. Text before the first heading is a section with
    an empty path; a text without headings is one such section.
    """
    headings = find_headings(text)
    stack: list[Heading] = []
    spans: list[tuple[int, int, tuple[str, ...]]] = [(0, 0, ())]  # (heading start, body start, path)
    for heading in headings:
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        spans.append((heading.start, heading.end, tuple(h.text for h in stack)))
    out: list[Section] = []
    for i, (_, body_start, path) in enumerate(spans):
        body_end = spans[i + 1][0] if i + 1 < len(spans) else len(text)
        body = text[body_start:body_end]
        if not body.strip():
            continue  # an empty section: its heading lives on in the next section's path
        out.append(Section(body, path))
    return out


def chunk_title(document_title: str, path: Sequence[str]) -> str:
    """"<document title> › <section> › …", without repeating the document's own heading."""
    parts = list(path)
    if parts and parts[0].casefold() == clean_heading(document_title).casefold():
        parts = parts[1:]
    return TITLE_SEPARATOR.join([document_title, *parts]) if document_title and parts else document_title


def make_splitter(settings: ChunkingSettings) -> RecursiveCharacterTextSplitter:
    """The recursive splitter for `settings`, measuring length in tokens."""
    settings.validate()
    return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=ENCODING_NAME,
        chunk_size=settings.chunk_tokens,
        chunk_overlap=settings.overlap_tokens,
        separators=SEPARATORS,
        is_separator_regex=True,
        keep_separator="end",
        disallowed_special=(),
    )


def chunk_id(doc_id: str, position: int, text: str) -> str:
    """Stable id: same document, position and text → same id."""
    digest = hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:10]
    return f"{doc_id}#{position}:{digest}"


def chunk_passages(passages: Iterable[Passage], settings: ChunkingSettings) -> list[Chunk]:
    """All chunks of `passages` in order, without duplicate ids, titled with their section.

    A paged passage (a PDF, tools/corpus/pages.py) is cut at its pages first: no chunk spans two pages,
    each records its `page` in its metadata and in its id (`report.pdf#p3#5:…`, so a bare id
    still says where it came from). The page is not in the embedded title: inserting a page
    leaves the other pages' vectors reusable.
    """
    splitter = make_splitter(settings)
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for passage in passages:
        pieces = [
            (page, chunk_title(passage.title, section.path), piece.strip())
            for page, page_text in split_pages(passage)
            for section in sections(page_text)
            for piece in splitter.split_text(section.text)
        ]
        metadata = without_page_starts(passage.metadata)
        for position, (page, title, piece) in enumerate(p for p in pieces if p[2]):
            cid = chunk_id(passage.id if page is None else f"{passage.id}#p{page}", position, piece)
            if cid in seen:
                continue
            seen.add(cid)
            meta = dict(metadata) if page is None else {**metadata, "page": page}
            chunks.append(Chunk(cid, passage.id, title, piece, passage.source, position, meta))
    return chunks

"""Corpora: the built-in pydoc demo, a folder of .txt/.md/.html/.pdf/.docx files, or a JSONL file.

A PDF is one document whose pages are kept (tools/corpus/pages.py), so its chunks and citations carry
page numbers; PDF and DOCX are read by langchain-community's loaders (tools/corpus/loaders.py).
Text files are UTF-8, or GB18030 or Big5 when their bytes leave no doubt (tools/corpus/encoding.py).
Unreadable, binary, oversized, non-text, encrypted, image-only or broken files inside a folder are
skipped, counted and listed, and so are subfolders that cannot be listed; the rest is still indexed.
A missing or unreadable path or a corpus with nothing indexable is an error.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import lxml.etree
import lxml.html

from anchorgate.tools.corpus.chunking import find_headings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.corpus.encoding import decode_text
from anchorgate.tools.corpus.loaders import DOCX_SUFFIXES, PDF_SUFFIXES, read_docx, read_pdf
from anchorgate.tools.corpus.pages import PAGE_STARTS, join_pages
from anchorgate.tools.errors import CorpusError

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst"}
HTML_SUFFIXES = {".html", ".htm"}
MAX_FILE_BYTES = 20 * 1024 * 1024  # larger files are skipped: a corpus file, not a data dump
MAX_BINARY_DOCUMENT_BYTES = 200 * 1024 * 1024  # PDF/DOCX: mostly images and fonts, little text per MiB


@dataclass
class LoadedCorpus:
    """Passages of a corpus plus what was skipped and why (path, reason)."""

    name: str
    passages: list[Passage]
    skipped: list[tuple[str, str]] = field(default_factory=list)
    identity: str = ""
    """`pydoc` or the resolved path: which index slot follows this corpus (tools/index/build.py)."""


def load_corpus(spec: str) -> LoadedCorpus:
    """`pydoc`, a folder, or a `.jsonl` file → passages in a stable order."""
    if spec == "pydoc":
        corpus = load_pydoc()
        corpus.identity = "pydoc"
        return corpus
    path = corpus_path(spec)
    if path.is_dir():
        corpus = load_folder(path)
    elif path.suffix.lower() == ".jsonl":
        corpus = load_jsonl(path)
    else:
        corpus = LoadedCorpus(str(path), [], [])
        _add_file(path, path.parent, corpus)
    corpus.identity = str(path.resolve())
    if not corpus.passages:
        raise CorpusError(
            f"corpus {spec} has no indexable text; {skipped_summary(corpus.skipped)}",
            "it needs .txt, .md, .html, .pdf or .docx files, or JSONL lines with a 'text' field",
        )
    return corpus


def corpus_path(spec: str) -> Path:
    """The path a corpus spec names (relative to the working folder), which must exist."""
    path = Path(spec).expanduser()
    if not path.exists():
        where = "" if path.is_absolute() else f" (in {Path.cwd()})"
        raise CorpusError(f"corpus path {spec} does not exist{where}", "pass 'pydoc', a folder or a .jsonl file")
    return path


def check_corpus_readable(spec: str) -> None:
    """Cheap check that a corpus can be read, before a run is stored: nothing is loaded or indexed.

    `pydoc`, or a path that exists and opens: a folder that can be listed, a file that can be read.
    """
    if spec == "pydoc":
        return
    path = corpus_path(spec)
    try:
        if path.is_dir():
            with os.scandir(path):
                pass
        else:
            with path.open("rb"):
                pass
    except OSError as exc:
        raise _unreadable_corpus(path, exc) from exc


def _unreadable_corpus(path: Path, exc: OSError) -> CorpusError:
    """A corpus root that cannot be listed or read says so (not "holds no files")."""
    kind = "folder" if path.is_dir() else "file"
    reason = (exc.strerror or str(exc)).lower()
    return CorpusError(f"corpus {kind} {path} cannot be read: {reason}", "make it readable by this user")


def skipped_summary(skipped: list[tuple[str, str]], shown: int = 3) -> str:
    """What was skipped and why, on one line: the first `shown` entries, then how many more."""
    if not skipped:
        return "it holds no files"
    parts = [f"{where}: {why}" for where, why in skipped[:shown]]
    if len(skipped) > shown:
        parts.append(f"{len(skipped) - shown} more")
    return f"skipped {'; '.join(parts)}"


def load_pydoc() -> LoadedCorpus:
    """The Python Language Reference topics shipped with CPython (`pydoc_data.topics`).

    A topic's title is its own heading ("The with statement", "Special method names"), not its
    pydoc key ("with", "specialnames"), which stays in the id (`pydoc:with`) and in the metadata
    (`topic`): users ask in the heading's words, and the title is embedded and BM25-indexed.
    """
    from pydoc_data.topics import topics

    passages = [
        Passage(
            id=f"pydoc:{name}",
            title=pydoc_title(name, text),
            text=text,
            source=f"pydoc_data.topics[{name!r}]",
            metadata={"topic": name},
        )
        for name, text in sorted(topics.items())
    ]
    return LoadedCorpus("pydoc", passages)


def pydoc_title(name: str, text: str) -> str:
    """The topic's opening heading, cleaned of markup quotes; the topic name when it has none."""
    headings = find_headings(text)
    return headings[0].text if headings and headings[0].start == 0 else name


def load_folder(root: Path) -> LoadedCorpus:
    """Every text/Markdown/HTML/PDF/DOCX file below `root`, in sorted path order."""
    corpus = LoadedCorpus(str(root), [])
    for path in _files_below(root, corpus):
        _add_file(path, root, corpus)
    return corpus


def _files_below(root: Path, corpus: LoadedCorpus) -> list[Path]:
    """Every file below `root`, sorted; a subfolder that cannot be listed is a skipped entry.

    Not `Path.rglob`, which passes over a folder it cannot list without a word. As rglob does,
    symbolic links to folders are not entered (no cycles) and links to files count as files.
    A root that cannot be listed is an error: the corpus cannot be read at all.
    """
    files: list[Path] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as exc:
            if folder == root:
                raise _unreadable_corpus(root, exc) from exc
            where = f"{folder.relative_to(root).as_posix()}/"
            corpus.skipped.append((where, f"unreadable folder: {exc.strerror or exc}"))
            continue
        for entry in entries:
            if _is_real_folder(entry):
                pending.append(Path(entry.path))
            elif Path(entry.path).is_file():
                files.append(Path(entry.path))
    return sorted(files)


def _is_real_folder(entry: os.DirEntry[str]) -> bool:
    """A folder, not a link to one (a link cycle would never end)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _add_file(path: Path, root: Path, corpus: LoadedCorpus) -> None:
    relative = path.relative_to(root).as_posix()
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES | DOCX_SUFFIXES:
        _add_binary_document(path, relative, corpus)
        return
    if suffix not in TEXT_SUFFIXES | HTML_SUFFIXES:
        known = ", ".join(sorted(TEXT_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES | DOCX_SUFFIXES))
        reason = f"unsupported file type {suffix or '(none)'} (wrong format: {known} are read)"
        corpus.skipped.append((relative, reason))
        return
    text, problem = _read_text(path)
    if text is None:
        corpus.skipped.append((relative, problem))
        return
    title = path.stem
    if suffix in HTML_SUFFIXES:
        title, text = _html_to_text(text, default_title=path.stem)
    if not text.strip():
        corpus.skipped.append((relative, "no text (empty)"))
        return
    corpus.passages.append(Passage(id=relative, title=title, text=text, source=str(path)))


def _add_binary_document(path: Path, relative: str, corpus: LoadedCorpus) -> None:
    """A PDF (its pages kept for citations) or a DOCX as one passage; skipped with the reason it is unusable."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        corpus.skipped.append((relative, f"unreadable: {exc.strerror or exc}"))
        return
    if size > MAX_BINARY_DOCUMENT_BYTES:
        corpus.skipped.append((relative, f"too large ({_sizes(size, MAX_BINARY_DOCUMENT_BYTES)})"))
        return
    if path.suffix.lower() in PDF_SUFFIXES:
        pages, problem = read_pdf(path)
        if pages is None:
            corpus.skipped.append((relative, problem))
            return
        text, starts = join_pages(pages)
        passage = Passage(relative, path.stem, text, str(path), {PAGE_STARTS: starts})
    else:
        docx_text, problem = read_docx(path)
        if docx_text is None:
            corpus.skipped.append((relative, problem))
            return
        passage = Passage(relative, path.stem, docx_text, str(path))
    corpus.passages.append(passage)


def _read_text(path: Path) -> tuple[str | None, str]:
    """File text, or None and the reason it cannot be used."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, f"too large ({_sizes(size, MAX_FILE_BYTES)})"
        data = path.read_bytes()
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    if b"\x00" in data[:8192]:
        return None, "binary file (wrong format)"
    return decode_text(data)  # UTF-8, or GB18030 / Big5 when certain (tools/corpus/encoding.py)


def _sizes(size: int, limit: int) -> str:
    """"25.3 MiB, limit 20.0 MiB"; in bytes when MiB would print the two alike."""
    mib, limit_mib = f"{size / (1024 * 1024):.1f} MiB", f"{limit / (1024 * 1024):.1f} MiB"
    return f"{mib}, limit {limit_mib}" if mib != limit_mib else f"{size:,} bytes, limit {limit:,} bytes"


def _html_to_text(html: str, default_title: str) -> tuple[str, str]:
    """(title, main text) with the same bounded extractor the dataset loaders use."""
    from anchorgate.tools.corpus.html_text import extract_main_text

    title = ""
    try:
        title = lxml.html.fromstring(html[:200_000]).findtext(".//title") or ""
    except (ValueError, lxml.etree.ParserError):
        title = ""  # a page without a parsable head still has its text; the file name titles it
    return " ".join(title.split()) or default_title, extract_main_text(html)


def load_jsonl(path: Path) -> LoadedCorpus:
    """One `{"id", "title", "text", …}` object per line; extra fields become metadata."""
    corpus = LoadedCorpus(str(path), [])
    seen: set[str] = set()
    text, problem = _read_text(path)
    if text is None:
        raise CorpusError(f"corpus file {path} cannot be read: {problem}")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{path}:{number}: not valid JSON ({exc.msg})", "one JSON object per line") from exc
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            raise CorpusError(f"{path}:{number}: expected an object with a string 'text' field")
        doc_id = str(record.get("id", f"{path.stem}:{number}"))
        if doc_id in seen:
            corpus.skipped.append((f"{path.name}:{number}", f"duplicate id {doc_id}"))
            continue
        seen.add(doc_id)
        metadata = {k: v for k, v in record.items() if k not in {"id", "title", "text"}}
        title = str(record.get("title") or doc_id)
        corpus.passages.append(Passage(doc_id, title, record["text"], str(path), metadata))
    return corpus

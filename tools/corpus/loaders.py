"""PDF and DOCX files as text, through langchain-community's document loaders.

A PDF is read page by page with `PyPDFLoader` (pypdf), leaving out text a reader cannot see
(white or zero-size text: tools/corpus/pdf_hidden.py); a DOCX with `Docx2txtLoader` (docx2txt),
which has no pages. A file that cannot be used gives its reason instead of text, and the corpus
skips and counts it (tools/corpus/load.py): an encrypted PDF, one without a text layer (scanned pages
are images; there is no OCR here), a broken or truncated one.
"""

from __future__ import annotations

import logging
import warnings
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.documents import Document

PDF_SUFFIXES = {".pdf"}
DOCX_SUFFIXES = {".docx"}
NO_TEXT_LAYER = "no extractable text (scanned/image-only?)"
NO_VISIBLE_TEXT = "no visible text"


def read_pdf(path: Path) -> tuple[list[tuple[int, str]] | None, str]:
    """`(page number, text)` for every page (1-based), or None and why the PDF cannot be used."""
    import pypdf.errors

    try:
        with path.open("rb") as file:
            head = file.read(1024)
        if not head:
            return None, "broken PDF (empty file)"
        if b"%PDF-" not in head:
            return None, "not a PDF (no %PDF- header; wrong format)"
        with _quiet_parsers():
            documents, hidden_pieces = _load_visible_pages(path)
    except pypdf.errors.FileNotDecryptedError:
        return None, "encrypted PDF (password-protected; decrypt it to index it)"
    except pypdf.errors.DependencyError as exc:  # AES encryption without the `cryptography` package
        return None, f"encrypted PDF that pypdf cannot open here ({exc})"
    except pypdf.errors.PyPdfError as exc:
        return None, f"broken or truncated PDF ({_brief(exc)})"
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    except Exception as exc:  # noqa: BLE001 — a parser of untrusted files fails in many ways; the file is skipped with it
        return None, f"broken PDF ({type(exc).__name__}: {_brief(exc)})"
    pages = [(int(doc.metadata.get("page", n)) + 1, doc.page_content) for n, doc in enumerate(documents)]
    if not any(text.strip() for _, text in pages):
        return None, _no_text_reason(hidden_pieces)
    return pages, ""


def _no_text_reason(hidden_pieces: int) -> str:
    """Why a PDF without text is skipped: its text is all hidden, or it has no text layer at all."""
    if not hidden_pieces:
        return NO_TEXT_LAYER
    return f"{NO_VISIBLE_TEXT} ({hidden_pieces} hidden piece{'s' if hidden_pieces != 1 else ''} of text left out)"


def _load_visible_pages(path: Path) -> tuple[list[Document], int]:
    """PyPDFLoader's page documents, with text a reader cannot see left out (tools/corpus/pdf_hidden.py),
    and how many pieces of text were left out.

    The loader yields page by page as it extracts them, so the filter is reset between pages: each
    page starts in the default graphics state whatever the previous one left behind.
    """
    from langchain_community.document_loaders import PyPDFLoader

    from anchorgate.tools.corpus.pdf_hidden import HiddenTextFilter

    hidden = HiddenTextFilter()
    loader = PyPDFLoader(str(path), mode="page", extraction_kwargs=hidden.extraction_kwargs())
    documents = []
    for document in loader.lazy_load():
        documents.append(document)
        hidden.start_page()
    return documents, hidden.hidden_pieces


def read_docx(path: Path) -> tuple[str | None, str]:
    """The text of a Word document, or None and why it cannot be used."""
    try:
        with _quiet_parsers():
            from langchain_community.document_loaders import Docx2txtLoader

            documents = Docx2txtLoader(str(path)).load()
    except (zipfile.BadZipFile, KeyError) as exc:  # not a zip, or a zip without word/document.xml
        return None, f"broken DOCX ({type(exc).__name__}: {_brief(exc)})"
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    except Exception as exc:  # noqa: BLE001 — as for PDFs: an odd file is skipped with its reason, never a crash
        return None, f"broken DOCX ({type(exc).__name__}: {_brief(exc)})"
    text = "\n\n".join(doc.page_content for doc in documents)
    return (text, "") if text.strip() else (None, "no text (empty)")


@contextmanager
def _quiet_parsers() -> Iterator[None]:
    """Keep pypdf's log lines ("EOF marker not found") and langchain-community's sunset notice off
    the user's terminal: the skipped-file list already says what was wrong with a file."""
    parser_log = logging.getLogger("pypdf")  # its modules log to child loggers, which inherit this level
    level = parser_log.level
    parser_log.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        parser_log.setLevel(level)


def _brief(exc: BaseException, limit: int = 120) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"

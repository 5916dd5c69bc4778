"""PDF and DOCX corpora (issue 16): real files written here (fpdf2, pypdf, a zipped DOCX), read through
langchain-community's loaders; pages kept in chunks, ids and citations; unusable files skipped and counted."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

import pypdf
import pytest
from fpdf import FPDF

from anchorgate.cli import _readable, run
from anchorgate.tools.answer.citations import resolve_citations
from anchorgate.tools.corpus.chunking import chunk_passages
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.corpus.load import load_corpus
from anchorgate.tools.corpus.loaders import NO_TEXT_LAYER
from anchorgate.tools.corpus.pages import PAGE_STARTS, join_pages, split_pages
from anchorgate.tools.errors import CorpusError
from anchorgate.tools.retrieval.evidence import to_evidence
from tests.unit.index_helpers import SETTINGS, CountingEmbeddings, index_folder

HARBOR = [
    "Harbor report 2023. The port of Veldhaven handled record cargo volumes this year.",
    "The Veldhaven lighthouse was built in 1874 by the engineer Ilse Brandt. "
    + "Its lamp is visible from twenty-two nautical miles away on a clear night. " * 4,
    "Dredging of the northern channel will finish in 2025 and cost 31 million euros.",
]
ORCHARD = [
    "Orchard notes. The Kessler orchard grows mainly apples: Elstar, Jonagold and Boskoop.",
    "Pear trees in the Kessler orchard are pruned every February.",
    "Honey bees from four hives pollinate the orchard each spring.",
]


def write_pdf(path: Path, pages: Sequence[str | None]) -> Path:
    """A real PDF with one page per entry: its text, or (None) only a drawn rectangle, no text layer."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        if text is None:
            pdf.rect(20, 20, 120, 60, style="F")
        else:
            pdf.multi_cell(0, 8, text)
    pdf.output(str(path))
    return path


def write_docx(path: Path, paragraphs: Sequence[str]) -> Path:
    """A minimal Word document: the zip parts docx2txt reads (word/document.xml)."""
    body = "".join(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>" for text in paragraphs)
    xml = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        archive.writestr("word/document.xml", xml)
    return path


def _encrypt(source: Path, target: Path) -> Path:
    writer = pypdf.PdfWriter(clone_from=str(source))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-128")
    writer.write(str(target))
    return target


@pytest.fixture
def pdf_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    write_pdf(folder / "harbor_report.pdf", HARBOR)
    write_pdf(folder / "orchard_notes.pdf", ORCHARD)
    return folder


def test_a_pdf_is_one_document_whose_chunks_each_carry_their_page(pdf_folder: Path) -> None:
    corpus = load_corpus(str(pdf_folder))
    assert [p.id for p in corpus.passages] == ["harbor_report.pdf", "orchard_notes.pdf"] and not corpus.skipped
    harbor = corpus.passages[0]
    assert harbor.title == "harbor_report" and harbor.source == str(pdf_folder / "harbor_report.pdf")
    assert [page for page, _ in split_pages(harbor)] == [1, 2, 3]

    chunks = chunk_passages(corpus.passages, SETTINGS)
    pages = {(c.doc_id, c.metadata["page"]) for c in chunks}
    assert pages == {(doc, n) for doc in ("harbor_report.pdf", "orchard_notes.pdf") for n in (1, 2, 3)}
    assert len([c for c in chunks if c.metadata["page"] == 2 and c.doc_id == "harbor_report.pdf"]) >= 2
    for chunk in chunks:
        source_pages = HARBOR if chunk.doc_id == "harbor_report.pdf" else ORCHARD
        page_text = " ".join(source_pages[chunk.metadata["page"] - 1].split())
        assert " ".join(chunk.text.split()) in page_text, "a chunk never spans two pages"
        assert chunk.id.startswith(f"{chunk.doc_id}#p{chunk.metadata['page']}#")
        assert PAGE_STARTS not in chunk.metadata
    brandt = [c for c in chunks if "Ilse Brandt" in c.text]
    bees = [c for c in chunks if "four hives" in c.text]
    assert [c.metadata["page"] for c in brandt] == [2] and [c.metadata["page"] for c in bees] == [3]


def test_pages_without_text_keep_the_numbers_of_the_pages_around_them(tmp_path: Path) -> None:
    write_pdf(tmp_path / "mixed.pdf", ["Page one mentions otters.", None, "Page three mentions badgers."])
    corpus = load_corpus(str(tmp_path))
    chunks = chunk_passages(corpus.passages, SETTINGS)
    assert [(c.metadata["page"], "otters" in c.text, "badgers" in c.text) for c in chunks] == [
        (1, True, False),
        (3, False, True),
    ]
    single = load_corpus(str(tmp_path / "mixed.pdf"))  # one PDF as the corpus path
    assert [p.id for p in single.passages] == ["mixed.pdf"] and single.passages[0].text == corpus.passages[0].text


def test_encrypted_image_only_and_broken_pdfs_are_skipped_with_their_reason_and_counted(
    pdf_folder: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    good = pdf_folder / "harbor_report.pdf"
    _encrypt(good, pdf_folder / "locked.pdf")
    write_pdf(pdf_folder / "scan.pdf", [None, None])
    data = good.read_bytes()
    (pdf_folder / "truncated.pdf").write_bytes(data[: len(data) // 2])
    (pdf_folder / "renamed.pdf").write_text("plain words, not a PDF", encoding="utf-8")
    (pdf_folder / "empty.pdf").write_bytes(b"")
    capfd.readouterr()
    corpus = load_corpus(str(pdf_folder))
    reasons = dict(corpus.skipped)
    assert [p.id for p in corpus.passages] == ["harbor_report.pdf", "orchard_notes.pdf"]
    assert len(corpus.skipped) == 5
    assert reasons["locked.pdf"].startswith("encrypted PDF (password-protected")
    assert reasons["scan.pdf"] == NO_TEXT_LAYER == "no extractable text (scanned/image-only?)"
    assert reasons["truncated.pdf"].startswith("broken or truncated PDF (")
    assert reasons["renamed.pdf"].startswith("not a PDF")
    assert reasons["empty.pdf"] == "broken PDF (empty file)"
    out, err = capfd.readouterr()
    assert out == "" and err == "", "pypdf's log lines and warnings stay off the terminal"


def test_a_pdf_encrypted_with_an_empty_user_password_opens_like_any_pdf(tmp_path: Path) -> None:
    writer = pypdf.PdfWriter(clone_from=str(write_pdf(tmp_path / "plain.pdf", ORCHARD)))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    writer.write(str(tmp_path / "plain.pdf"))
    assert pypdf.PdfReader(str(tmp_path / "plain.pdf")).is_encrypted
    corpus = load_corpus(str(tmp_path))
    assert not corpus.skipped and "four hives" in corpus.passages[0].text


def test_a_folder_of_only_unusable_pdfs_is_one_error_line_naming_the_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    write_pdf(folder / "scan.pdf", [None])
    _encrypt(write_pdf(tmp_path / "source.pdf", ORCHARD), folder / "locked.pdf")
    with pytest.raises(CorpusError):
        load_corpus(str(folder))
    code = run(["index", str(folder), "--set", f"resources.cache_dir={tmp_path / 'cache'}"])
    err = capsys.readouterr().err
    assert code == 66 and err.count("\n") == 1 and err.startswith("error: corpus ")
    assert "locked.pdf: encrypted PDF" in err and "scan.pdf: no extractable text" in err and "Traceback" not in err


def test_a_changed_pdf_page_reembeds_only_that_pages_chunks(pdf_folder: Path, tmp_path: Path) -> None:
    first = CountingEmbeddings()
    index_folder(pdf_folder, tmp_path / "indexes", first)
    assert len(first.texts) == len(chunk_passages(load_corpus(str(pdf_folder)).passages, SETTINGS))

    write_pdf(pdf_folder / "orchard_notes.pdf", [*ORCHARD[:2], "Honey bees from six hives pollinate the orchard."])
    again = CountingEmbeddings()
    index = index_folder(pdf_folder, tmp_path / "indexes", again)
    assert again.texts == ["orchard_notes\nHoney bees from six hives pollinate the orchard."]
    assert index.manifest["documents_changed"] == {"added": 0, "changed": 1, "deleted": 0, "unchanged": 1}
    assert {c.metadata.get("page") for c in index.chunks if "six hives" in c.text} == {3}


def test_citations_and_the_printed_sources_name_the_pdf_page(pdf_folder: Path) -> None:
    chunks = chunk_passages(load_corpus(str(pdf_folder)).passages, SETTINGS)
    brandt = next(c for c in chunks if "Ilse Brandt" in c.text)
    apples = next(c for c in chunks if "Jonagold" in c.text)
    context = [
        {**to_evidence(chunk, 1.0, pass_no=1, worker="w", rank=n), "n": n}
        for n, chunk in enumerate([brandt, apples], 1)
    ]
    citations, invalid = resolve_citations("Ilse Brandt built it [1]. Elstar apples grow there [2].", context)
    assert not invalid and [(c["id"], c["page"]) for c in citations] == [(brandt.id, 2), (apples.id, 1)]
    result = {"answer": "Ilse Brandt built it [1].", "citations": citations[:1], "tokens": {"total": 1,
              "prompt": 1, "completion": 0}, "decision": "STOP", "reason": "STOP_OVERLAP_OK", "rounds": 1,
              "latency_s": 0.1, "thread_id": "t"}  # fmt: skip
    assert f"[1] harbor_report — {pdf_folder / 'harbor_report.pdf'} p.2" in _readable(result).splitlines()
    plain = Passage("notes.txt", "notes", "Ilse Brandt built the lighthouse.", "/x/notes.txt")
    unpaged = [{**to_evidence(chunk_passages([plain], SETTINGS)[0], 1.0, pass_no=1, worker="w", rank=1), "n": 1}]
    assert "page" not in resolve_citations("Ilse Brandt built it [1].", unpaged)[0][0]


def test_page_offsets_that_do_not_fit_the_text_are_ignored() -> None:
    text, starts = join_pages([(1, " one "), (2, ""), (3, "three")])
    assert text == "one\n\nthree" and starts == [[0, 1], [5, 3]]
    assert split_pages(Passage("p", "P", text, metadata={PAGE_STARTS: starts})) == [(1, "one\n\n"), (3, "three")]
    for bad in ("page 3", [[0, 1], [99, 2]], [[0, 0]], [[2, 1]], [[0, 2], [0, 3]], [[0, "1"]]):
        assert split_pages(Passage("p", "P", text, metadata={PAGE_STARTS: bad})) == [(None, text)]


def test_docx_is_read_through_docx2txt_and_a_broken_one_is_skipped(tmp_path: Path) -> None:
    write_docx(tmp_path / "minutes.docx", ["Minutes of the board.", "The board approved the new ferry timetable."])
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    write_docx(tmp_path / "blank.docx", [])
    corpus = load_corpus(str(tmp_path))
    assert [(p.id, p.title) for p in corpus.passages] == [("minutes.docx", "minutes")]
    assert "approved the new ferry timetable" in corpus.passages[0].text
    reasons = dict(corpus.skipped)
    assert reasons["broken.docx"].startswith("broken DOCX (") and reasons["blank.docx"] == "no text (empty)"
    chunks = chunk_passages(corpus.passages, SETTINGS)
    assert chunks and all("page" not in c.metadata for c in chunks)


def test_the_postgresql_store_keeps_the_pages_of_pdf_chunks(pdf_folder: Path) -> None:
    from anchorgate.tools.postgres.index import embedder, snapshot_of, sync
    from anchorgate.tools.postgres.search import PgSearcher
    from tests.unit.pg_helpers import fresh_database

    url, embeddings = fresh_database("pdf"), CountingEmbeddings()
    snapshot = snapshot_of(load_corpus(str(pdf_folder)).passages, "bow-64", SETTINGS)
    result = sync(url, "pdfs", snapshot, embedder(embeddings, progress=False))
    assert result.chunks == len(snapshot.chunks) and result.documents["added"] == 2
    hits = PgSearcher(url, "pdfs").search("Who built the lighthouse?", embeddings.embed_query("who built lighthouse"))
    top = hits[0].chunk
    assert "Ilse Brandt" in top.text and top.metadata == {"page": 2} and top.id.startswith("harbor_report.pdf#p2#")
    assert {h.chunk.id: h.chunk.metadata["page"] for h in hits} == {
        c.id: c.metadata["page"] for c in snapshot.chunks if c.id in {h.chunk.id for h in hits}
    }

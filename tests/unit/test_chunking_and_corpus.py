from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from anchorgate.tools.corpus import load as corpus_module
from anchorgate.tools.corpus.chunking import ChunkingSettings, chunk_passages, find_headings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.corpus.load import check_corpus_readable, load_corpus, pydoc_title
from anchorgate.tools.errors import ConfigError, CorpusError
from anchorgate.tools.text.tokens import count_tokens


def test_pydoc_corpus_is_the_language_reference() -> None:
    corpus = load_corpus("pydoc")
    assert len(corpus.passages) == 79
    assert 400_000 < sum(len(p.text) for p in corpus.passages) < 600_000
    by_topic = {p.metadata["topic"]: p for p in corpus.passages}
    assert all(p.id == f"pydoc:{topic}" for topic, p in by_topic.items())
    # the topic's own heading, not the opaque pydoc key ("customization", "specialnames")
    assert by_topic["with"].title == "The with statement"
    assert by_topic["context-managers"].title == "With Statement Context Managers"
    assert by_topic["customization"].title == "Basic customization"
    assert by_topic["specialnames"].title == "Special method names"
    assert by_topic["pass"].title == "The pass statement" and by_topic["lambda"].title == "Lambdas"


def test_pydoc_title_is_the_opening_heading_without_markup() -> None:
    assert pydoc_title("with", 'The "with" statement\n********************\n\nThe "with" …') == "The with statement"
    assert pydoc_title("debugger", '"pdb" — The Python Debugger\n***************************\n') == (
        "pdb — The Python Debugger"
    )
    assert pydoc_title("odd", "No heading here, just text.\nMore text.") == "odd"


def test_headings_rst_and_markdown() -> None:
    text = (
        "Title\n*****\n\nIntro.\n\nSection A\n=========\n\nBody.\n\nSub\n---\n\nMore.\n\n"
        "   Indented\n   ========\n\nToo short\n===\n\n+-----+\n| x   |\n+-----+\n\nSection B\n=========\n"
    )
    found = [(h.level, h.text) for h in find_headings(text)]
    assert found == [(0, "Title"), (1, "Section A"), (2, "Sub"), (1, "Section B")]
    markdown = "# Guide\n\ntext\n\n## Install\n\n```\n# not a heading\n```\n\n### Step `one`\n"
    assert [(h.level, h.text) for h in find_headings(markdown)] == [(0, "Guide"), (1, "Install"), (2, "Step one")]


def test_chunk_titles_carry_the_section_path() -> None:
    def body(word: str) -> str:
        return (word + " ") * 40

    text = (
        f"Special method names\n********************\n\n{body('intro')}\n\n"
        f"Basic customization\n===================\n\n{body('basic')}\n\n"
        f"With Statement Context Managers\n===============================\n\nobject.__enter__(self) {body('cm')}\n\n"
        f"Details\n-------\n\n{body('details')}\n\nEmpty\n=====\n\nInner\n-----\n\n{body('inner')}\n"
    )
    chunks = chunk_passages([Passage("pydoc:specialnames", "Special method names", text)], ChunkingSettings(60, 0))
    titles = {c.text.split()[-1]: c.title for c in chunks}
    assert titles == {
        "intro": "Special method names",  # the document's own heading is not repeated
        "basic": "Special method names › Basic customization",
        "cm": "Special method names › With Statement Context Managers",
        "details": "Special method names › With Statement Context Managers › Details",
        "inner": "Special method names › Empty › Inner",  # a heading without text joins the next section
    }
    # cut at headings: no chunk mixes two sections, and heading lines are in the title, not the text
    assert all(len(set(c.text.split()) - {"object.__enter__(self)"}) == 1 for c in chunks)
    assert not any("===" in c.text or "Basic customization" in c.text for c in chunks)
    plain = chunk_passages([Passage("d", "Doc", "no headings at all. " * 30)], ChunkingSettings(32, 4))
    assert {c.title for c in plain} == {"Doc"}


def test_pydoc_chunks_name_their_section() -> None:
    corpus = load_corpus("pydoc")
    specialnames = [p for p in corpus.passages if p.id == "pydoc:specialnames"]
    chunks = chunk_passages(specialnames, ChunkingSettings())
    enter = next(c for c in chunks if "object.__enter__(self)" in c.text)
    assert enter.title == "Special method names › With Statement Context Managers"


def test_chunks_respect_the_token_size_and_sections() -> None:
    text = "\n\n".join(f"Section {i}. " + "word " * 40 for i in range(6))
    chunks = chunk_passages([Passage("d", "Doc", text)], ChunkingSettings(chunk_tokens=60, overlap_tokens=10))
    assert len(chunks) >= 6
    assert all(count_tokens(c.text) <= 60 for c in chunks)
    # structure first: no chunk starts in the middle of a section when sections fit alone
    assert all(c.text.startswith("Section") for c in chunks)


def test_long_paragraph_is_split_recursively_with_overlap() -> None:
    sentence = "The quick brown fox jumps over the lazy dog number {}. "
    text = "".join(sentence.format(i) for i in range(80))
    chunks = chunk_passages([Passage("d", "Doc", text)], ChunkingSettings(chunk_tokens=50, overlap_tokens=12))
    assert len(chunks) > 5 and all(count_tokens(c.text) <= 50 for c in chunks)
    first_words, second_words = chunks[0].text.split(), chunks[1].text.split()
    assert set(first_words[-4:]) & set(second_words[:12]), "consecutive chunks should overlap"


def test_no_chunk_starts_after_an_initial_or_a_title() -> None:
    # NQ-open's Harpers Ferry passage: cut after "E.", a chunk began "Lee was in overall command …"
    # and the reader answered "Lee".
    sentences = [
        "Brown's party of 22 was defeated by a company of U.S. Marines, led by First Lieutenant Israel Greene.",
        "Colonel Robert E. Lee was in overall command of the operation to retake the arsenal.",
        "The raid was watched by Dr. Hunter and by J. E. B. Stuart, who carried the note.",
        "John Brown had originally asked Harriet Tubman and Frederick Douglass to join him.",
    ]
    text = " ".join(sentences * 6)
    chunks = chunk_passages([Passage("d", "Doc", text)], ChunkingSettings(chunk_tokens=40, overlap_tokens=0))
    assert len(chunks) > 6
    openings = {sentence.split()[0] for sentence in sentences}
    assert all(c.text.split()[0] in openings for c in chunks), [c.text[:30] for c in chunks]


def test_chunk_ids_are_stable_and_unique() -> None:
    passages = [Passage("a", "A", "one two three\n\nfour five six"), Passage("b", "B", "seven eight")]
    first = chunk_passages(passages, ChunkingSettings())
    second = chunk_passages(passages, ChunkingSettings())
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == len(first)


def test_bad_chunking_settings_are_refused() -> None:
    with pytest.raises(ConfigError):
        chunk_passages([Passage("a", "A", "x")], ChunkingSettings(chunk_tokens=8))
    with pytest.raises(ConfigError):
        chunk_passages([Passage("a", "A", "x")], ChunkingSettings(chunk_tokens=64, overlap_tokens=64))


def test_folder_corpus_skips_what_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Alpha text about turtles.", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.md").write_text("# Beta\n\nMarkdown about owls.", encoding="utf-8")
    (tmp_path / "c.html").write_text(
        "<html><head><title>Gamma page</title><script>var x=1;</script></head><body><nav>menu</nav>"
        "<p>Gamma body about foxes.</p></body></html>",
        encoding="utf-8",
    )
    (tmp_path / "d.txt").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "e.txt").write_bytes("caf\xe9 ".encode("latin-1") * 50 + b"\xff\xfe" * 100)
    (tmp_path / "f.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "g.txt").write_text("   \n", encoding="utf-8")
    (tmp_path / "h.odt").write_bytes(b"PK\x03\x04")
    corpus = load_corpus(str(tmp_path))
    assert [p.id for p in corpus.passages] == ["a.txt", "c.html", "sub/b.md"]
    html = corpus.passages[1]
    assert html.title == "Gamma page" and "foxes" in html.text and "var x" not in html.text and "menu" not in html.text
    reasons = dict(corpus.skipped)
    assert reasons["d.txt"] == "binary file (wrong format)" and reasons["e.txt"] == "not UTF-8 text (wrong format)"
    assert reasons["f.pdf"].startswith("broken or truncated PDF (")  # PDFs are read (tests/unit/test_pdf_ingestion.py)
    assert reasons["g.txt"] == "no text (empty)"
    assert reasons["h.odt"].startswith("unsupported file type .odt (wrong format: .docx, .htm, .html, .markdown, .md")
    assert corpus.identity == str(tmp_path.resolve())


def test_jsonl_corpus_and_its_errors(tmp_path: Path) -> None:
    good = tmp_path / "c.jsonl"
    rows = [{"id": "1", "title": "T1", "text": "first", "url": "u"}, {"id": "1", "title": "dup", "text": "x"}]
    good.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    corpus = load_corpus(str(good))
    assert [p.id for p in corpus.passages] == ["1"] and corpus.passages[0].metadata == {"url": "u"}
    assert "duplicate id 1" in corpus.skipped[0][1]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "text": "ok"}\n{"id": 2, "body": "no text"}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad.jsonl:2: expected an object with a string 'text'"):
        load_corpus(str(bad))
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "1", "text": "ok"\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"broken.jsonl:1: not valid JSON"):
        load_corpus(str(broken))


def test_missing_and_empty_corpora_are_errors(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="does not exist"):
        load_corpus(str(tmp_path / "nope"))
    with pytest.raises(CorpusError, match="has no indexable text; it holds no files"):
        load_corpus(str(tmp_path))
    (tmp_path / "x.bin").write_bytes(b"\x00")
    with pytest.raises(CorpusError, match=r"text; skipped x.bin: unsupported file type .bin \(wrong format"):
        load_corpus(str(tmp_path))


def test_a_corpus_of_one_oversized_file_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corpus_module, "MAX_FILE_BYTES", 2 * 1024 * 1024)
    (tmp_path / "big.txt").write_bytes(b"word" * (3 * 256 * 1024))  # 3.0 MiB of text
    with pytest.raises(CorpusError) as info:
        load_corpus(str(tmp_path))
    assert info.value.message.endswith("has no indexable text; skipped big.txt: too large (3.0 MiB, limit 2.0 MiB)")
    jsonl = (tmp_path / "big.txt").rename(tmp_path / "big.jsonl")
    with pytest.raises(CorpusError, match=r"big.jsonl cannot be read: too large \(3.0 MiB, limit 2.0 MiB\)"):
        load_corpus(str(jsonl))
    monkeypatch.setattr(corpus_module, "MAX_FILE_BYTES", 3 * 1024 * 1024 - 1)
    with pytest.raises(CorpusError, match=r"too large \(3,145,728 bytes, limit 3,145,727 bytes\)"):
        load_corpus(str(jsonl))


def test_unreadable_files_and_many_skipped_files_say_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a.txt", "b.txt", "c.txt", "d.txt", "e.txt"):
        (tmp_path / name).write_text("text", encoding="utf-8")
    read_bytes = Path.read_bytes

    def denied(self: Path) -> bytes:
        if self.suffix == ".txt":
            raise PermissionError(13, "Permission denied", str(self))
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", denied)  # root reads any file, so chmod cannot make one unreadable
    with pytest.raises(CorpusError) as info:
        load_corpus(str(tmp_path))
    message = info.value.message
    assert "; skipped a.txt: unreadable: Permission denied; b.txt: unreadable" in message
    assert message.endswith("c.txt: unreadable: Permission denied; 2 more") and "d.txt" not in message


def _deny_listing(monkeypatch: pytest.MonkeyPatch, *denied: Path) -> None:
    """`os.scandir` of `denied` folders raises PermissionError (root lists any folder, so chmod cannot)."""
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path) in denied:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(corpus_module.os, "scandir", scandir)


def test_an_unreadable_subfolder_is_listed_among_the_skipped_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.txt").write_text("Alpha text about turtles.", encoding="utf-8")
    (tmp_path / "locked" / "deep").mkdir(parents=True)
    (tmp_path / "locked" / "deep" / "b.txt").write_text("Beta text about owls.", encoding="utf-8")
    (tmp_path / "open").mkdir()
    (tmp_path / "open" / "c.txt").write_text("Gamma text about foxes.", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path, target_is_directory=True)  # a cycle: never entered
    _deny_listing(monkeypatch, tmp_path / "locked")
    corpus = load_corpus(str(tmp_path))
    assert [p.id for p in corpus.passages] == ["a.txt", "open/c.txt"]
    assert corpus.skipped == [("locked/", "unreadable folder: Permission denied")]


def test_an_unreadable_corpus_root_says_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("Alpha text about turtles.", encoding="utf-8")
    _deny_listing(monkeypatch, tmp_path)
    with pytest.raises(CorpusError) as info:
        load_corpus(str(tmp_path))
    assert info.value.message == f"corpus folder {tmp_path} cannot be read: permission denied"
    assert "holds no files" not in info.value.one_line()
    with pytest.raises(CorpusError, match="cannot be read: permission denied"):
        check_corpus_readable(str(tmp_path))  # the cheap check before a Studio run is stored says the same


def test_the_cheap_corpus_check_reads_nothing_but_finds_what_a_run_would_fail_on(tmp_path: Path) -> None:
    (tmp_path / "c.jsonl").write_text('{"text": "x"}\n', encoding="utf-8")
    for fine in ("pydoc", str(tmp_path), str(tmp_path / "c.jsonl")):
        check_corpus_readable(fine)
    with pytest.raises(CorpusError, match="corpus path /nonexistent/dir does not exist"):
        check_corpus_readable("/nonexistent/dir")
    with pytest.raises(CorpusError, match=r"corpus path no/such/dir does not exist \(in /"):
        check_corpus_readable("no/such/dir")  # a relative path says which folder it was looked up in

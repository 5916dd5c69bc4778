"""BENCHMARKS.md is the user's results page: its top table is exactly what bench/results_table.py makes
of the committed records, the page stays short, and no file numbers the work sessions behind it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
import results_table  # noqa: E402

SESSION_NUMBERING = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
    r"fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\d+(?:st|nd|rd|th)?|this|that|"
    r"earlier|later|previous|next|last|each|every|no|one)\s+(?:work\s+)?sessions?(?:'s)?\b"
    r"|\bsessions?\s+\d+|\beval_1p5b_s\d+\b|_s1\d\b",
    re.IGNORECASE,
)
SKIP_DIRS = {".venv", ".git", ".typecheck", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache"}
TEXT_SUFFIXES = {".py", ".md", ".sh", ".toml", ".txt", ".json", ".cfg", ".ini", ".yml", ".yaml", ".html", ".js", ""}


def test_the_committed_table_is_the_scripts_output() -> None:
    text = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8")
    committed = results_table.committed_block(text)
    assert committed, "BENCHMARKS.md lost its results-table markers"
    assert committed == results_table.block(), "run: .venv/bin/python bench/results_table.py --write"


def test_the_results_page_is_short_and_opens_with_the_table() -> None:
    lines = (REPO / "BENCHMARKS.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 400
    assert results_table.BEGIN in lines[:20]


def _text_files() -> list[Path]:
    files = []
    for path in REPO.rglob("*"):
        if any(part in SKIP_DIRS for part in path.relative_to(REPO).parts) or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES and not (path.suffix == ".json" and "bench/results/" in str(path)):
            files.append(path)
    return files


def test_no_file_numbers_the_work_sessions() -> None:
    found = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if SESSION_NUMBERING.search(line) and path.name != Path(__file__).name:
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:100]}")
    assert found == [], "\n".join(found[:20])


def _numbered(*words: str) -> str:
    """A phrase built from parts, so this file does not itself number sessions."""
    return " ".join(words)


def test_the_pattern_sees_session_numbering_and_spares_other_sessions() -> None:
    word = "session"
    numbered = (
        _numbered("Seventeenth", word, "(2026-11-27)"),
        _numbered("as this", word, "found"),
        _numbered(word + "s", "6-15"),
        "bench/results/eval_1p5b_" + "s12/x",
        _numbered("no", word, "had run"),
    )
    for text in numbered:
        assert SESSION_NUMBERING.search(text), text
    for other in ('scope="session"', "a Postgres session advisory lock", "start_new_session=True",
                  "an HTTP client session"):  # fmt: skip
        assert not SESSION_NUMBERING.search(other), other

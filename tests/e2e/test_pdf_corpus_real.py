"""A PDF corpus through the real parts (issue 16): PDFs written here with fpdf2, read page by page by
langchain-community's PyPDFLoader, indexed by `anchorgate index` (MiniLM, FAISS, BM25), asked with
`anchorgate ask --json` and the local llama.cpp model; the answer's citation names the PDF page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchorgate.cli import _readable, run
from tests.conftest import E2E_LLM
from tests.unit.test_pdf_ingestion import HARBOR, ORCHARD, write_pdf

pytestmark = pytest.mark.e2e

QUESTIONS = [  # (question, the PDF and page that hold the answer, the answer's words: one must be in it)
    ("Who built the Veldhaven lighthouse?", "harbor_report.pdf", 2, ("brandt",)),
    ("What pollinates the Kessler orchard each spring?", "orchard_notes.pdf", 3, ("bees",)),
]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_pdf_corpus_gives_answers_cited_with_their_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    write_pdf(folder / "harbor_report.pdf", HARBOR)
    write_pdf(folder / "orchard_notes.pdf", ORCHARD)
    write_pdf(folder / "scan.pdf", [None, None])  # no text layer: skipped and counted
    cache = ["--set", f"resources.cache_dir={tmp_path / 'cache'}"]

    code, out, err = _cli(["index", str(folder), *cache], capsys)
    assert code == 0, err
    assert out.startswith("indexed 2 documents as ") and "skipped 1 file:" in err
    assert "scan.pdf: no extractable text (scanned/image-only?)" in err and "Traceback" not in err

    outcomes = []  # printed at the end (in -rP logs): stdout is the next command's JSON meanwhile
    for question, pdf, page, words in QUESTIONS:
        args = ["ask", question, "--corpus", str(folder), "--llm", E2E_LLM, "--json", *cache]
        code, out, err = _cli([*args, "--set", f"resources.checkpoint_db={tmp_path / 'c.sqlite'}"], capsys)
        assert code == 0, err
        result: dict[str, Any] = json.loads(out)
        cited = [(Path(c["source"]).name, c.get("page")) for c in result["citations"]]
        outcomes.append(f"{question} → {result['decision']} {result['answer']!r} {cited}")
        assert result["decision"] == "STOP", result["reason"]
        assert any(word in result["answer"].lower() for word in words), result["answer"]
        assert (pdf, page) in cited, "the answer cites the PDF page that holds it"
        context_ids = [entry["id"] for entry in result["telemetry"]["context"]]
        assert any(cid.startswith(f"{pdf}#p{page}#") for cid in context_ids), context_ids
        printed = _readable(result)  # what `anchorgate ask` prints without --json
        assert f"{folder / pdf} p.{page}" in printed
    print("\n".join(outcomes))

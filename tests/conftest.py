"""Shared test fixtures: where the public datasets live, and the model the slow real-model tests use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DATASETS_DIR = Path(os.environ.get("ANCHORGATE_DATASETS", REPO_ROOT.parent / "shared" / "datasets"))
# End-to-end tests pin the packaged 0.5B model: about half the default 1.5B's time per call, and
# the scenarios they assert (a misplaced citation, a second retrieval pass) were written against
# its replies. `tests/e2e/test_default_model_real.py` runs the default (`local`, the 1.5B) itself.
E2E_LLM = "local-0.5b"


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """The read-only folder of public QA datasets (`../shared/datasets`), never copied here."""
    if not DATASETS_DIR.is_dir():
        pytest.fail(f"datasets folder not found at {DATASETS_DIR}; set ANCHORGATE_DATASETS")
    return DATASETS_DIR

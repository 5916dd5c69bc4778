"""Shared test fixtures: where the public datasets live, and markers for slow real-model tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DATASETS_DIR = Path(os.environ.get("ANCHORGATE_DATASETS", REPO_ROOT.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """The read-only folder of public QA datasets (`../shared/datasets`), never copied here."""
    if not DATASETS_DIR.is_dir():
        pytest.fail(f"datasets folder not found at {DATASETS_DIR}; set ANCHORGATE_DATASETS")
    return DATASETS_DIR

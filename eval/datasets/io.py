"""Safe reading of dataset files: compressed streams, JSON Lines, JSON and CSV.

Every reader is bounded and never crashes on damaged input: a truncated bz2/gzip stream stops
reading and is recorded, an over-long line is skipped without being held in memory, invalid
UTF-8 is replaced (and recorded). Files in the wrong format raise `DatasetFormatError` naming
the file, line and what was expected. Field helpers give the same kind of message for records.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import hashlib
import io
import json
import lzma
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

from .schema import DatasetFormatError

MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longest JSON Lines record read (a full CRAG line with 5 HTML pages is a few MB)."""

_CHUNK = 1024 * 1024
_STREAM_ERRORS: tuple[type[BaseException], ...] = (EOFError, OSError, lzma.LZMAError, zlib.error)


@dataclass
class LoadLog:
    """Collects skipped records and repairs while loading; entries are kept once, in order."""

    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    _seen: set[tuple[str, str, str]] = field(default_factory=set, repr=False)

    def skip(self, where: str, reason: str) -> None:
        """Record that the record at `where` was dropped, and why."""
        self._add(self.skipped, "skip", where, reason)

    def warn(self, where: str, reason: str) -> None:
        """Record that the data at `where` was kept but repaired, and how."""
        self._add(self.warnings, "warn", where, reason)

    def _add(self, target: list[tuple[str, str]], kind: str, where: str, reason: str) -> None:
        key = (kind, where, reason)
        if key not in self._seen:
            self._seen.add(key)
            target.append((where, reason))


def is_compressed(path: Path) -> bool:
    """Whether `path` is read through a decompressor (by suffix)."""
    return path.suffix.lower() in {".bz2", ".gz", ".xz"}


def open_binary(path: Path) -> IO[bytes]:
    """Open `path` for binary reading, decompressing .bz2/.gz/.xz transparently."""
    suffix = path.suffix.lower()
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    if suffix == ".xz":
        return lzma.open(path, "rb")
    return open(path, "rb")


def decode(data: bytes, where: str, log: LoadLog) -> str:
    """UTF-8 text of `data` (BOM dropped); invalid bytes become U+FFFD and are recorded."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        log.warn(where, f"invalid UTF-8 at byte {exc.start}; replaced with U+FFFD")
        text = data.decode("utf-8", errors="replace")
    return text.removeprefix("\ufeff")


def iter_lines(path: Path, log: LoadLog, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text) for each line, bounded and tolerant of damage.

    A line longer than `max_line_bytes` is skipped (its rest is read in chunks and discarded).
    A truncated or corrupt compressed stream ends the iteration with a recorded skip.
    """
    lineno = 0
    with open_binary(path) as handle:
        while True:
            try:
                raw = handle.readline(max_line_bytes + 1)
                if not raw:
                    if lineno == 0:
                        log.skip(str(path), "empty file")
                    return
                lineno += 1
                if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                    _discard_rest_of_line(handle)
                    log.skip(f"{path}, line {lineno}", f"line longer than {max_line_bytes} bytes")
                    continue
            except _STREAM_ERRORS as exc:
                if not is_compressed(path):
                    raise
                log.skip(f"{path}, after line {lineno}", f"compressed stream truncated or corrupt ({exc})")
                return
            yield lineno, decode(raw, f"{path}, line {lineno}", log).rstrip("\r\n")


def _discard_rest_of_line(handle: IO[bytes]) -> None:
    """Read and drop the remainder of an over-long line without keeping it."""
    while True:
        chunk = handle.readline(_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def iter_jsonl(
    path: Path, log: LoadLog, expected: str, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each JSON Lines record.

    A first record that is not a JSON object means the file is in the wrong format and raises
    `DatasetFormatError`; a later unparsable line (damage, truncation) is skipped and recorded.
    A valid JSON value that is not an object always raises.
    """
    seen_record = False
    for lineno, line in iter_lines(path, log, max_line_bytes):
        if not line.strip():
            continue
        where = f"{path}, line {lineno}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            if not seen_record:
                raise DatasetFormatError(
                    f"{where}: not a JSON object ({exc.msg} at column {exc.colno}); expected {expected}"
                ) from exc
            log.skip(where, f"invalid JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(value, dict):
            raise DatasetFormatError(f"{where}: expected a JSON object ({expected}), got {_kind(value)}")
        seen_record = True
        yield lineno, value


def read_bytes(path: Path, log: LoadLog) -> bytes | None:
    """Whole (decompressed) content of `path`; None when the stream is truncated/corrupt (recorded)."""
    with open_binary(path) as handle:
        try:
            return handle.read()
        except _STREAM_ERRORS as exc:
            if not is_compressed(path):
                raise
            log.skip(str(path), f"compressed stream truncated or corrupt ({exc}); file not loaded")
            return None


def read_json(path: Path, log: LoadLog, expected: str) -> Any | None:
    """Parse a whole-file JSON document; None (recorded) for an empty or truncated file.

    Syntax errors raise `DatasetFormatError` with the line and column and what was expected.
    """
    data = read_bytes(path, log)
    if data is None:
        return None
    text = decode(data, str(path), log)
    if not text.strip():
        log.skip(str(path), "empty file")
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetFormatError(
            f"{path}, line {exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno});"
            f" expected {expected}"
        ) from exc


def iter_csv(
    path: Path, log: LoadLog, required: Sequence[str], expected: str
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) of a CSV file with a header containing the `required` columns."""
    data = read_bytes(path, log)
    if data is None:
        return
    text = decode(data, str(path), log)
    if not text.strip():
        log.skip(str(path), "empty file")
        return
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
        missing = [name for name in required if name not in header]
        if missing:
            raise DatasetFormatError(
                f"{path}, line 1: CSV header lacks column(s) {missing}; expected {expected},"
                f" got header {header[:8]}"
            )
        for row in reader:
            where = f"{path}, line {reader.line_num}"
            if None in row or any(row.get(name) is None for name in required):
                log.skip(where, f"row does not have the {len(header)} fields of the header")
                continue
            yield reader.line_num, row
    except csv.Error as exc:
        raise DatasetFormatError(
            f"{path}, line {reader.line_num}: malformed CSV ({exc}); expected {expected}"
        ) from exc


def first_line(path: Path, max_bytes: int = MAX_LINE_BYTES) -> str | None:
    """The first non-blank line of `path` (decompressed, bounded); None if there is none."""
    for _, line in iter_lines(path, LoadLog(), max_bytes):
        if line.strip():
            return line
    return None


def head_text(path: Path, max_bytes: int = 256 * 1024) -> str:
    """Up to `max_bytes` of decoded text from the start of `path` (for format detection)."""
    with open_binary(path) as handle:
        try:
            data = handle.read(max_bytes)
        except _STREAM_ERRORS:
            if not is_compressed(path):
                raise
            data = b""  # detection then falls back to the file name; loading records the damage
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def short_hash(*parts: str, length: int = 16) -> str:
    """A stable hex digest of `parts` (for ids of passages that upstream leaves unnamed)."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8", errors="replace"), usedforsecurity=False)
    return digest.hexdigest()[:length]


def _kind(value: Any) -> str:
    """JSON type name of `value`, for error messages."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def require(
    record: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, expected: str
) -> Any:
    """`record[key]` checked to be of `kind`; otherwise a `DatasetFormatError` naming the field."""
    if key not in record:
        raise DatasetFormatError(f"{where}: missing field '{key}'; expected {expected}")
    value = record[key]
    kinds = _as_tuple(kind)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise DatasetFormatError(f"{where}: field '{key}' is {_kind(value)}; expected {expected}")
    return value


def require_text(record: dict[str, Any], key: str, where: str, expected: str) -> str:
    """A non-empty string field (stripped), or a `DatasetFormatError` naming it."""
    value: str = require(record, key, str, where, expected).strip()
    if not value:
        raise DatasetFormatError(f"{where}: field '{key}' is empty; expected {expected}")
    return value


def optional_str(record: dict[str, Any], key: str, where: str) -> str | None:
    """A string-or-null field (absent means None)."""
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    raise DatasetFormatError(f"{where}: field '{key}' is {_kind(value)}; expected a string or null")


def string_list(value: Any, key: str, where: str) -> list[str]:
    """`value` checked to be a list of strings (message names `key` otherwise)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DatasetFormatError(f"{where}: field '{key}' must be a list of strings, got {_kind(value)}")
    return value


def unique_strings(values: Sequence[str]) -> tuple[str, ...]:
    """Stripped, non-empty `values` without duplicates, first occurrence first."""
    out: dict[str, None] = {}
    for value in values:
        text = value.strip()
        if text:
            out.setdefault(text, None)
    return tuple(out)


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)

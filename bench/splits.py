"""Which rows of each evaluation dataset informed a setting or rule: `bench/splits.json`, read and checked.

    sys.path.insert(0, str(Path(__file__).resolve().parent))      # a bench script, as for `common`
    from splits import fresh_ranges, is_held_out, split_label, tuned_rows

    .venv/bin/python bench/splits.py [KEY ...] [--kinds outputs,gold,text]   # tuned / seen / fresh per dataset

Rows are 1-based positions in the order `anchorgate eval` iterates a dataset (what `--skip K --limit N`
count: rows K+1..N); the demo set's rows are its ids' numbers (d21 is row 21, ids are accepted too).
A row is tuned when anything of it (a system's answers, its gold, its question or passage text; the
entry's `kind`) informed a setting, threshold, word list, regex, prompt or rule. Every query counts
every kind unless `kinds` names fewer. Held out means: no row tuned. Fresh means: not tuned, never
answered by a system and never seen in a bench. The file is validated on load (row tokens well
formed and within `total_rows`, no seen row also tuned, entries complete); a bad file or an unknown
dataset key raises `ValueError` naming what is wrong.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

DEFAULT_PATH = Path(__file__).resolve().with_name("splits.json")
KINDS: tuple[str, ...] = ("outputs", "gold", "text")
Label = Literal["tuned", "held out", "mixed"]

_DATASET_FIELDS = {"path", "language", "order", "total_rows", "id_prefix", "tuned", "answered", "seen_held_out",
                   "screened", "notes"}  # fmt: skip
_LISTS: dict[str, tuple[str, ...]] = {  # entry list -> its required fields besides rows and evidence
    "tuned": ("kind", "informed"),
    "answered": ("what",),
    "seen_held_out": (),
    "screened": ("checked",),
}


class SplitsError(ValueError):
    """The splits file is malformed: the message names the file, the dataset, the entry and the token."""


@dataclass(frozen=True)
class Entry:
    """One entry of a dataset's list: its rows, and for tuned rows what informed what."""

    rows: frozenset[int]
    tokens: tuple[str, ...]
    evidence: tuple[str, ...]
    kind: str | None = None
    informed: tuple[str, ...] = ()
    note: str = ""  # `what` of an answered entry, `checked` of a screened one


@dataclass(frozen=True)
class DatasetSplits:
    """One dataset key's rows: tuned (by kind), answered, seen held out, screened."""

    key: str
    path: str
    language: str | None
    order: str
    total_rows: int
    tuned: tuple[Entry, ...]
    answered: tuple[Entry, ...]
    seen_held_out: tuple[Entry, ...]
    screened: tuple[Entry, ...]
    id_prefix: str = ""

    def tuned_rows(self, kinds: Iterable[str] = KINDS) -> frozenset[int]:
        """Rows any entry of these kinds lists as tuned."""
        wanted = _kinds(kinds)
        return frozenset().union(*(e.rows for e in self.tuned if e.kind in wanted))

    def seen_rows(self, kinds: Iterable[str] = KINDS) -> frozenset[int]:
        """Rows answered or seen, and not tuned by these kinds: held out, but no longer fresh."""
        run = frozenset().union(*(e.rows for e in (*self.answered, *self.seen_held_out)))
        return run - self.tuned_rows(kinds)

    def fresh_rows(self, kinds: Iterable[str] = KINDS) -> frozenset[int]:
        """Rows neither tuned (by these kinds), answered nor seen."""
        return frozenset(range(1, self.total_rows + 1)) - self.tuned_rows(kinds) - self.seen_rows(kinds)

    def rows_of(self, rows: Iterable[int | str]) -> frozenset[int]:
        """Row numbers (or, for an id-numbered set, ids such as "d21"), checked against the dataset's size."""
        out: set[int] = set()
        for row in rows:
            number = _row_number(row, self.id_prefix)
            if number is None or not 1 <= number <= self.total_rows:
                raise ValueError(f"{self.key}: row {row!r} is not a row of 1-{self.total_rows}")
            out.add(number)
        if not out:
            raise ValueError(f"{self.key}: no rows given")
        return frozenset(out)


@dataclass(frozen=True)
class Splits:
    """Every dataset key of a splits file."""

    path: Path
    datasets: Mapping[str, DatasetSplits]

    def dataset(self, key: str) -> DatasetSplits:
        """The entry of `key`; ValueError naming it and the known keys when there is none."""
        found = self.datasets.get(key)
        if found is None:
            known = ", ".join(sorted(self.datasets))
            raise ValueError(f"unknown dataset key {key!r} in {self.path}; known keys: {known}")
        return found

    def tuned_rows(self, key: str, kinds: Iterable[str] = KINDS) -> set[int]:
        """The rows of `key` that informed something (of these kinds)."""
        return set(self.dataset(key).tuned_rows(kinds))

    def is_held_out(self, key: str, rows: Iterable[int | str], kinds: Iterable[str] = KINDS) -> bool:
        """True only if none of `rows` is tuned."""
        data = self.dataset(key)
        return not data.rows_of(rows) & data.tuned_rows(kinds)

    def split_label(self, key: str, first: int, last: int, kinds: Iterable[str] = KINDS) -> Label:
        """"tuned" when every row of first..last is tuned, "held out" when none is, else "mixed"."""
        if first > last:
            raise ValueError(f"{key}: first row {first} is after last row {last}")
        data = self.dataset(key)
        tuned = data.rows_of(range(first, last + 1)) & data.tuned_rows(kinds)
        return "held out" if not tuned else "tuned" if len(tuned) == last - first + 1 else "mixed"

    def fresh_ranges(self, key: str, kinds: Iterable[str] = KINDS) -> list[tuple[int, int]]:
        """Runs of rows never tuned (by these kinds), answered nor seen, as inclusive (first, last) pairs."""
        return to_ranges(self.dataset(key).fresh_rows(kinds))


def to_ranges(rows: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted inclusive runs of consecutive rows: {1, 2, 3, 7} -> [(1, 3), (7, 7)]."""
    runs: list[tuple[int, int]] = []
    for row in sorted(set(rows)):
        if runs and row == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs


def format_ranges(rows: Iterable[int]) -> str:
    """"1-3, 7" for {1, 2, 3, 7}; "-" for none."""
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in to_ranges(rows)) or "-"


def dataset_key(dataset_path: str | Path, language: str | None = None) -> str:
    """The key of a run's dataset: its folder's name (a file's parent folder), NoMIRACL per language ("nomiracl/en")."""
    path = Path(dataset_path)
    folder = path.parent.name if path.suffix else path.name
    return f"{folder}/{language}" if folder == "nomiracl" and language else folder


def load_splits(path: str | Path = DEFAULT_PATH) -> Splits:
    """Read and validate a splits file; SplitsError (a ValueError) says what is malformed and where."""
    source = Path(path)
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SplitsError(f"{source}: cannot read the splits file: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("datasets"), dict) or not raw["datasets"]:
        raise SplitsError(f"{source}: expected an object with a non-empty 'datasets' object")
    datasets = {key: _dataset(source, key, value) for key, value in raw["datasets"].items()}
    return Splits(path=source, datasets=datasets)


@lru_cache(maxsize=8)
def _cached(path: Path) -> Splits:
    return load_splits(path)


def tuned_rows(dataset_key: str, *, kinds: Iterable[str] = KINDS, path: str | Path = DEFAULT_PATH) -> set[int]:
    """The rows of `dataset_key` that informed something (every kind unless `kinds` says fewer)."""
    return _cached(Path(path)).tuned_rows(dataset_key, kinds)


def is_held_out(
    dataset_key: str, rows: Iterable[int | str], *, kinds: Iterable[str] = KINDS, path: str | Path = DEFAULT_PATH
) -> bool:
    """True only if none of `rows` is tuned."""
    return _cached(Path(path)).is_held_out(dataset_key, rows, kinds)


def split_label(
    dataset_key: str, first: int, last: int, *, kinds: Iterable[str] = KINDS, path: str | Path = DEFAULT_PATH
) -> Label:
    """"tuned", "held out" or "mixed" for rows first..last."""
    return _cached(Path(path)).split_label(dataset_key, first, last, kinds)


def fresh_ranges(
    dataset_key: str, *, kinds: Iterable[str] = KINDS, path: str | Path = DEFAULT_PATH
) -> list[tuple[int, int]]:
    """Inclusive runs of rows never tuned, answered nor seen."""
    return _cached(Path(path)).fresh_ranges(dataset_key, kinds)


def _kinds(kinds: Iterable[str]) -> frozenset[str]:
    wanted = frozenset([kinds] if isinstance(kinds, str) else kinds)
    unknown = wanted - set(KINDS)
    if unknown or not wanted:
        raise ValueError(f"kinds must be some of {', '.join(KINDS)}; got {sorted(wanted)}")
    return wanted


def _row_number(row: int | str, prefix: str) -> int | None:
    if isinstance(row, bool):
        return None
    if isinstance(row, int):
        return row
    text = row.removeprefix(prefix) if prefix else row
    return int(text) if text.isdigit() else None


def _dataset(source: Path, key: str, value: Any) -> DatasetSplits:
    where = f"{source}: dataset {key!r}"
    if not isinstance(value, dict):
        raise SplitsError(f"{where}: expected an object")
    unknown = set(value) - _DATASET_FIELDS
    if unknown:
        raise SplitsError(f"{where}: unknown field(s) {sorted(unknown)}")
    total = value.get("total_rows")
    if not isinstance(total, int) or isinstance(total, bool) or total < 1:
        raise SplitsError(f"{where}: 'total_rows' must be a positive integer, got {total!r}")
    for field in ("path", "order"):
        if not isinstance(value.get(field), str) or not value[field].strip():
            raise SplitsError(f"{where}: '{field}' must be a non-empty string")
    language = value.get("language")
    if language is not None and not isinstance(language, str):
        raise SplitsError(f"{where}: 'language' must be a string or null")
    prefix = value.get("id_prefix", "")
    if not isinstance(prefix, str):
        raise SplitsError(f"{where}: 'id_prefix' must be a string")
    lists = {name: _entries(where, name, value.get(name), total, prefix) for name in _LISTS}
    tuned = frozenset().union(*(e.rows for e in lists["tuned"]))
    for index, entry in enumerate(lists["seen_held_out"]):
        overlap = entry.rows & tuned
        if overlap:
            raise SplitsError(
                f"{where}: seen_held_out[{index}] rows {format_ranges(overlap)} are also tuned;"
                " a tuned row is not held out"
            )
    return DatasetSplits(
        key=key, path=value["path"], language=language, order=value["order"], total_rows=total,
        tuned=lists["tuned"], answered=lists["answered"], seen_held_out=lists["seen_held_out"],
        screened=lists["screened"], id_prefix=prefix,
    )  # fmt: skip


def _entries(where: str, name: str, raw: Any, total: int, prefix: str) -> tuple[Entry, ...]:
    if not isinstance(raw, list):
        raise SplitsError(f"{where}: '{name}' must be a list of entries")
    required = _LISTS[name]
    allowed = {"rows", "evidence", *required}
    entries = []
    for index, item in enumerate(raw):
        at = f"{where}: {name}[{index}]"
        if not isinstance(item, dict):
            raise SplitsError(f"{at}: expected an object")
        unknown = set(item) - allowed
        if unknown:
            raise SplitsError(f"{at}: unknown field(s) {sorted(unknown)}; expected {sorted(allowed)}")
        tokens = item.get("rows")
        if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
            raise SplitsError(f"{at}: 'rows' must be a non-empty list of row tokens such as \"1-80\"")
        rows = frozenset().union(*(_parse_token(at, token, total, prefix) for token in tokens))
        evidence = _strings(at, item, "evidence")
        kind = item.get("kind")
        if name == "tuned" and kind not in KINDS:
            raise SplitsError(f"{at}: 'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
        informed = _strings(at, item, "informed") if name == "tuned" else ()
        note = ""
        for field in ("what", "checked"):
            if field in required:
                if not isinstance(item.get(field), str) or not item[field].strip():
                    raise SplitsError(f"{at}: '{field}' must be a non-empty string")
                note = item[field]
        entries.append(
            Entry(rows=rows, tokens=tuple(tokens), evidence=evidence, kind=kind, informed=informed, note=note)
        )
    return tuple(entries)


def _strings(at: str, item: dict[str, Any], field: str) -> tuple[str, ...]:
    value = item.get(field)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise SplitsError(f"{at}: '{field}' must be a non-empty list of non-empty strings")
    return tuple(value)


def _parse_token(at: str, token: str, total: int, prefix: str) -> frozenset[int]:
    """'a', 'a-b' or 'a-b/s' (ids with the dataset's prefix: 'd21-d45') as a set of rows within 1..total."""
    p = re.escape(prefix)
    match = re.fullmatch(rf"{p}(\d+)(?:-{p}(\d+)(?:/(\d+))?)?", token)
    if match is None:
        raise SplitsError(f"{at}: row token {token!r} is not 'a', 'a-b' or 'a-b/s'")
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else first
    step = int(match.group(3)) if match.group(3) else 1
    if first > last or step < 1:
        raise SplitsError(f"{at}: row token {token!r} is not a range 'a-b' with a <= b (and a step >= 1)")
    if first < 1 or last > total:
        raise SplitsError(f"{at}: row token {token!r} is outside the dataset's rows 1-{total}")
    return frozenset(range(first, last + 1, step))


def main() -> None:
    parser = argparse.ArgumentParser(description="Tuned, seen and fresh rows per dataset (bench/splits.json).")
    parser.add_argument("keys", nargs="*", help="dataset keys (default: all)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="kinds of tuning that count (default: all)")
    parser.add_argument("--path", default=str(DEFAULT_PATH))
    args = parser.parse_args()
    splits = load_splits(args.path)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    print(f"kinds counted: {', '.join(kinds)}")
    print("| dataset | rows | tuned | seen held out | fresh |")
    print("|---|---|---|---|---|")
    for key in args.keys or list(splits.datasets):
        data = splits.dataset(key)
        print(f"| {key} | {data.total_rows} | {format_ranges(data.tuned_rows(kinds))} | "
              f"{format_ranges(data.seen_rows(kinds))} | {format_ranges(data.fresh_rows(kinds))} |")  # fmt: skip


if __name__ == "__main__":
    main()

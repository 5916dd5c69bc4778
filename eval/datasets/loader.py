"""`load_dataset`: dispatch a file or folder to its format loader and assemble a `QADataset`.

Items stream from the format loaders lazily, so `limit` stops reading (and HTML parsing) early.
A folder holding several files of one format is read in name order: files that are subsets of
one benchmark (ClapNQ answerable/unanswerable, NoMIRACL relevant/non-relevant per language) are
interleaved round-robin so any prefix, and thus any `limit`, is balanced; other multi-file
folders (NQ parts, HaluEval variants) are concatenated. `skip` leaves out the first items of that
order (a held-out split: `skip=150, limit=250` is items 151–250). Neither `limit` nor `skip` ever
shrinks a pooled corpus.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path

from anchorgate.tools.corpus.documents import Passage

from . import clapnq, crag, falseqa, generic, halueval, hotpotqa, indonlu, nomiracl, nq, squad
from .detect import FORMATS, detect_format, known_formats_hint
from .io import LoadLog
from .schema import ANSWERS_UNKNOWN, DatasetFormatError, QADataset, QAItem

ItemsFn = Callable[[Path, LoadLog], Iterator[QAItem]]
CorpusFn = Callable[[Sequence[Path], LoadLog], tuple[Passage, ...]]


@dataclasses.dataclass(frozen=True)
class FormatSpec:
    """How one format is read: per-file item iterator, folder file selection, pooled corpus."""

    iter_file: ItemsFn
    select: Callable[[Path], list[Path]]
    interleave: bool = False
    corpus: CorpusFn | None = None
    default_corpus: Callable[[Path], Path | None] | None = None


def _by_predicate(predicate: Callable[[Path], bool]) -> Callable[[Path], list[Path]]:
    return lambda folder: sorted(p for p in folder.iterdir() if p.is_file() and predicate(p))


SPECS: dict[str, FormatSpec] = {
    "crag": FormatSpec(crag.iter_items, _by_predicate(crag.is_data_file)),
    "hotpotqa": FormatSpec(hotpotqa.iter_items, _by_predicate(hotpotqa.is_data_file),
                           default_corpus=hotpotqa.default_corpus_path),
    "nq-oracle": FormatSpec(nq.iter_items, _by_predicate(nq.is_data_file), corpus=nq.load_corpus),
    "clapnq": FormatSpec(clapnq.iter_items, _by_predicate(clapnq.is_data_file), interleave=True),
    "nomiracl": FormatSpec(nomiracl.iter_items, _by_predicate(nomiracl.is_data_file), interleave=True),
    "squad": FormatSpec(squad.iter_items, _by_predicate(squad.is_data_file), corpus=squad.load_corpus),
    "indonlu": FormatSpec(indonlu.iter_items, indonlu.select_files),
    "halueval": FormatSpec(halueval.iter_items, _by_predicate(halueval.is_data_file)),
    "falseqa": FormatSpec(falseqa.iter_items, _by_predicate(falseqa.is_data_file)),
    "covidqa": FormatSpec(partial(squad.iter_items, source="covidqa"), _by_predicate(squad.is_data_file),
                          corpus=partial(squad.load_corpus, source="covidqa")),
    "jsonl": FormatSpec(generic.iter_items, _by_predicate(generic.is_data_file),
                        default_corpus=generic.default_corpus_path),
}  # fmt: skip
assert tuple(SPECS) == FORMATS
ALIASES = {"generic": "jsonl", "nq": "nq-oracle", "nq_oracle": "nq-oracle", "covid_qa": "covidqa",
           "squad2": "squad", "facqa": "indonlu"}  # fmt: skip


def load_dataset(
    path: str | Path,
    fmt: str = "auto",
    *,
    corpus_path: str | Path | None = None,
    limit: int | None = None,
    language: str | None = None,
    skip: int = 0,
) -> QADataset:
    """Load a dataset file or folder in format `fmt` ("auto" detects it) into a `QADataset`.

    `limit` keeps the first N items in the (interleaved) file order; `skip` leaves out the first K
    of those, so `skip=K, limit=N` keeps items K+1…N (none when K >= N); `language` keeps only
    items with that language tag. Both `limit` and `skip` count items after the language filter
    and the removal of duplicate ids (a duplicate is dropped even when its first occurrence is
    skipped). `corpus_path` names a corpus file (generic corpus JSONL, or a HotpotQA-style JSON
    corpus) that replaces any pooled corpus.
    """
    target = Path(path)
    if not target.exists():
        raise FileNotFoundError(f"dataset path not found: {target}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0 or None, got {limit}")
    if skip < 0:
        raise ValueError(f"skip must be >= 0, got {skip}")
    name = detect_format(target) if fmt == "auto" else ALIASES.get(fmt, fmt)
    spec = SPECS.get(name)
    if spec is None:
        raise DatasetFormatError(f"unknown dataset format {fmt!r}; {known_formats_hint()}")
    files = spec.select(target) if target.is_dir() else [target]
    if not files:
        raise DatasetFormatError(f"{target}: no {name} data files in this folder; {known_formats_hint()}")
    log = LoadLog()
    corpus = _corpus(spec, target, files, corpus_path, log)
    iter_file = spec.iter_file
    if name == "jsonl":
        iter_file = partial(generic.iter_items, corpus_ids=frozenset(p.id for p in corpus or ()))
    streams = [iter_file(f, log) for f in files]
    items = _collect(name, streams, spec.interleave, limit, language, log, skip=skip)
    _check_passage_ids(name, items, corpus, log)
    return QADataset(
        name=_dataset_name(target), format=name, path=str(target), items=items, corpus=corpus,
        skipped=log.skipped, warnings=log.warnings,
    )  # fmt: skip


def _corpus(
    spec: FormatSpec, target: Path, files: list[Path], corpus_path: str | Path | None, log: LoadLog
) -> tuple[Passage, ...] | None:
    """The explicit corpus file, else the format's own pooled corpus, else None."""
    explicit = Path(corpus_path) if corpus_path is not None else None
    if explicit is None and spec.default_corpus is not None:
        explicit = spec.default_corpus(target)
    if explicit is not None:
        return read_corpus_file(explicit, log)
    return spec.corpus(files, log) if spec.corpus is not None else None


def read_corpus_file(path: Path, log: LoadLog) -> tuple[Passage, ...]:
    """A corpus file: generic JSON Lines (*.jsonl*), else a HotpotQA-style JSON corpus."""
    if not path.is_file():
        raise FileNotFoundError(f"corpus file not found: {path}")
    if ".jsonl" in path.name:
        return tuple(generic.read_corpus(path, log))
    return hotpotqa.load_corpus(path, log)


def _collect(
    name: str, streams: list[Iterator[QAItem]], interleave: bool, limit: int | None,
    language: str | None, log: LoadLog, *, skip: int = 0,
) -> tuple[QAItem, ...]:  # fmt: skip
    """Merge per-file streams, filter by language, drop duplicate ids, leave out `skip`, stop at `limit`."""
    merged = _round_robin(streams) if interleave else itertools.chain.from_iterable(streams)
    selected = (item for item in merged if language is None or item.language == language)
    try:
        return tuple(itertools.islice(_unique(name, selected, log), skip, limit))
    finally:
        for stream in streams:
            close = getattr(stream, "close", None)
            if close is not None:
                close()


def _round_robin(streams: Sequence[Iterator[QAItem]]) -> Iterator[QAItem]:
    """One item from each stream in turn until all are exhausted."""
    active = list(streams)
    while active:
        still: list[Iterator[QAItem]] = []
        for stream in active:
            item = next(stream, None)
            if item is not None:
                still.append(stream)
                yield item
        active = still


def _unique(name: str, items: Iterable[QAItem], log: LoadLog) -> Iterator[QAItem]:
    """Items with fresh ids (a repeat is an error in the generic format, else skipped)."""
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            if name == "jsonl":
                raise DatasetFormatError(f"duplicate item id {item.id!r} across files of the dataset")
            log.skip(f"item {item.id}", "duplicate item id; later occurrence dropped")
            continue
        seen.add(item.id)
        if item.answerable and not item.answers and ANSWERS_UNKNOWN not in item.extra:
            item = dataclasses.replace(item, extra={**item.extra, ANSWERS_UNKNOWN: True})
        yield item


def _check_passage_ids(
    name: str, items: tuple[QAItem, ...], corpus: tuple[Passage, ...] | None, log: LoadLog
) -> None:
    """Passage ids must name one text across the dataset (generic: error; upstream: warning)."""
    texts: dict[str, str] = {p.id: p.text for p in corpus or ()}
    for item in items:
        for passage in item.passages:
            known = texts.setdefault(passage.id, passage.text)
            if known is passage.text or known == passage.text:
                continue
            message = f"passage id {passage.id!r} has a different text than an earlier passage with that id"
            if name == "jsonl":
                raise DatasetFormatError(f"item {item.id!r}: {message}")
            log.warn(f"item {item.id}", message)


def _dataset_name(target: Path) -> str:
    name = target.name
    for suffix in (".bz2", ".gz", ".xz", ".jsonl", ".json", ".csv"):
        name = name.removesuffix(suffix)
    return name or str(target)

"""HotpotQA (distractor setting) questions plus an optional pooled corpus.

Questions are a JSON array of {_id, question, answer, type, level, context, supporting_facts}
where `context` is [[title, [sentences]], ...] (the Hugging Face shape {"title": [...],
"sentences": [...]} is accepted too). Passage ids are the Wikipedia titles, unique in HotpotQA,
so per-question passages and the pooled corpus share ids. Supporting facts become
`gold_sentences` and their titles `gold_passage_ids`. The pooled corpus is
`<stem>_corpus.json` next to the questions (a {title: [sentences]} object or a list of
{title, text}), or `corpus_path`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from anchorgate.tools.corpus.documents import Passage

from .io import LoadLog, read_json, require, require_text
from .schema import DatasetFormatError, QAItem

FORMAT = "hotpotqa"
EXPECTED = "a HotpotQA JSON array of {_id, question, answer, context, supporting_facts}"
CORPUS_EXPECTED = "a HotpotQA corpus: an object {title: [sentences]} or an array of {title, text}"


def is_data_file(path: Path) -> bool:
    """Question files in a folder: *.json that are not pooled-corpus files."""
    return path.suffix == ".json" and not path.stem.endswith("corpus")


def iter_items(path: Path, log: LoadLog) -> Iterator[QAItem]:
    """Yield the questions of one HotpotQA JSON file, in file order."""
    data = read_json(path, log, EXPECTED)
    if data is None:
        return
    if not isinstance(data, list):
        raise DatasetFormatError(f"{path}, record 0: expected {EXPECTED}, got a JSON {type(data).__name__}")
    for index, record in enumerate(data):
        where = f"{path}, record {index}"
        if not isinstance(record, dict):
            raise DatasetFormatError(f"{where}: expected an object, got {type(record).__name__}; {EXPECTED}")
        yield _item(record, where, log)


def _item(record: dict[str, Any], where: str, log: LoadLog) -> QAItem:
    item_id = str(record.get("_id", record.get("id", ""))).strip()
    if not item_id:
        raise DatasetFormatError(f"{where}: missing field '_id'; expected {EXPECTED}")
    question = require_text(record, "question", where, EXPECTED)
    answer = require(record, "answer", str, where, EXPECTED).strip()
    paragraphs = _context(record, where)
    passages = tuple(_passage(title, sentences) for title, sentences in paragraphs)
    gold_sentences = tuple(_supporting(record, dict(paragraphs), where, log))
    gold_ids = tuple(dict.fromkeys(title for title, _ in gold_sentences))
    return QAItem(
        id=item_id,
        question=question,
        answers=(answer,) if answer else (),
        answerable=True,
        question_type=record.get("type") if isinstance(record.get("type"), str) else None,
        language="en",
        passages=passages,
        gold_passage_ids=gold_ids,
        gold_sentences=gold_sentences,
        extra={"level": record["level"]} if isinstance(record.get("level"), str) else {},
    )


def _context(record: dict[str, Any], where: str) -> list[tuple[str, list[str]]]:
    """[(title, sentences)] from the list-of-pairs or the Hugging Face dict shape."""
    context = require(record, "context", (list, dict), where, EXPECTED)
    if isinstance(context, dict):
        pairs: Sequence[Any] = list(zip(context.get("title", []), context.get("sentences", []), strict=False))
    else:
        pairs = context
    out: list[tuple[str, list[str]]] = []
    for pos, pair in enumerate(pairs):
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or not isinstance(pair[0], str)
            or not isinstance(pair[1], list)
            or not all(isinstance(s, str) for s in pair[1])
        ):
            raise DatasetFormatError(f"{where}: field 'context[{pos}]' must be [title, [sentences]]")
        out.append((pair[0], list(pair[1])))
    return out


def _supporting(
    record: dict[str, Any], paragraphs: dict[str, list[str]], where: str, log: LoadLog
) -> Iterator[tuple[str, str]]:
    """(title, sentence) for each supporting fact that points at a sentence in the context."""
    facts = record.get("supporting_facts") or []
    if isinstance(facts, dict):
        facts = list(zip(facts.get("title", []), facts.get("sent_id", []), strict=False))
    if not isinstance(facts, list):
        raise DatasetFormatError(
            f"{where}: field 'supporting_facts' must be a list of [title, sentence_index]"
        )
    for fact in facts:
        if not (isinstance(fact, list | tuple) and len(fact) == 2 and isinstance(fact[1], int)):
            raise DatasetFormatError(
                f"{where}: field 'supporting_facts' entry {fact!r} is not [title, index]"
            )
        title, index = fact
        sentences = paragraphs.get(title)
        if sentences is None or not 0 <= index < len(sentences):
            log.warn(where, f"supporting fact {fact!r} is not in the context; dropped from gold")
            continue
        yield title, sentences[index].strip()


def _passage(title: str, sentences: list[str]) -> Passage:
    """A titled paragraph; sentences keep their upstream spacing when joined."""
    return Passage(
        id=title,
        title=title,
        text="".join(sentences).strip(),
        source=FORMAT,
        metadata={"sentences": [s.strip() for s in sentences]},
    )


def default_corpus_path(path: Path) -> Path | None:
    """`<stem>_corpus.json` beside the questions file (or the folder's *_corpus.json), if present."""
    if path.is_dir():
        found = sorted(path.glob("*_corpus.json"))
        return found[0] if len(found) == 1 else None
    candidate = path.with_name(f"{path.stem}_corpus.json")
    return candidate if candidate.is_file() else None


def load_corpus(path: Path, log: LoadLog) -> tuple[Passage, ...]:
    """The pooled corpus: {title: [sentences] | text} or [{title, text|sentences, id?}]."""
    data = read_json(path, log, CORPUS_EXPECTED)
    if data is None:
        return ()
    if isinstance(data, dict):
        rows: list[tuple[str, Any, str]] = [(str(k), v, str(k)) for k, v in data.items()]
    elif isinstance(data, list):
        rows = [_corpus_row(entry, f"{path}, record {i}") for i, entry in enumerate(data)]
    else:
        raise DatasetFormatError(f"{path}, record 0: expected {CORPUS_EXPECTED}")
    passages: dict[str, Passage] = {}
    for index, (title, body, pid) in enumerate(rows):
        where = f"{path}, record {index}"
        if isinstance(body, str):
            body = [body]
        if not isinstance(body, list) or not all(isinstance(s, str) for s in body):
            raise DatasetFormatError(f"{where}: passage '{title}' must be a list of sentences or a text")
        passage = _passage(title, body)
        if not passage.text:
            log.skip(where, f"corpus passage '{title}' has no text")
        elif pid in passages:
            log.skip(where, f"duplicate corpus passage id '{pid}'")
        else:
            passages[pid] = Passage(pid, passage.title, passage.text, passage.source, passage.metadata)
    return tuple(passages.values())


def _corpus_row(entry: Any, where: str) -> tuple[str, Any, str]:
    if not isinstance(entry, dict) or not isinstance(entry.get("title"), str):
        raise DatasetFormatError(f"{where}: missing field 'title'; expected {CORPUS_EXPECTED}")
    body = entry.get("sentences", entry.get("text"))
    return entry["title"], body, str(entry.get("id", entry["title"]))

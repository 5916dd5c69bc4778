"""What `abstain_off_topic_answers` withdraws, replayed over `anchorgate eval` records (no model is run).

    .venv/bin/python bench/off_topic_replay.py 'bench/results/eval_1p5b_2026-11-26_*/*/*.jsonl' [...]

Each answered record's short answer is checked against the chunks its context held (`context_ids`,
read from the evaluation's index cache, so the very text the gate measured) with
`tools/answer/answer_topic.py: answer_off_topic`. An answer the records hold more than once (the same
question and short answer in several runs) counts once. Outcomes: right (the record's `correct`),
wrong (answerable, not correct), unanswerable (answered although the dataset says no answer is in the
passages). The replay withdraws; in the gate, B first spends its second round.
"""

from __future__ import annotations

import argparse
import glob
import json
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchorgate.tools.answer.answer_topic import answer_off_topic
from anchorgate.tools.paths import cache_root


def chunk_texts(cache: Path) -> dict[str, dict[str, str]]:
    """Chunk id -> {title, text} over every index the evaluations built in `cache`."""
    chunks: dict[str, dict[str, str]] = {}
    for docstore in sorted(cache.glob("indexes/*/g*/docstore.sqlite")):
        connection = sqlite3.connect(f"file:{docstore}?mode=ro", uri=True)
        try:
            for chunk_id, title, text in connection.execute("SELECT id, title, text FROM chunks"):
                chunks[chunk_id] = {"title": title or "", "text": text}
        finally:
            connection.close()
    return chunks


def answered(patterns: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(file, record) for each answered record, each question and short answer once."""
    seen: set[tuple[str, str]] = set()
    for path in sorted({p for pattern in patterns for p in glob.glob(pattern)}):
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            key = (record["question"], record["short_answer"])
            if record["abstained"] or not record["short_answer"] or key in seen:
                continue
            seen.add(key)
            yield path, record


def outcome(record: dict[str, Any]) -> str:
    if record["correct"]:
        return "right"
    return "wrong" if record["answerable"] else "unanswerable"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+", help="record files or glob patterns")
    parser.add_argument("--cache", type=Path, default=None, help="anchorgate cache folder (default: the usual one)")
    args = parser.parse_args()
    chunks = chunk_texts(args.cache or cache_root())
    tally: Counter[tuple[str, str]] = Counter()
    for path, record in answered(args.records):
        context = [chunks[i] for i in record["telemetry"].get("context_ids") or [] if i in chunks]
        verdict = answer_off_topic(record["question"], record["short_answer"], context)
        kind = outcome(record)
        tally[(str(verdict), kind)] += 1
        if verdict:
            print(f"- withdrawn · {kind} · {path} · {record['question'][:70]!r} → {record['short_answer'][:60]!r}")
    for verdict in ("True", "False", "None"):
        row = {kind: tally[(verdict, kind)] for kind in ("right", "wrong", "unanswerable")}
        print(f"off topic {verdict:5}: {row}")


if __name__ == "__main__":
    main()

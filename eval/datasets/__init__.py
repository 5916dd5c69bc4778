"""Dataset loaders: public QA benchmarks and a hand-writable JSONL format, in one schema.

    from anchorgate.eval.datasets import load_dataset
    ds = load_dataset("../shared/datasets/hotpotqa_sample/hotpotqa_train.json", limit=10)
    ds.items[0].question, ds.items[0].gold_passage_ids, len(ds.corpus_passages())

See docs/datasets.md for the schema, every supported format and the generic JSONL format.
"""

from __future__ import annotations

from anchorgate.tools.corpus.html_text import domain_of, extract_main_text

from .detect import FORMATS, detect_format
from .generic import dump_corpus_jsonl, dump_jsonl, item_to_json, load_corpus_jsonl
from .loader import load_dataset
from .schema import ANSWERS_UNKNOWN, LONG_FORM_ANSWERS, DatasetFormatError, QADataset, QAItem

__all__ = [
    "ANSWERS_UNKNOWN",
    "LONG_FORM_ANSWERS",
    "FORMATS",
    "DatasetFormatError",
    "QADataset",
    "QAItem",
    "detect_format",
    "domain_of",
    "dump_corpus_jsonl",
    "dump_jsonl",
    "extract_main_text",
    "item_to_json",
    "load_corpus_jsonl",
    "load_dataset",
]

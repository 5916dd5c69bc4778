"""Retrieval benchmark (issue 3): dense vs BM25 vs hybrid vs hybrid + selection, latency, pruning.

    python bench/retrieval.py [--limit N] [--out bench/results/retrieval.json]

Data (read-only, from `<repo>/../shared/datasets` or $ANCHORGATE_DATASETS): HotpotQA sample (100
questions over its pooled corpus of 994 passages) and NQ-open oracle (1,327 questions over the
1,312 pooled gold passages). Each corpus is indexed with the real all-MiniLM-L6-v2 embeddings
(cache: $ANCHORGATE_CACHE/bench, default ~/.cache/anchorgate/bench) with 256-token chunks, so a
passage stays whole where it fits; chunks map back to passages through `doc_id` and every metric
is computed at passage level (a passage counts once, at its best chunk).

Rows: dense, BM25, hybrid RRF, hybrid weighted (floor 0: pure fusion), hybrid RRF with the 0.20
relevance floor, and hybrid RRF (floor 0.20) + selection (pool 24 → keep 8, MMR λ 0.45, at most 2
chunks per passage, +0.07 title-anchor bonus), also with the adaptive λ (factoid 0.2, list 0.6) and
with a fixed λ 0.2. Selection metrics are over the kept 8 only, in selection order. Anchors are a
simple rule (noted in the output): maximal runs of capitalised or numeric words plus quoted
strings, without a leading question word.

Latency: per-query search time (p50/p95, after one warm-up query) excludes query embedding, which
is timed separately. The scale test pools NQ + HotpotQA + ClapNQ + SQuAD-id + NoMIRACL-en passages
(~10k chunks) and replays the NQ and HotpotQA questions against it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np
from langchain_core.embeddings import Embeddings

from anchorgate.eval.datasets import QAItem, load_dataset
from anchorgate.eval.retrieval_metrics import all_gold_in_top_k, dedupe, ndcg_at_k, recall_at_k, reciprocal_rank
from anchorgate.tools.corpus.chunking import ChunkingSettings, chunk_passages
from anchorgate.tools.corpus.documents import Passage, ScoredChunk
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.index.embeddings import embedding_fingerprint, load_embeddings, resolve_embedding_path
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.retrieval.searcher import HybridHit
from anchorgate.tools.retrieval.selection import SelectionResult, SelectionSettings, select

REPO = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("ANCHORGATE_DATASETS", REPO.parent / "shared" / "datasets"))
CACHE = Path(os.environ.get("ANCHORGATE_CACHE", Path.home() / ".cache" / "anchorgate")) / "bench"
CHUNKING = ChunkingSettings(chunk_tokens=256, overlap_tokens=32)
POOL_K, KEEP_K, FLOOR = 24, 8, 0.20
EMBED_SAMPLE = 50  # questions timed at torch's default thread count
MODES: dict[str, dict[str, Any]] = {
    "dense": {"mode": "dense"},
    "bm25": {"mode": "bm25"},
    "hybrid-rrf": {"mode": "hybrid", "fusion": "rrf"},
    "hybrid-weighted": {"mode": "hybrid", "fusion": "weighted"},
    "hybrid-rrf-floor0.2": {"mode": "hybrid", "fusion": "rrf", "relevance_floor": FLOOR},
    # the floor that separates ClapNQ's unanswerable passages (bench/clapnq_relevance_probe.py)
    "hybrid-rrf-floor0.3": {"mode": "hybrid", "fusion": "rrf", "relevance_floor": 0.3},
    # the dense retriever's share of the fusion (0.5 = equal, as above)
    "hybrid-rrf-d0.65": {"mode": "hybrid", "fusion": "rrf", "dense_weight": 0.65},
    "hybrid-weighted-d0.65": {"mode": "hybrid", "fusion": "weighted", "dense_weight": 0.65},
    "hybrid-weighted-d0.8": {"mode": "hybrid", "fusion": "weighted", "dense_weight": 0.8},
}
SELECTIONS = {
    "hybrid+selection": SelectionSettings(pool_k=POOL_K, keep_k=KEEP_K, mmr_diversity=0.45, adaptive_diversity=False),
    "hybrid+selection-adaptive": SelectionSettings(pool_k=POOL_K, keep_k=KEEP_K, mmr_diversity=0.45),
    "hybrid+selection-λ0.2": SelectionSettings(
        pool_k=POOL_K, keep_k=KEEP_K, mmr_diversity=0.2, adaptive_diversity=False
    ),
    # the seed's λ 0.45, but only near-duplicates (cosine above the floor) count as redundant
    "hybrid+selection-nd0.5": SelectionSettings(
        pool_k=POOL_K, keep_k=KEEP_K, mmr_diversity=0.45, adaptive_diversity=False, redundancy_floor=0.5
    ),
    "hybrid+selection-nd0.7": SelectionSettings(
        pool_k=POOL_K, keep_k=KEEP_K, mmr_diversity=0.45, adaptive_diversity=False, redundancy_floor=0.7
    ),
}
_QUESTION_WORDS = frozenset((
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was", "were", "did",
    "do", "does", "in", "on", "the", "a", "an", "of", "for", "to", "by", "at", "name", "list", "if", "and",
    "both", "with", "from", "between", "as",
))  # fmt: skip
_CAP = r"[A-Z0-9][\w'’.&-]*"
# A quoted string, or capitalised/numeric words joined by spaces or a lower-case name particle.
_ANCHOR_RUN = re.compile(rf"[\"“]([^\"”]+)[\"”]|({_CAP}(?:\s+(?:(?:of|the|de|von|van|la|du)\s+)?{_CAP})*)")

Run = tuple[list[str], set[str]]  # ranked passage ids, gold passage ids


@dataclass
class EvalSet:
    """One dataset's questions, their query vectors and the searcher over its own pooled corpus."""

    items: list[QAItem]
    vectors: list[list[float]]
    searcher: HybridSearcher


def anchors(question: str) -> list[str]:
    """Capitalised/numeric word runs and quoted strings; a leading question word is stripped."""
    found: list[str] = []
    for match in _ANCHOR_RUN.finditer(question):
        words = (match.group(1) or match.group(2) or "").strip(" ?.,").split()
        while words and words[0].lower() in _QUESTION_WORDS:
            words = words[1:]
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


def percentiles(values_s: Sequence[float]) -> dict[str, float]:
    """p50/p95/mean in milliseconds."""
    ms = np.asarray(values_s, dtype=float) * 1000.0
    if ms.size == 0:
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0}
    return {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95)), "mean": float(ms.mean())}


def passage_ids(hits: Sequence[ScoredChunk]) -> list[str]:
    """Passage ids in hit order (a passage once, at its best chunk)."""
    return dedupe([hit.chunk.doc_id for hit in hits])


def metrics(runs: Sequence[Run], ks: Sequence[int], multi_gold: bool) -> dict[str, float]:
    """Mean Recall@k, MRR (over the returned list), nDCG@10 and, for two-gold questions, both-gold@8."""
    n = len(runs) or 1
    out = {f"recall@{k}": sum(recall_at_k(r, g, k) for r, g in runs) / n for k in ks}
    out["mrr"] = sum(reciprocal_rank(r, g) for r, g in runs) / n
    out["ndcg@10"] = sum(ndcg_at_k(r, g, 10) for r, g in runs) / n
    if multi_gold:
        out["both_gold@8"] = sum(all_gold_in_top_k(r, g, 8) for r, g in runs) / n
    return out


def index_for(name: str, passages: Sequence[Passage], embeddings: Embeddings, embedding_id: str) -> tuple[Any, dict]:
    """Load or build the index; build throughput is measured now or read from the manifest."""
    print(f"[{name}] loading (or building) the index of {len(passages)} passages", file=sys.stderr)
    index = build_or_load(passages, embeddings, embedding_id, CHUNKING, CACHE, name=name)
    cached = not index.fresh  # `fresh`: built (or brought up to date) by this call
    started = time.perf_counter()
    searcher = HybridSearcher.for_index(index)
    bm25_s = time.perf_counter() - started
    chunks, seconds = int(index.manifest["chunks"]), float(index.manifest["build_seconds"])
    info = {
        "passages": len(passages),
        "chunks": chunks,
        "built_this_run": not cached,
        "path": str(index.path),
        "build_seconds": seconds,
        "chunks_per_s": chunks / seconds if seconds else 0.0,
        "bm25_build_s": bm25_s,
    }
    return searcher, info


def embed_questions(items: Sequence[QAItem], embeddings: Embeddings) -> tuple[list[list[float]], dict[str, Any]]:
    """One timed `embed_query` per question with torch on 1 thread (these vectors are used; it is
    what `load_embeddings` sets by default), plus a sample timed with one torch thread per core: on
    a busy 2-core machine the latter makes a single short query many times slower, so both are shown."""
    import torch

    project_threads = torch.get_num_threads()
    cores = os.cpu_count() or 1
    timings: dict[str, Any] = {"project_threads": project_threads, "cores": cores}
    try:
        torch.set_num_threads(1)
        vectors, times = _timed_queries([item.question for item in items], embeddings)
        timings["one_thread"] = percentiles(times)
        torch.set_num_threads(cores)
        sample = [item.question for item in items[:EMBED_SAMPLE]]
        timings["all_cores_sample"] = percentiles(_timed_queries(sample, embeddings)[1]) | {"n": len(sample)}
    finally:
        torch.set_num_threads(project_threads)
    return vectors, timings


def _timed_queries(questions: Sequence[str], embeddings: Embeddings) -> tuple[list[list[float]], list[float]]:
    embeddings.embed_query("warm-up")  # not counted: first-call setup
    vectors, times = [], []
    for question in questions:
        started = time.perf_counter()
        vectors.append(embeddings.embed_query(question))
        times.append(time.perf_counter() - started)
    return vectors, times


def evaluate_modes(
    searcher: HybridSearcher, items: Sequence[QAItem], vectors: Sequence[Sequence[float]], multi_gold: bool
) -> dict[str, dict[str, Any]]:
    """Every retrieval mode and selection variant over all questions: quality and latency."""
    results: dict[str, dict[str, Any]] = {}
    searcher.search(items[0].question, vectors[0], pool_k=POOL_K)  # warm-up, not timed
    for name, kwargs in MODES.items():
        runs, times = [], []
        for item, vector in zip(items, vectors, strict=True):
            started = time.perf_counter()
            hits = searcher.search(item.question, vector, pool_k=POOL_K, **kwargs)
            times.append(time.perf_counter() - started)
            runs.append((passage_ids(hits), set(item.gold_passage_ids)))
        results[name] = {**metrics(runs, (5, 8, 20), multi_gold), "latency_ms": percentiles(times)}
    for name, settings in SELECTIONS.items():
        results[name] = evaluate_selection(searcher, items, vectors, settings, multi_gold)
    return results


def select_hits(
    searcher: HybridSearcher,
    question: str,
    hits: Sequence[HybridHit],
    anchors: Sequence[str] = (),
    settings: SelectionSettings | None = None,
) -> SelectionResult:
    """`tools.retrieval.selection.select` over hybrid hits: relevance × prior as score, stored vectors for MMR,
    and the per-source cap keyed on the chunk's `domain` metadata, else on its document (a `source`
    shared by many documents is a dataset name here: "hotpotqa", "nq-oracle"). The graph selects in
    `agents/fuse_and_select.py`; this benchmark selects straight from one search's hits."""
    candidates = []
    for hit in hits:
        chunk = hit.chunk
        if not chunk.metadata.get("domain"):
            chunk = dataclasses.replace(chunk, metadata={**chunk.metadata, "domain": chunk.doc_id})
        candidates.append(ScoredChunk(chunk, hit.relevance * hit.prior, hit.dense, hit.sparse, hit.rank))
    vectors = searcher.vectors([hit.row for hit in hits]) if hits else None
    result = select(question, candidates, embeddings=vectors, anchors=anchors, settings=settings)
    originals = {hit.chunk.id: hit for hit in hits}
    selected = [dataclasses.replace(originals[s.chunk.id], score=s.score) for s in result.selected]
    return dataclasses.replace(result, selected=selected)


def evaluate_selection(
    searcher: HybridSearcher,
    items: Sequence[QAItem],
    vectors: Sequence[Sequence[float]],
    settings: SelectionSettings,
    multi_gold: bool,
) -> dict[str, Any]:
    """Hybrid RRF (floor 0.20) pool 24 → selection keep 8; duplicates = chunks of an already-kept passage."""
    runs, times, dup_top8, dup_kept, kept_total = [], [], 0, 0, 0
    for item, vector in zip(items, vectors, strict=True):
        started = time.perf_counter()
        pool = searcher.search(item.question, vector, pool_k=POOL_K, relevance_floor=FLOOR)
        kept = select_hits(searcher, item.question, pool, anchors(item.question), settings).selected
        times.append(time.perf_counter() - started)
        runs.append((passage_ids(kept), set(item.gold_passage_ids)))
        dup_top8 += len(pool[:KEEP_K]) - len(passage_ids(pool[:KEEP_K]))
        dup_kept += len(kept) - len(passage_ids(kept))
        kept_total += len(kept)
    result = {**metrics(runs, (5, 8), multi_gold), "latency_ms": percentiles(times)}
    result |= {
        "duplicate_chunks_in_hybrid_top8": dup_top8,
        "duplicate_chunks_in_kept8": dup_kept,
        "duplicate_chunks_removed": dup_top8 - dup_kept,
        "mean_kept": kept_total / max(len(items), 1),
    }
    return result


def load_items(name: str, limit: int | None) -> tuple[list[QAItem], tuple[Passage, ...]]:
    """Questions (first `limit`) and the full pooled corpus of one dataset."""
    folder, fmt = {"hotpotqa": ("hotpotqa_sample", "hotpotqa"), "nq": ("nq_open_oracle", "nq-oracle")}[name]
    full = load_dataset(DATASETS / folder, fmt)
    items = [item for item in full.items if item.gold_passage_ids][:limit]
    return items, full.corpus_passages()


def scale_corpus() -> list[Passage]:
    """~10k chunks: NQ + HotpotQA pooled corpora, ClapNQ, SQuAD-id and NoMIRACL-en passages (ids deduped)."""
    sources = [
        ("nq_open_oracle", "nq-oracle", None),
        ("hotpotqa_sample", "hotpotqa", None),
        ("clapnq", "clapnq", None),
        ("squad2_id_translated", "squad", None),
        ("nomiracl", "nomiracl", "en"),
    ]
    seen: dict[str, Passage] = {}
    for folder, fmt, language in sources:
        for passage in load_dataset(DATASETS / folder, fmt, language=language).corpus_passages():
            seen.setdefault(passage.id, passage)
    return list(seen.values())


def evaluate_scale(embeddings: Embeddings, embedding_id: str, sets: dict[str, EvalSet]) -> dict[str, Any]:
    """Latency (and, as a bonus, quality) of every mode on the ~10k-chunk pooled index."""
    searcher, info = index_for("scale", scale_corpus(), embeddings, embedding_id)
    out: dict[str, Any] = {"index": info, "faiss_default_threads": faiss.omp_get_max_threads(), "datasets": {}}
    for name, data in sets.items():
        print(f"[scale] replaying {name}", file=sys.stderr)
        out["datasets"][name] = evaluate_modes(searcher, data.items, data.vectors, multi_gold=name == "hotpotqa")
    # A single-query flat search spread over OpenMP threads on a busy 2-core machine waits for the
    # other thread most of the time; the same searches with one thread show what that costs.
    default_threads = faiss.omp_get_max_threads()
    out["datasets_faiss_1_thread"] = {}
    try:
        faiss.omp_set_num_threads(1)
        for name, data in sets.items():
            print(f"[scale] replaying {name} with FAISS on 1 thread", file=sys.stderr)
            modes = evaluate_modes(searcher, data.items, data.vectors, multi_gold=name == "hotpotqa")
            out["datasets_faiss_1_thread"][name] = modes
    finally:
        faiss.omp_set_num_threads(default_threads)
    return out


def environment() -> dict[str, Any]:
    """CPU, memory, load and library threads: latency depends on all of them."""
    cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8") if Path("/proc/cpuinfo").is_file() else ""
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if line.startswith("model name")), "")
    meminfo = Path("/proc/meminfo").read_text(encoding="utf-8") if Path("/proc/meminfo").is_file() else ""
    mem_kb = next((int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal")), 0)
    return {"cpus": os.cpu_count(), "cpu_model": model, "mem_gib": round(mem_kb / 2**20, 1),
            "loadavg_start": os.getloadavg(), "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "faiss_omp_threads": faiss.omp_get_max_threads()}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="questions per dataset (default: all)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "retrieval.json")
    parser.add_argument("--no-scale", action="store_true", help="skip the ~10k-chunk latency test")
    parser.add_argument("--no-pruning", action="store_true", help="skip the pruning section")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    embeddings = load_embeddings()
    embedding_id = embedding_fingerprint(resolve_embedding_path())
    report: dict[str, Any] = {
        "command": " ".join(["python", "bench/retrieval.py", *(argv or sys.argv[1:])]),
        "settings": settings_summary(),
        "environment": environment(),
        "datasets": {},
    }
    sets: dict[str, EvalSet] = {}
    for name in ("hotpotqa", "nq"):
        items, passages = load_items(name, args.limit)
        searcher, info = index_for(name, passages, embeddings, embedding_id)
        vectors, embed_ms = embed_questions(items, embeddings)
        print(f"[{name}] {len(items)} questions: evaluating modes", file=sys.stderr)
        modes = evaluate_modes(searcher, items, vectors, multi_gold=name == "hotpotqa")
        report["datasets"][name] = {
            "questions": len(items),
            "index": info,
            "query_embedding_ms": embed_ms,
            "modes": modes,
        }
        sets[name] = EvalSet(items, vectors, searcher)
    if not args.no_scale:
        report["scale_10k"] = evaluate_scale(embeddings, embedding_id, sets)
    report["pruning"] = (
        {"skipped": "--no-pruning"} if args.no_pruning else pruning_section(embeddings, sets, args.limit)
    )
    report["total_seconds"] = time.perf_counter() - started
    report["environment"]["loadavg_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(markdown(report))
    return 0


def settings_summary() -> dict[str, Any]:
    return {
        "chunking": vars(CHUNKING),
        "pool_k": POOL_K,
        "keep_k": KEEP_K,
        "relevance_floor": FLOOR,
        "rrf_k": 60,
        "weighted": "0.5 cosine + 0.5 BM25, min-max over the candidate union",
        "selection": {name: vars(s) for name, s in SELECTIONS.items()},
        "anchors": "capitalised/numeric word runs + quoted strings, leading question word stripped",
    }


def pruning_section(embeddings: Embeddings, sets: dict[str, EvalSet], limit: int | None) -> dict[str, Any]:
    """Sentence P/R/F1 and token reduction of tools/pruning, or why the section was skipped."""
    try:
        from anchorgate.tools.retrieval.pruning import PruningSettings, prune_chunks
    except ImportError as exc:
        return {"skipped": f"tools/retrieval/pruning.py not importable: {exc}"}
    return run_pruning(embeddings, sets["hotpotqa"], prune_chunks, PruningSettings(), limit)


def run_pruning(
    embeddings: Embeddings, hotpot: EvalSet, prune: Callable[..., Any], settings: Any, limit: int | None
) -> dict[str, Any]:
    """HotpotQA: prune the 8 chunks hybrid+selection kept; ClapNQ answerable: prune the gold passage."""
    print("[pruning] HotpotQA selections and ClapNQ gold passages", file=sys.stderr)
    out: dict[str, Any] = {"settings": {k: v for k, v in vars(settings).items() if k != "stopwords"}}
    tally = _Tally()
    for item, vector in zip(hotpot.items, hotpot.vectors, strict=True):
        pool = hotpot.searcher.search(item.question, vector, pool_k=POOL_K, relevance_floor=FLOOR)
        kept = select_hits(hotpot.searcher, item.question, pool, anchors(item.question), SELECTIONS["hybrid+selection"])
        tally.add(prune(item.question, [hit.chunk for hit in kept.selected], embeddings, settings), item.gold_sentences)
    out["hotpotqa_selected8"] = tally.summary() | {"questions": len(hotpot.items)}
    clap = [i for i in load_dataset(DATASETS / "clapnq", "clapnq").items if i.answerable and i.gold_sentences][:limit]
    tally = _Tally()
    for item in clap:
        chunks = chunk_passages(item.passages, CHUNKING)
        tally.add(prune(item.question, chunks, embeddings, settings), item.gold_sentences)
    out["clapnq_answerable_gold_passage"] = tally.summary() | {"questions": len(clap)}
    return out


class _Tally:
    """Micro-averaged sentence P/R/F1 and token reduction. A kept sentence is gold when ≥ half of it
    lies in a gold sentence of its passage; a gold sentence is recalled when ≥ half of it is kept in
    some chunk. Gold sentences count once even when chunk overlap puts them in two chunks; kept
    sentences count per chunk (a repeat costs context tokens too)."""

    def __init__(self) -> None:
        self.kept = self.good = self.gold = self.before = self.after = self.questions = 0
        self.located: set[tuple[int, str, str]] = set()
        self.recalled: set[tuple[int, str, str]] = set()

    def add(self, result: Any, gold_sentences: Sequence[tuple[str, str]]) -> None:
        self.questions += 1
        question = self.questions  # the same sentence in two questions is two gold sentences
        self.gold += len(set(gold_sentences))
        self.before, self.after = self.before + result.tokens_before, self.after + result.tokens_after
        for pruned in result.chunks:
            kept = [(s.start, s.end) for s in pruned.sentences if s.kept]
            self.kept += len(kept)
            spans = []
            for doc, sentence in set(gold_sentences):
                span = _span(pruned.chunk.text, sentence) if doc == pruned.chunk.doc_id else None
                if span is not None:
                    spans.append(span)
                    self.located.add((question, doc, sentence))
                    if _overlap(span, kept) * 2 >= span[1] - span[0]:
                        self.recalled.add((question, doc, sentence))
            self.good += sum(_overlap(k, spans) * 2 >= k[1] - k[0] for k in kept)

    def summary(self) -> dict[str, float]:
        p = self.good / self.kept if self.kept else 0.0
        r = len(self.recalled) / len(self.located) if self.located else 0.0
        return {
            "precision": p,
            "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "recall_end_to_end": len(self.recalled) / self.gold if self.gold else 0.0,
            "gold_sentences": self.gold,
            "gold_sentences_in_pruned_chunks": len(self.located),
            "kept_sentences": self.kept,
            "token_reduction": 1 - self.after / self.before if self.before else 0.0,
        }


def _span(text: str, sentence: str) -> tuple[int, int] | None:
    start = text.find(sentence.strip())
    return None if start < 0 else (start, start + len(sentence.strip()))


def _overlap(span: tuple[int, int], others: Sequence[tuple[int, int]]) -> int:
    return sum(max(0, min(span[1], o[1]) - max(span[0], o[0])) for o in others)


def markdown(report: dict[str, Any]) -> str:
    """Quality + latency table, index/embedding/selection facts and the pruning table."""
    lines = [
        "| set | mode | R@5 | R@8 | R@20 | MRR | nDCG@10 | both gold@8 | search p50 / p95 ms |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    scale = report.get("scale_10k", {})
    blocks = [(f"{name} ({d['questions']} q)", d["modes"]) for name, d in report["datasets"].items()]
    blocks += [(f"{name} @ {scale['index']['chunks']} chunks", m) for name, m in scale.get("datasets", {}).items()]
    for name, modes in blocks:
        for mode, m in modes.items():
            cells = [_pct(m.get(k)) for k in ("recall@5", "recall@8", "recall@20", "mrr", "ndcg@10", "both_gold@8")]
            lat = m["latency_ms"]
            lines.append(f"| {name} | {mode} | {' | '.join(cells)} | {lat['p50']:.1f} / {lat['p95']:.1f} |")
    lines += [
        "",
        "| index | passages | chunks | build s | chunks/s | built this run | BM25 build s | query embed p50 / p95 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    indexes = [(name, d["index"], d["query_embedding_ms"]) for name, d in report["datasets"].items()]
    indexes += [("scale", scale["index"], None)] if scale else []
    for name, info, emb in indexes:
        embed = "(same questions)"
        if emb:
            one, many = emb["one_thread"], emb["all_cores_sample"]
            embed = f"{one['p50']:.1f} / {one['p95']:.1f} (1 thread); {many['p50']:.0f} / {many['p95']:.0f} "
            embed += f"({emb['cores']} threads, {many['n']} q)"
        lines.append(
            f"| {name} | {info['passages']} | {info['chunks']} | {info['build_seconds']:.1f} | "
            f"{info['chunks_per_s']:.1f} | {info['built_this_run']} | {info['bm25_build_s']:.2f} | {embed} |"
        )
    lines += _scale_latency_lines(scale)
    lines += [
        "",
        "| set | selection | duplicate-passage chunks in hybrid top 8 | in kept 8 | removed | mean kept |",
        "|---|---|---|---|---|---|",
    ]
    for name, d in report["datasets"].items():
        for sel in SELECTIONS:
            m = d["modes"][sel]
            lines.append(
                f"| {name} | {sel} | {m['duplicate_chunks_in_hybrid_top8']} | {m['duplicate_chunks_in_kept8']}"
                f" | {m['duplicate_chunks_removed']} | {m['mean_kept']:.2f} |"
            )
    return "\n".join(lines + _pruning_lines(report.get("pruning", {})))


def _scale_latency_lines(scale: dict[str, Any]) -> list[str]:
    """Search latency on the ~10k-chunk index with FAISS on its default threads and on one thread."""
    if not scale:
        return []
    threads = scale["faiss_default_threads"]
    lines = ["", f"| {scale['index']['chunks']} chunks | mode | search p50 / p95 ms (FAISS {threads} threads) "
             "| search p50 / p95 ms (FAISS 1 thread) | same results |", "|---|---|---|---|---|"]  # fmt: skip
    for name, modes in scale["datasets"].items():
        for mode, m in modes.items():
            one = scale["datasets_faiss_1_thread"][name][mode]
            same = {k: v for k, v in m.items() if k != "latency_ms"} == {
                k: v for k, v in one.items() if k != "latency_ms"
            }
            a, b = m["latency_ms"], one["latency_ms"]
            lines.append(
                f"| {name} | {mode} | {a['p50']:.1f} / {a['p95']:.1f} | {b['p50']:.1f} / {b['p95']:.1f} | {same} |"
            )
    return lines


def _pruning_lines(pruning: dict[str, Any]) -> list[str]:
    if "skipped" in pruning:
        return ["", f"Pruning: skipped ({pruning['skipped']})."]
    lines = [
        "",
        "| pruning | questions | sentence P | R | F1 | R end-to-end | token reduction |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in pruning.items():
        if name != "settings":
            lines.append(
                f"| {name} | {m['questions']} | {_pct(m['precision'])} | {_pct(m['recall'])} | {_pct(m['f1'])} "
                f"| {_pct(m['recall_end_to_end'])} | {_pct(m['token_reduction'])} |"
            )
    return lines


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


if __name__ == "__main__":
    raise SystemExit(main())

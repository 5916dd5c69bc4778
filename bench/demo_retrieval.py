"""Issue 12 item 4: retrieval for questions as users ask them, on the built-in pydoc demo corpus.

    .venv/bin/python bench/demo_retrieval.py [--set key=value ...] [--name demo_retrieval]

Questions: bench/demo_questions.jsonl (`id`, `split` tune/heldout, `kind`, `question`,
`gold_topics`, `answer`, `evidence` = a regex every gold topic's text matches; checked on load).
The corpus is what `anchorgate ask` uses by default: `pydoc_data.topics`, indexed with preset A's
chunking (120/20 tokens) in the normal cache. No LLM is loaded or called.

Per split (tune / heldout), over the answerable questions: topic Recall@8 (a gold topic among the
doc ids of the top 8 chunks), MRR (first gold topic in the deduplicated doc-id ranking) and the
stricter answer-chunk Recall@8 (a top-8 chunk of a gold topic matches `evidence`) for dense top 8,
BM25 top 8, hybrid top 8 (preset A's fusion — RRF, equal weights unless `--set` — without a floor;
what `bench/anchor_recall.py` calls rrf_top8), the same with preset A's floor, and preset A's own
retrieval path (anchor predictor → one retriever worker per query → fuse and select → packed
context, as `bench/anchor_recall.py` runs it). Also: chunks in A's context whose text repeats an
earlier context chunk (same content hash), and how much context A hands over for the no-answer
questions.
Results: bench/results/<name>.json and .md.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchor_recall import preset_selection  # noqa: E402
from common import REPO, RESULTS, percentile, write_result  # noqa: E402

from anchorgate.eval.retrieval_metrics import dedupe, reciprocal_rank  # noqa: E402
from anchorgate.graph.config import parse_assignments  # noqa: E402
from anchorgate.graph.presets import load_preset  # noqa: E402
from anchorgate.tools.retrieval.hybrid import HybridSearcher  # noqa: E402
from anchorgate.tools.services import Services, load_index_for, register_services  # noqa: E402

QUESTIONS = REPO / "bench" / "demo_questions.jsonl"
K = 8
MODES = ["dense", "bm25", "hybrid", "hybrid_floor", "preset_A"]
LABELS = {
    "dense": "dense top 8",
    "bm25": "BM25 top 8",
    "hybrid": "hybrid (RRF) top 8",
    "hybrid_floor": "hybrid (RRF, A's relevance floor) top 8",
    "preset_A": "preset A's context (anchors + workers + fuse and select)",
}


def topic(doc_id: str) -> str:
    """ "pydoc:with" → "with"."""
    return doc_id.removeprefix("pydoc:")


def content_hash(text: str) -> str:
    """The chunk-id content hash (tools/corpus/chunking.py: chunk_id): sha1 of the text, 10 hex digits."""
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:10]


def load_questions(path: Path) -> list[dict[str, Any]]:
    """The question set, checked: every gold topic exists and its text matches `evidence`."""
    from pydoc_data.topics import topics

    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for item in items:
        for name in item["gold_topics"]:
            if name not in topics:
                raise SystemExit(f"{item['id']}: gold topic {name!r} is not in pydoc_data.topics")
            if not re.search(item["evidence"], topics[name], re.IGNORECASE | re.DOTALL):
                raise SystemExit(f"{item['id']}: topic {name!r} does not match evidence {item['evidence']!r}")
        if bool(item["gold_topics"]) != (item["kind"] != "no-answer") or bool(item["answer"]) != bool(
            item["gold_topics"]
        ):
            raise SystemExit(f"{item['id']}: no-answer questions (and only they) have no gold topics and no answer")
    return items


async def preset_context(question: str, config: Any) -> tuple[list[dict[str, Any]], int]:
    """The packed context preset A hands the generator, and how many workers ran."""
    context, _evidence, workers = await preset_selection(question, config)
    return context, workers


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall@8, MRR and answer-chunk Recall@8 per mode over the answerable rows; duplicates over all."""
    answerable = [r for r in rows if r["gold"]]
    n = len(answerable)
    out: dict[str, Any] = {"questions": len(rows), "answerable": n}
    for mode in MODES:
        hits = sum(bool(set(r["gold"]) & set(r[mode][:K])) for r in answerable)
        mrr = sum(reciprocal_rank(r[mode], r["gold"]) for r in answerable)
        answer = sum(r["answer_chunk"][mode] for r in answerable)
        out[mode] = {
            "recall@8": round(hits / n, 3) if n else 0.0,
            "mrr": round(mrr / n, 3) if n else 0.0,
            "answer_chunk@8": round(answer / n, 3) if n else 0.0,
        }
    out["duplicate_hashes_in_A_context"] = sum(r["duplicates_in_A"] for r in rows)
    return out


def markdown(results: dict[str, Any], command: str) -> str:
    """The .md report: one table per split plus the duplicate count and the misses."""
    lines = [
        "# Demo corpus retrieval (issue 12 item 4)",
        "",
        f"Command: `{command}`",
        "",
        f"Questions: `bench/demo_questions.jsonl` ({results['questions']} questions, "
        f"{results['answerable']} answerable). Corpus: `pydoc_data.topics`, {results['chunks']} chunks "
        f"(chunking {results['chunking']}). Topic Recall@8 = a gold topic among the doc ids of the top 8 "
        "chunks; MRR = first gold topic in the doc-id ranking; answer chunk@8 (stricter) = one of the top 8 "
        "chunks is from a gold topic and states the answer (matches the question's `evidence` regex).",
        "",
        "| retrieval | tune R@8 | tune MRR | heldout R@8 | heldout MRR | all R@8 | all MRR "
        "| answer chunk@8 tune / heldout |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode in MODES:
        cells = []
        for split in ("tune", "heldout", "all"):
            cells += [f"{results[split][mode]['recall@8']:.3f}", f"{results[split][mode]['mrr']:.3f}"]
        cells.append(
            f"{results['tune'][mode]['answer_chunk@8']:.3f} / {results['heldout'][mode]['answer_chunk@8']:.3f}"
        )
        lines.append(f"| {LABELS[mode]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Duplicate content hashes in A's context (chunks repeating an earlier context chunk's text): "
        f"tune {results['tune']['duplicate_hashes_in_A_context']}, heldout "
        f"{results['heldout']['duplicate_hashes_in_A_context']}.",
        "",
        f"No-answer questions: A's context holds {results['no_answer']['context_passages_mean']} passages "
        f"on average (answerable: {results['answerable_context_passages_mean']}).",
        "",
        "Misses (answerable questions whose gold topic is not in the hybrid top 8 / A's context):",
        "",
    ]
    for miss in results["misses"]:
        lines.append(f"- {miss}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--name", default="demo_retrieval", help="result file name under bench/results")
    args = parser.parse_args()
    items = load_questions(args.questions)
    overrides = parse_assignments(args.overrides)
    config = load_preset("A", overrides)
    index, embeddings, corpus = load_index_for(config, progress=True)
    # No chat model: nothing on this path calls one (preset A has no reranker).
    services = Services(index, embeddings, None, corpus.name)  # type: ignore[arg-type]
    config = config.replace(**{"resources.services_id": register_services(services)})
    searcher = HybridSearcher.for_index(index)
    # the configured fusion (preset A: RRF, equal weights), so `--set retrieval.dense_weight=…` applies here too
    fusion: dict[str, Any] = {
        "mode": "hybrid",
        "fusion": config.retrieval.fusion,
        "dense_weight": config.retrieval.dense_weight,
    }
    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    for item in items:
        question = item["question"]
        vector = embeddings.embed_query(question)
        chunks = {
            "dense": [index.chunks[row] for row, _ in index.search(vector, K)],
            "bm25": [h.chunk for h in searcher.search(question, vector, pool_k=K, mode="bm25")],
            "hybrid": [h.chunk for h in searcher.search(question, vector, pool_k=K, **fusion)],
            "hybrid_floor": [
                h.chunk
                for h in searcher.search(
                    question, vector, pool_k=K, relevance_floor=config.retrieval.relevance_floor, **fusion
                )
            ],
        }
        started = time.perf_counter()
        context, workers = asyncio.run(preset_context(question, config))
        seconds.append(time.perf_counter() - started)
        ranked = {mode: [(topic(c.doc_id), c.text) for c in found] for mode, found in chunks.items()}
        ranked["preset_A"] = [(topic(p["doc_id"]), p["text"]) for p in context]
        hashes = [content_hash(p["text"]) for p in context]
        evidence = re.compile(item["evidence"] or r"(?!)", re.IGNORECASE | re.DOTALL)
        rows.append(
            {
                "id": item["id"],
                "split": item["split"],
                "kind": item["kind"],
                "question": question,
                "gold": item["gold_topics"],
                **{mode: dedupe([name for name, _ in found]) for mode, found in ranked.items()},
                # a top-8 chunk of a gold topic whose text states the answer (matches `evidence`)
                "answer_chunk": {
                    mode: any(name in item["gold_topics"] and evidence.search(text) for name, text in found)
                    for mode, found in ranked.items()
                },
                "A_context_ids": [p["id"] for p in context],
                "A_context_titles": [p["title"] for p in context],
                "A_workers": workers,
                "duplicates_in_A": len(hashes) - len(set(hashes)),
            }
        )
    results: dict[str, Any] = {
        "overrides": overrides,
        "chunking": f"{config.resources.chunk_tokens}/{config.chunk_overlap_tokens}",
        "chunks": len(index.chunks),
        "index": index.path.name,
    }
    for split in ("tune", "heldout"):
        results[split] = summarize([r for r in rows if r["split"] == split])
    results["all"] = summarize(rows)
    results["questions"], results["answerable"] = results["all"]["questions"], results["all"]["answerable"]
    no_answer = [r for r in rows if not r["gold"]]
    answerable = [r for r in rows if r["gold"]]
    results["no_answer"] = {
        "questions": len(no_answer),
        "context_passages_mean": round(sum(len(r["A_context_ids"]) for r in no_answer) / max(len(no_answer), 1), 2),
    }
    results["answerable_context_passages_mean"] = round(
        sum(len(r["A_context_ids"]) for r in answerable) / max(len(answerable), 1), 2
    )
    results["misses"] = [
        f"{r['id']} ({r['split']}) {r['question']!r} gold {r['gold']}: hybrid {r['hybrid'][:5]}"
        f"{'' if set(r['gold']) & set(r['hybrid']) else ' MISS'}; A {r['preset_A'][:5]}"
        f"{'' if set(r['gold']) & set(r['preset_A']) else ' MISS'}"
        for r in answerable
        if not (set(r["gold"]) & set(r["hybrid"])) or not (set(r["gold"]) & set(r["preset_A"]))
    ]
    results["preset_A_seconds_p50"] = round(percentile(seconds, 50), 3)
    command = " ".join([".venv/bin/python bench/demo_retrieval.py", *sys.argv[1:]])
    summary = {split: {m: results[split][m] for m in MODES} for split in ("tune", "heldout")}
    print(json.dumps(summary, indent=1))
    print(
        f"duplicates in A's context: tune {results['tune']['duplicate_hashes_in_A_context']}, "
        f"heldout {results['heldout']['duplicate_hashes_in_A_context']}"
    )
    path = write_result(args.name, {"command": command, "results": results, "per_question": rows})
    (RESULTS / f"{args.name}.md").write_text(markdown(results, command), encoding="utf-8")
    print(path)
    print(f"command: {command}")


if __name__ == "__main__":
    main()

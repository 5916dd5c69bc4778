"""Foundation benchmark (issue 2): index build, warm start, retrieval and LLM latency, tokens/question.

    .venv/bin/python bench/baseline.py [--questions N] [--llm local|local-0.5b]

Cold build uses a fresh cache folder; warm start is a new process loading the persisted index and
the model up to the first LLM call. The questions run the `baseline` preset on the default local
model (`local`, Qwen2.5-Coder-1.5B-Instruct) unless --llm names another packaged one.
Results: bench/results/baseline.json.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import percentile, write_result  # noqa: E402

QUESTIONS = [
    "What does the pass statement do?",
    "How does the while statement work?",
    "What is a lambda expression?",
    "What does the global statement do?",
    "How are exceptions raised with the raise statement?",
    "What is the difference between break and continue?",
    "What does the with statement do?",
    "How does the yield expression work?",
    "What are augmented assignment statements?",
    "What does the nonlocal statement do?",
]

WARM_START = """
import time, json
t0 = time.perf_counter()
from anchorgate.graph.presets import load_preset
from anchorgate.tools.services import services_for
config = load_preset("baseline", {"resources.cache_dir": %r, "llm.model": %r})
services = services_for(config, progress=False)
t1 = time.perf_counter()
vector = services.embeddings.embed_query("What does the pass statement do?")
services.index.search(vector, 8)
print(json.dumps({"warm_start_s": t1 - t0, "to_first_retrieval_s": time.perf_counter() - t0}))
"""


def cold_build(cache: str) -> dict[str, float]:
    from anchorgate.graph.presets import load_preset
    from anchorgate.tools.services import load_index_for

    config = load_preset("baseline", {"resources.cache_dir": cache})
    started = time.perf_counter()
    index, _, _ = load_index_for(config, progress=False)
    seconds = time.perf_counter() - started
    return {
        "cold_build_s": round(seconds, 2),
        "chunks": index.manifest["chunks"],
        "chunks_per_s": round(index.manifest["chunks"] / seconds, 1),
    }


def retrieval_latency(cache: str) -> dict[str, float]:
    from anchorgate.graph.presets import load_preset
    from anchorgate.tools.services import services_for

    services = services_for(load_preset("baseline", {"resources.cache_dir": cache}), progress=False)
    embed, search = [], []
    for _ in range(3):
        for question in QUESTIONS:
            t0 = time.perf_counter()
            vector = services.embeddings.embed_query(question)
            t1 = time.perf_counter()
            services.index.search(vector, 8)
            embed.append((t1 - t0) * 1000)
            search.append((time.perf_counter() - t1) * 1000)
    total = [a + b for a, b in zip(embed, search, strict=True)]
    return {
        "retrieval_p50_ms": round(percentile(total, 50), 2),
        "retrieval_p95_ms": round(percentile(total, 95), 2),
        "query_embedding_p50_ms": round(percentile(embed, 50), 2),
        "faiss_search_p50_ms": round(percentile(search, 50), 3),
    }


async def answer_all(cache: str, limit: int, llm: str) -> dict[str, float]:
    from anchorgate.api import aask

    latencies, tokens, generate = [], [], []
    decisions: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as ckpt:
        for question in QUESTIONS[:limit]:
            result = await aask(
                question,
                preset="baseline",
                overrides={
                    "resources.cache_dir": cache,
                    "resources.checkpoint_db": f"{ckpt}/c.sqlite",
                    "llm.model": llm,
                },
            )
            latencies.append(result["latency_s"])
            tokens.append(result["tokens"]["total"])
            generate.append(result["telemetry"]["latency_by_node"].get("generate", 0.0))
            decisions[result["decision"]] = decisions.get(result["decision"], 0) + 1
    return {
        "questions": limit,
        "question_latency_p50_s": round(percentile(latencies, 50), 2),
        "question_latency_p95_s": round(percentile(latencies, 95), 2),
        "llm_latency_p50_s": round(percentile(generate, 50), 2),
        "tokens_per_question_mean": round(sum(tokens) / len(tokens), 1),
        "tokens_per_question_p50": percentile([float(t) for t in tokens], 50),
        "decisions": decisions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=len(QUESTIONS))
    parser.add_argument("--llm", default="local", choices=("local", "local-1.5b", "local-0.5b"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        # the model file is shared through a link so only the index is cold
        from anchorgate.tools.llm.model_files import assemble_model

        model = assemble_model(args.llm)
        (Path(cache) / "models").mkdir()
        (Path(cache) / "models" / model.name).symlink_to(model)
        results: dict[str, Any] = {"llm": args.llm, "model_file": model.name}
        results.update(cold_build(cache))
        warm = subprocess.run(
            [sys.executable, "-c", WARM_START % (cache, args.llm)], capture_output=True, text=True, check=True
        )
        results.update(
            {k: round(v, 2) for k, v in __import__("json").loads(warm.stdout.strip().splitlines()[-1]).items()}
        )
        results.update(retrieval_latency(cache))
        results.update(asyncio.run(answer_all(cache, args.questions, args.llm)))
    print(results)
    print(write_result("baseline", {"command": "python bench/baseline.py", "results": results}))


if __name__ == "__main__":
    main()

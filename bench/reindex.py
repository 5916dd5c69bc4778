"""Incremental re-indexing (issue 14, item 6): a full build of 1,000 small files vs a re-index after one changes.

    nice -n 5 .venv/bin/python bench/reindex.py [--files 1000] [--seed 14]

A synthetic corpus (a few sentences per file, seeded: the same files on every run) is generated
into a temporary folder, indexed into a temporary cache, never committed. The real embedding model
(all-MiniLM-L6-v2 through `tools.index.embeddings`) is loaded and warmed up first and not timed. Timed,
each through `load_index_for` as `anchorgate index` runs it (read the folder, chunk, embed, write,
publish, load): the full build; the re-index after one file's text is replaced; a load of the
up-to-date index. Then a full rebuild of the changed corpus in a fresh cache checks that the
incremental index answers 20 queries with the same top-10 chunks. Target: only the changed file's
chunks embedded, and the re-index at most 5 % of the full build's time.
Results: bench/results/reindex.json.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import write_result  # noqa: E402

PLACES = ["Alder", "Brennick", "Corran", "Dunmere", "Eskvale", "Farrow", "Glenhollow", "Harrowgate", "Ivel", "Jessop"]
THINGS = ["mill", "ferry", "library", "bridge", "market", "orchard", "lighthouse", "granary", "foundry", "school"]
TRADES = ["wool", "salt", "honey", "timber", "copper", "barley", "linen", "glass", "cider", "slate"]
PEOPLE = ["Mara Quill", "Tobin Reed", "Iris Vane", "Oswin Hale", "Petra Lund", "Cal Morrow", "Una Frey", "Ned Ashby"]


def document(rng: random.Random, number: int) -> str:
    """Four sentences about one made-up place (one chunk at the default 120 tokens)."""
    place, thing, trade, person = rng.choice(PLACES), rng.choice(THINGS), rng.choice(TRADES), rng.choice(PEOPLE)
    year, count = rng.randint(1600, 1950), rng.randint(2, 90)
    return (
        f"The {thing} of {place} (record {number}) was built in {year} by {person}. "
        f"It handled {trade} for {count} families from the surrounding farms. "
        f"Each {rng.choice(['spring', 'autumn', 'winter', 'summer'])} the town held a fair beside the {thing}. "
        f"The {thing} closed in {year + rng.randint(20, 70)} and its ledgers are kept in the town hall."
    )


def write_corpus(folder: Path, files: int, seed: int) -> None:
    """`files` text files, the same ones for the same seed."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    for number in range(files):
        (folder / f"record_{number:04d}.txt").write_text(document(rng, number), encoding="utf-8")


def timed_index(config: Any) -> tuple[Any, float]:
    """(the index, seconds) of one `load_index_for` call."""
    from anchorgate.tools.services import load_index_for

    started = time.perf_counter()
    index, _, _ = load_index_for(config, progress=False)
    return index, time.perf_counter() - started


def same_top10(incremental: Any, full: Any, queries: list[str], embeddings: Any) -> int:
    """How many queries get the same top-10 chunk ids from both indexes."""
    same = 0
    for query in queries:
        vector = embeddings.embed_query(query)
        ours = [incremental.chunks[row].id for row, _ in incremental.search(vector, 10)]
        theirs = [full.chunks[row].id for row, _ in full.search(vector, 10)]
        same += ours == theirs
    return same


def measure(files: int, seed: int, tmp: Path) -> dict[str, Any]:
    """Build, change one file, re-index, reload, and check against a full rebuild; the numbers."""
    from anchorgate.graph.config import Config
    from anchorgate.tools.index.embeddings import load_embeddings

    folder = tmp / "corpus"
    write_corpus(folder, files, seed)
    config = Config().replace(**{"resources.corpus": str(folder), "resources.cache_dir": str(tmp / "cache")})
    embeddings = load_embeddings(config.resources.embedding_model)
    embeddings.embed_documents(["warm-up sentence"])  # model load and first call: not timed

    full, full_s = timed_index(config)
    changed = f"record_{files // 2:04d}.txt"
    (folder / changed).write_text(document(random.Random(seed + 1), files // 2), encoding="utf-8")
    incremental, reindex_s = timed_index(config)
    current, up_to_date_s = timed_index(config)
    rebuilt, rebuild_s = timed_index(config.replace(**{"resources.cache_dir": str(tmp / "cache-full")}))

    changed_chunks = sum(1 for chunk in incremental.chunks if chunk.doc_id == changed)
    queries = [document(random.Random(seed + 2 + i), i).split(". ")[1] for i in range(20)]
    return {
        "files": files,
        "seed": seed,
        "chunks": full.manifest["chunks"],
        "full_build_s": round(full_s, 2),
        "full_chunks_per_s": round(full.manifest["chunks"] / full_s, 1),
        "reindex_s": round(reindex_s, 3),
        "reindex_over_full": round(reindex_s / full_s, 4),
        "changed_file": changed,
        "changed_file_chunks": changed_chunks,
        "embedded": incremental.manifest["embedded"],
        "reused": incremental.manifest["reused"],
        "documents_changed": incremental.manifest["documents_changed"],
        "up_to_date_load_s": round(up_to_date_s, 3),
        "up_to_date_fresh": current.fresh,
        "check_full_rebuild_s": round(rebuild_s, 2),
        "queries_same_top10": f"{same_top10(incremental, rebuilt, queries, embeddings)}/{len(queries)}",
        "target_only_changed_embedded": incremental.manifest["embedded"] == changed_chunks,
        "target_reindex_at_most_5pct": reindex_s <= 0.05 * full_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="anchorgate-reindex-") as tmp:
        result = measure(args.files, args.seed, Path(tmp))
    command = " ".join(["nice -n 5 .venv/bin/python bench/reindex.py", *sys.argv[1:]])
    path = write_result("reindex", {"command": command, **result})
    for key, value in result.items():
        print(f"{key}: {value}")
    print(f"→ {path}")


if __name__ == "__main__":
    main()

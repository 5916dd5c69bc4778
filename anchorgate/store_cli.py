"""`anchorgate index PATH --set resources.vector_store=postgresql://…`: index a corpus into the PostgreSQL store.

Prints what the local index command prints: the documents and chunks indexed and where (stdout),
then what was embedded or reused and any skipped files (stderr). Re-running it on an unchanged
corpus embeds nothing.
"""

from __future__ import annotations

import sys
from typing import Any

from anchorgate.tools.postgres.store import server_of


def wants_server_store(config: Any) -> bool:
    """True when the run's `vector_store` is not the local FAISS store (a bad value errors later, clearly)."""
    return str(config.resources.vector_store).strip() not in ("", "faiss")


def index_into_store(config: Any) -> int:
    """Index `config.resources.corpus` into its PostgreSQL collection; returns the exit code (0)."""
    from anchorgate.tools.retrieval.vector_backend import index_corpus, server_url

    result, corpus, model = index_corpus(config)
    where = f"postgresql {server_of(server_url(config) or '')} collection {result.collection}"
    print(f"indexed {len(corpus.passages)} documents as {result.chunks} chunks → {where}")
    print(model, file=sys.stderr)
    print(result.summary(), file=sys.stderr)
    if corpus.skipped:
        print(f"skipped {len(corpus.skipped)} file{'s' if len(corpus.skipped) > 1 else ''}:", file=sys.stderr)
        for path, why in corpus.skipped:
            print(f"  {path}: {why}", file=sys.stderr)
    return 0

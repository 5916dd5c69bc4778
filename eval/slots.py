"""Running evaluation questions concurrently against a model server (`anchorgate eval --concurrency N`).

At most N (question, preset) runs are in flight (an asyncio queue of N slots). Each slot has its own
registered copy of the question's services bundle, whose chat model carries a `CountingCache`: a
view of the run's shared LLM cache that counts this run's hits only, so a record's
`llm_cache_hits` does not depend on what else was in flight, and a per-question bundle that the
corpus provider replaces for the next question cannot change under a run still using it.

A local llama.cpp model (`local…`, `gguf:`) answers one call at a time in one process, so N > 1
is reduced to 1 for it, with a note saying so.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache

from anchorgate.eval.corpora import Bundle
from anchorgate.eval.errors import EvalUsageError
from anchorgate.tools.llm.model_files import LOCAL_MODELS
from anchorgate.tools.services import register_services


def is_local_model(llm: str) -> bool:
    """True for a llama.cpp model of this process (`local`, `local-0.5b`, `gguf:/path`)."""
    return llm in LOCAL_MODELS or llm.startswith("gguf:")


def effective_concurrency(requested: int, llm: str) -> tuple[int, str]:
    """(runs in flight, a note when it differs from `requested`); below 1 is a usage error (exit 64)."""
    if requested < 1:
        raise EvalUsageError(f"--concurrency must be at least 1 (got {requested})", "1 runs one question at a time")
    if requested > 1 and is_local_model(llm):
        return 1, (
            f"--concurrency {requested} reduced to 1: the local llama.cpp model ({llm}) answers one call at a time;"
            " concurrency helps with a model server (--llm openai:<model> or ollama:<model>)"
        )
    return requested, ""


class CountingCache(BaseCache):
    """A view of a shared LLM cache that counts its own hits (one run's), reads and writes through."""

    def __init__(self, inner: BaseCache) -> None:
        self.inner = inner
        self.hits = 0

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """The shared cache's entry; a hit is counted here too."""
        found = self.inner.lookup(prompt, llm_string)
        if found is not None:
            self.hits += 1
        return found

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Store in the shared cache."""
        self.inner.update(prompt, llm_string, return_val)

    def clear(self, **kwargs: Any) -> None:
        """Clear the shared cache."""
        self.inner.clear(**kwargs)


def slot_bundle(bundle: Bundle, slot: int) -> tuple[Bundle, CountingCache | None]:
    """`bundle` registered under this slot's id, its model reading the cache through a fresh counting view."""
    services = bundle.services
    shared = getattr(services.llm, "cache", None)
    view = CountingCache(shared) if isinstance(shared, BaseCache) else None
    if view is not None:
        services = dataclasses.replace(services, llm=services.llm.model_copy(update={"cache": view}))
    services_id = register_services(services, f"{bundle.services_id}#slot{slot}")
    return Bundle(services_id, services, bundle.chunks), view

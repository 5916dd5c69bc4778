"""Heavy resources a run needs (index, embeddings, chat model), built once per process and key.

Nothing here is rebound at run time: `services_for(config)` returns the same immutable bundle for
the same resource settings, so concurrent runs share one read-only index. Applications and tests
that bring their own model or index register a bundle and name it in `Config.services_id`.

The index is the corpus's local FAISS + BM25 index, or with `vector_store=postgresql://…` its
collection in the PostgreSQL store (`tools/postgres/corpus.py`, a `StoreIndex`): then no local index
is built or loaded, and retrieval, chunk lookups and stored vectors all go to the store.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.corpus.load import LoadedCorpus, load_corpus
from anchorgate.tools.errors import ConfigError, ModelUnavailableError
from anchorgate.tools.index.build import DenseIndex, build_or_load, corpus_fingerprint, expected_for, has_published
from anchorgate.tools.index.embeddings import MINILM, embedding_choice, embedding_id, load_embeddings
from anchorgate.tools.index.model_choice import KNOWN_MODELS, ModelDecision, decide_model, follow_existing
from anchorgate.tools.index.store_view import StoreIndex
from anchorgate.tools.llm.chat_models import load_chat_model, model_file_for
from anchorgate.tools.paths import cache_root
from anchorgate.tools.postgres.corpus import open_store_index, server_url
from anchorgate.tools.settings import ServiceSettings
from anchorgate.tools.text.language import detect_languages, sample_texts

# Top logprobs per token the uncertainty signal reads (agents/signal_meter.py).
TOP_LOGPROBS = 5

CorpusIndex: TypeAlias = DenseIndex | StoreIndex
"""A local index, or a collection of the PostgreSQL store (`vector_store`)."""


@dataclass(frozen=True)
class Services:
    """What the nodes use: the corpus index, the embedding model and the chat model."""

    index: CorpusIndex
    embeddings: Embeddings
    llm: BaseChatModel
    corpus_name: str
    skipped_files: tuple[tuple[str, str], ...] = ()


_BUILT: dict[tuple[object, ...], Services] = {}
_REGISTERED: dict[str, Services] = {}
_LOCK = threading.Lock()


def register_services(services: Services, services_id: str = "") -> str:
    """Make a caller-built bundle available to runs whose config names its id.

    A bundle whose embedding model is known (one tools/index/embeddings.py loads) but is not the one its
    index was built with is refused: its queries would search the index's vectors with another
    model's and silently rank noise.
    """
    check_query_model(services.index, services.embeddings)
    key = services_id or f"app-{uuid.uuid4().hex[:12]}"
    with _LOCK:
        _REGISTERED[key] = services
    return key


def chat_model_for(config: ServiceSettings) -> BaseChatModel:
    """The configured chat model with the run's deterministic settings."""
    return load_chat_model(
        config.llm.model,
        temperature=config.llm.temperature,
        seed=config.llm.seed,
        n_ctx=config.llm.n_ctx,
        top_logprobs=TOP_LOGPROBS,
        max_tokens=config.budget.max_output_tokens,
        cache_dir=config.resources.cache_dir,
    )


def load_index_for(
    config: ServiceSettings, *, progress: bool = True, repair: bool = False
) -> tuple[CorpusIndex, Embeddings, LoadedCorpus]:
    """The corpus index for these settings and its embedding model.

    Built on first use, updated incrementally when the corpus changed since (only changed chunks are
    embedded). An invalid index is an error naming the remedy unless `repair` (`anchorgate index`).
    With a PostgreSQL `vector_store` it is the corpus's collection there, made current the same way.
    """
    corpus = load_corpus(config.resources.corpus)
    index, embeddings = _index_passages(corpus.passages, config, progress, source=corpus.identity, repair=repair)
    return index, embeddings, corpus


def services_for(config: ServiceSettings, *, progress: bool = True) -> Services:
    """The shared bundle for `config`, built on first use (thread-safe)."""
    if config.resources.services_id:
        with _LOCK:
            if config.resources.services_id not in _REGISTERED:
                raise ConfigError(f"no services registered under {config.resources.services_id!r}")
            return _REGISTERED[config.resources.services_id]
    key = (
        config.resources.corpus,
        config.llm.model,
        # What the spec and cache resolve to now: $ANCHORGATE_GGUF or $ANCHORGATE_CACHE may change
        # between runs in one process, and a bundle built for other files must not be reused.
        model_file_for(config.llm.model),
        str(cache_root(config.resources.cache_dir)),
        config.resources.vector_store.strip(),
        config.resources.vector_collection.strip(),
        config.resources.embedding_model,
        config.resources.chunk_tokens,
        config.resources.chunk_overlap_tokens,
        config.llm.temperature,
        config.llm.seed,
        config.llm.n_ctx,
        config.budget.max_output_tokens,
    )
    with _LOCK:
        if key in _BUILT:
            return _BUILT[key]
    # The model first: a missing or corrupted model file should fail before minutes of indexing.
    llm = chat_model_for(config)
    index, embeddings, corpus = load_index_for(config, progress=progress)
    services = Services(index, embeddings, llm, corpus.name, tuple(corpus.skipped))
    with _LOCK:
        return _BUILT.setdefault(key, services)


def services_for_passages(
    passages: list[Passage], config: ServiceSettings, *, name: str = "passages", progress: bool = False
) -> Services:
    """A bundle over an in-memory corpus (a dataset question's own documents), indexed and cached."""
    index, embeddings = _index_passages(passages, config, progress, name=name)
    return Services(index, embeddings, chat_model_for(config), name)


def _index_passages(
    passages: Sequence[Passage],
    config: ServiceSettings,
    progress: bool,
    *,
    source: str = "",
    name: str = "",
    repair: bool = False,
) -> tuple[CorpusIndex, Embeddings]:
    """Index `passages`: in the slot of corpus `source` (incremental), else in one of their own content;
    with a PostgreSQL `vector_store`, in the collection of that corpus (no local index at all).

    The embedding model is chosen per corpus (`choose_model`); `repair` means `anchorgate index`,
    which builds with the decided model whatever exists.
    """
    url = server_url(config)
    if url is not None:
        identity = source or f"content:{corpus_fingerprint(passages)}"
        return open_store_index(url, passages, config, identity, progress=progress)
    settings = ChunkingSettings(config.resources.chunk_tokens, config.resources.chunk_overlap_tokens)
    root = cache_root(config.resources.cache_dir) / "indexes"
    decision = choose_model(passages, config, root, settings, source, building=repair)
    model = decision.model
    embeddings = load_embeddings(model.name if model.name != MINILM else "")
    index = build_or_load(
        passages,
        embeddings,
        model.fingerprint,
        settings,
        root,
        progress=progress,
        source=source,
        name=name,
        repair=repair,
        manifest_extra=decision.manifest_fields(),
    )
    index.choice = decision.summary()
    return index, embeddings


def check_query_model(index: CorpusIndex, embeddings: Embeddings) -> None:
    """ConfigError when `embeddings` is a known model other than the one `index` was built with."""
    query_id, index_id = embedding_id(embeddings), index.manifest.get("embedding_id")
    if query_id is None or query_id == index_id:
        return
    built_with = index.manifest.get("embedding_model") or f"the model with fingerprint {index_id}"
    asked = getattr(embeddings, "model_name", type(embeddings).__name__)
    raise ConfigError(
        f"the index at {index.path} was built with {built_with}, but the queries would be embedded by"
        f" {Path(str(asked)).name}: a query must be embedded by the model its index was built with",
        "load the embeddings the index names (tools.index.embeddings.load_embeddings), or rebuild the index",
    )


def choose_model(
    passages: Sequence[Passage], config: ServiceSettings, root: Path, settings: ChunkingSettings, source: str,
    *, building: bool,
) -> ModelDecision:  # fmt: skip
    """The embedding model for this corpus (tools/index/model_choice.py): by `embedding_model`, else by its
    languages; a query (not `building`) of a corpus read from a path follows the index that exists."""
    decision = decide_model(config.resources.embedding_model, detect_languages(sample_texts(passages)))
    if building or not source:
        return decision
    indexed = {}
    for name in sorted({decision.model.name, *KNOWN_MODELS}):
        try:
            fingerprint = embedding_choice(name).fingerprint
        except ModelUnavailableError:  # a model that is not installed has built no index here
            continue
        if has_published(root, expected_for(fingerprint, settings, passages), source):
            indexed[name] = source
    return follow_existing(decision, indexed, source)


async def aservices_for(config: ServiceSettings) -> Services:
    """`services_for` off the event loop: the first call reads model and index files."""
    return await asyncio.to_thread(services_for, config)

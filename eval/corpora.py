"""Which corpus each question is answered over, as a registered `Services` bundle.

* A dataset with a pooled corpus (HotpotQA, NQ-oracle, SQuAD, or `--corpus`): one index over the
  whole pool, built once per resource settings and reused for every question.
* Otherwise, a question with its own passages (CRAG search results, ClapNQ, NoMIRACL, HaluEval
  knowledge): an index over those passages (cached on disk by content, so a re-run loads it).
* A question with neither (FalseQA without `--corpus`): the run's configured corpus
  (`--set resources.corpus=…`, default the pydoc demo corpus).

Every bundle's chat model is a copy carrying the run's LLM cache (`model.cache`), so nothing
global changes. Per-question bundles are registered under one fixed id that is overwritten for
the next question, so the registry does not grow with the dataset.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from langchain_core.caches import BaseCache

from anchorgate.eval.datasets import QADataset, QAItem
from anchorgate.graph.config import Config
from anchorgate.tools.corpus.documents import Chunk, Passage
from anchorgate.tools.services import Services, register_services, services_for, services_for_passages

ServicesFactory = Callable[[Sequence[Passage], Config, str], Services]
RESOURCE_FIELDS = (
    "resources.corpus", "llm.model", "resources.embedding_model", "resources.cache_dir", "resources.chunk_tokens",
    "llm.temperature", "llm.seed", "llm.n_ctx", "budget.max_output_tokens",
)  # fmt: skip


def default_services_factory(passages: Sequence[Passage], config: Config, name: str) -> Services:
    """The real bundle: an index over `passages`, or the configured corpus when there are none."""
    if not passages:
        return services_for(config, progress=False)
    return services_for_passages(list(passages), config, name=name)


def resource_key(config: Config) -> str:
    """A short stable hash of the settings a bundle depends on."""
    values = {name: config.get(name) for name in RESOURCE_FIELDS}
    return hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Bundle:
    """A registered bundle, its id, and its chunks by id (to read back the generator's context)."""

    services_id: str
    services: Services
    chunks: Mapping[str, Chunk]


class CorpusProvider:
    """Bundles for the questions of one dataset (pooled ones memoised, per-question ones replaced)."""

    def __init__(
        self,
        dataset: QADataset,
        factory: ServicesFactory,
        cache_for: Callable[[Config], BaseCache | None],
    ) -> None:
        self._dataset = dataset
        self._factory = factory
        self._cache_for = cache_for
        self._shared: dict[str, Bundle] = {}
        self._current: dict[str, tuple[str, Bundle]] = {}

    def bundle(self, item: QAItem, config: Config) -> Bundle:
        """The bundle `item` is answered over with `config`'s resources."""
        key = resource_key(config)
        if self._dataset.corpus is not None:
            return self._shared_bundle(f"pooled-{key}", self._dataset.corpus, config, self._dataset.name)
        if not item.passages:
            return self._shared_bundle(f"configured-{key}", (), config, config.resources.corpus)
        current = self._current.get(key)
        if current is not None and current[0] == item.id:
            return current[1]
        bundle = self._make(f"anchorgate-eval-item-{key}", item.passages, config, f"{self._dataset.name}:{item.id}")
        self._current[key] = (item.id, bundle)
        return bundle

    def _shared_bundle(self, slot: str, passages: Sequence[Passage], config: Config, name: str) -> Bundle:
        if slot not in self._shared:
            self._shared[slot] = self._make(f"anchorgate-eval-{slot}", passages, config, name)
        return self._shared[slot]

    def _make(self, services_id: str, passages: Sequence[Passage], config: Config, name: str) -> Bundle:
        services = self._factory(passages, config, name)
        cache = self._cache_for(config)
        if cache is not None:
            services = dataclasses.replace(services, llm=services.llm.model_copy(update={"cache": cache}))
        register_services(services, services_id)
        return Bundle(services_id, services, {chunk.id: chunk for chunk in services.index.chunks})


def context_passages(bundle: Bundle, context: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """The generator's numbered context ({n, id, score} in telemetry) with document ids, titles and texts."""
    passages: list[dict[str, object]] = []
    for entry in context:
        chunk = bundle.chunks.get(str(entry.get("id")))
        if chunk is not None:
            passages.append(
                {"n": entry["n"], "id": chunk.id, "doc_id": chunk.doc_id, "title": chunk.title, "text": chunk.text}
            )
    return passages

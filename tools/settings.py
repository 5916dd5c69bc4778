"""The settings tools read, as protocols a `Config` (graph/config.py) satisfies: tools never import graph.

Each protocol names a group of `Config` and the fields of it a tool reads, read-only.
"""

from __future__ import annotations

from typing import Protocol


class ResourceFields(Protocol):
    """`Config.resources`: where the corpus, indexes, checkpoints and vectors are."""

    @property
    def corpus(self) -> str: ...
    @property
    def embedding_model(self) -> str: ...
    @property
    def cache_dir(self) -> str: ...
    @property
    def checkpoint_db(self) -> str: ...
    @property
    def vector_store(self) -> str: ...
    @property
    def vector_collection(self) -> str: ...
    @property
    def services_id(self) -> str: ...
    @property
    def chunk_tokens(self) -> int: ...
    @property
    def chunk_overlap_tokens(self) -> int: ...


class ModelFields(Protocol):
    """`Config.llm`: the chat model and how it is called."""

    @property
    def model(self) -> str: ...
    @property
    def temperature(self) -> float: ...
    @property
    def seed(self) -> int: ...
    @property
    def n_ctx(self) -> int: ...
    @property
    def timeout_s(self) -> float: ...
    @property
    def prompt_overrides(self) -> dict[str, str]: ...


class BudgetFields(Protocol):
    """`Config.budget`: the token ceilings a call reads."""

    @property
    def token_budget(self) -> int: ...
    @property
    def max_output_tokens(self) -> int: ...


class AnswerFields(Protocol):
    """`Config.answer`: how the reader answers and cites."""

    @property
    def style(self) -> str: ...
    @property
    def repair_citations(self) -> bool: ...


class StoreSettings(Protocol):
    """What the store choice reads."""

    @property
    def resources(self) -> ResourceFields: ...


class ServiceSettings(StoreSettings, Protocol):
    """What building the services and a budgeted call read."""

    @property
    def llm(self) -> ModelFields: ...
    @property
    def budget(self) -> BudgetFields: ...


class ReaderSettings(ServiceSettings, Protocol):
    """What the reader's functions read."""

    @property
    def answer(self) -> AnswerFields: ...

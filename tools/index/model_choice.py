"""Which embedding model indexes a corpus: all-MiniLM-L6-v2 for English, multilingual-e5 otherwise.

`embedding_model` = "auto" (or empty, the default) decides from the corpus's languages
(tools/text/language.py): a corpus whose recognised documents are at least 90 % English keeps
all-MiniLM-L6-v2, so English indexes, and the results read from them, are unchanged; any other or
mixed corpus gets multilingual-e5-small. "minilm", "e5" or a sentence-transformers folder set the
model outright. The decision, the languages and the reason go into the index manifest and the
`anchorgate index` summary.

Queries must use the model the index was built with (both give 384-d vectors, so a mix-up would
not fail, it would silently rank noise): a query that asks for another model than the one its
corpus was indexed with is refused (`ConfigError`), and "auto" follows the index that exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anchorgate.tools.errors import ConfigError
from anchorgate.tools.index.embeddings import AUTO, E5, MINILM, EmbeddingChoice, canonical_model, embedding_choice
from anchorgate.tools.text.language import LanguageReport, is_english


@dataclass(frozen=True)
class ModelDecision:
    """The embedding model for one corpus, the languages it was read as, and why."""

    model: EmbeddingChoice
    languages: LanguageReport
    requested: str
    reason: str

    def manifest_fields(self) -> dict[str, Any]:
        """What an index manifest records about the choice."""
        return {
            "embedding_model": self.model.name,
            "embedding_choice": self.reason,
            "languages": self.languages.as_dict(),
        }

    def summary(self) -> str:
        """One line for `anchorgate index`: languages detected → model, and why."""
        return f"languages: {self.languages.summary()} → embedding model {self.model.name} ({self.reason})"


def decide_model(requested: str, languages: LanguageReport) -> ModelDecision:
    """The model for a corpus with these `languages` under the `embedding_model` setting `requested`."""
    model = canonical_model(requested)
    if model != AUTO:
        return ModelDecision(embedding_choice(model), languages, model, "set by embedding_model")
    if is_english(languages):
        why = "auto: English" if languages.recognised() else "auto: no language recognised, the English default"
        return ModelDecision(embedding_choice(MINILM), languages, AUTO, why)
    why = f"auto: {languages.dominant()}" + (" and other languages" if len(languages.recognised()) > 1 else "")
    if languages.unknown_scripts:
        scripts = ", ".join(languages.unknown_scripts)
        why += f"; dense retrieval cannot place {scripts} text (no model was trained on it), keyword search still can"
    return ModelDecision(embedding_choice(E5), languages, AUTO, why)


def follow_existing(decision: ModelDecision, indexed: dict[str, str], corpus: str) -> ModelDecision:
    """The decision a query of `corpus` must use, given `indexed` (model name → slot) of its published indexes.

    The decided model when it has an index (or none exists yet: it is built on first use); with
    "auto", the model the corpus was indexed with; an explicitly requested model the corpus was
    not indexed with, while another model's index exists, is refused.
    """
    if decision.model.name in indexed or not indexed:
        return decision
    other = sorted(indexed)[0] if E5 not in indexed else E5
    if decision.requested == AUTO:
        why = f"the model `anchorgate index {corpus}` built this corpus's index with"
        return ModelDecision(embedding_choice(other), decision.languages, AUTO, why)
    raise ConfigError(
        f"corpus {corpus} is indexed with the embedding model {other}, but this run asks for {decision.model.name}"
        " (resources.embedding_model): a query embedded by one model cannot search the other's vectors",
        f"drop the resources.embedding_model setting, or run `anchorgate index {corpus} --set"
        f" resources.embedding_model={decision.requested}` to index it with that model first",
    )


KNOWN_MODELS = (MINILM, E5)
"""The packaged models a corpus may already be indexed with (looked up before a query builds anything)."""

"""Evidence records: chunks as plain dicts for graph state (checkpoint- and JSON-friendly)."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from anchorgate.tools.corpus.documents import Chunk

# A retrieved chunk in graph state. Functional syntax because one key is the keyword `pass`.
Evidence = TypedDict(
    "Evidence",
    {
        "id": str,  # the chunk id (stable across runs)
        "doc_id": str,  # the document it belongs to
        "title": str,
        "text": str,
        "source": str,
        "position": int,  # the chunk's position in its document
        "metadata": dict[str, Any],
        "score": float,  # ranking value (gated relevance × prior for retrieval; the selection's score after it)
        "dense": float | None,  # cosine to the query, when the dense retriever saw it
        "sparse": float | None,  # BM25 score, when the sparse retriever saw it
        "pass": int,  # the retrieval pass that first found it
        "passes": list[int],  # every pass that found it
        "ranks": dict[str, int],  # rank per worker that found it ("question", "anchor:…", "bridge")
        "n": NotRequired[int],  # its number in the generator's context ([n] citations), context passages only
    },
)


def to_evidence(
    chunk: Chunk,
    score: float,
    *,
    pass_no: int,
    worker: str,
    rank: int,
    dense: float | None = None,
    sparse: float | None = None,
) -> Evidence:
    """A retrieved chunk with where and how it was found (`ranks`: rank per worker that found it)."""
    return {
        "id": chunk.id,
        "doc_id": chunk.doc_id,
        "title": chunk.title,
        "text": chunk.text,
        "source": chunk.source,
        "position": chunk.position,
        "metadata": dict(chunk.metadata),
        "score": round(float(score), 6),
        "dense": None if dense is None else round(float(dense), 6),
        "sparse": None if sparse is None else round(float(sparse), 6),
        "pass": pass_no,
        "passes": [pass_no],
        "ranks": {worker: rank},
    }


def to_chunk(evidence: Evidence) -> Chunk:
    """The chunk an evidence record carries."""
    return Chunk(
        id=evidence["id"],
        doc_id=evidence["doc_id"],
        title=evidence.get("title", ""),
        text=evidence["text"],
        source=evidence.get("source", ""),
        position=int(evidence.get("position", 0)),
        metadata=dict(evidence.get("metadata") or {}),
    )

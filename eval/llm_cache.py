"""A LangChain LLM cache on disk (SQLite, JSON values — no pickle) for evaluation runs.

`SqliteJsonCache` implements `langchain_core.caches.BaseCache`, so a chat model uses it through
LangChain's own caching path: `model.model_copy(update={"cache": cache})` (the harness does this
per run; nothing global is changed). The key is SHA-256 over a namespace (the run's model spec
and sampling settings, which not every model puts in its `llm_string`), LangChain's `llm_string`
(model class, identifying parameters, call kwargs such as `max_tokens` and `stop`) and the
serialized prompt messages. The value is each generation's text, message content,
`usage_metadata` and `response_metadata` (finish reason, per-token logprobs) as JSON, so a cached
reply reports the token usage and logprobs of the original call: tokens per question, the gate's
confidence signal and therefore every metric are identical on a re-run.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation

LOG = logging.getLogger(__name__)
SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,
    llm_string TEXT NOT NULL,
    value TEXT NOT NULL
)
"""


class SqliteJsonCache(BaseCache):
    """LangChain cache backed by one SQLite file; thread-safe; counts hits, misses and writes."""

    def __init__(self, path: str | Path, namespace: str = "") -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.namespace = namespace
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(SCHEMA)
        self._conn.commit()
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def key(self, prompt: str, llm_string: str) -> str:
        """The row key of one (namespace, llm_string, prompt)."""
        material = "\x1f".join((self.namespace, llm_string, prompt)).encode("utf-8")
        return hashlib.sha256(material).hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """The cached generations, or None on a miss."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM llm_cache WHERE key = ?", (self.key(prompt, llm_string),))
            found = row.fetchone()
            if found is None:
                self.misses += 1
                return None
            self.hits += 1
        return [_decode(item) for item in json.loads(found[0])]

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Store the generations (skipped, and logged, when they are not JSON-serializable)."""
        try:
            value = json.dumps([_encode(g) for g in return_val], ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            LOG.warning("LLM reply not cached (not JSON-serializable): %s", exc)
            return
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache (key, llm_string, value) VALUES (?, ?, ?)",
                (self.key(prompt, llm_string), llm_string, value),
            )
            self._conn.commit()
            self.writes += 1

    def clear(self, **kwargs: Any) -> None:
        """Delete every cached reply (all namespaces)."""
        with self._lock:
            self._conn.execute("DELETE FROM llm_cache")
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()

    def stats(self) -> dict[str, int]:
        """Hits, misses and writes since the cache was opened."""
        return {"hits": self.hits, "misses": self.misses, "writes": self.writes}


def _encode(generation: Generation) -> dict[str, Any]:
    """A JSON-ready record of one generation."""
    record: dict[str, Any] = {"text": generation.text, "generation_info": generation.generation_info}
    if isinstance(generation, ChatGeneration):
        message = generation.message
        record["message"] = {
            "content": message.content,
            "usage_metadata": dict(getattr(message, "usage_metadata", None) or {}) or None,
            "response_metadata": dict(message.response_metadata or {}),
            "additional_kwargs": dict(message.additional_kwargs or {}),
        }
    return record


def _decode(record: dict[str, Any]) -> Generation:
    """The generation a record was made from (a chat generation when it holds a message)."""
    message = record.get("message")
    if message is None:
        return Generation(text=record.get("text", ""), generation_info=record.get("generation_info"))
    ai = AIMessage(
        content=message["content"],
        usage_metadata=message.get("usage_metadata"),
        response_metadata=message.get("response_metadata") or {},
        additional_kwargs=message.get("additional_kwargs") or {},
    )
    return ChatGeneration(message=ai, generation_info=record.get("generation_info"))


def namespace_for(settings: Sequence[tuple[str, object]]) -> str:
    """A stable namespace string from (name, value) pairs (model spec, temperature, seed, …)."""
    return json.dumps(sorted((str(k), v) for k, v in settings), sort_keys=True, default=str)


class CacheRegistry:
    """One `SqliteJsonCache` per namespace over one file, for the duration of a run."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._caches: dict[str, SqliteJsonCache] = {}

    def get(self, namespace: str) -> SqliteJsonCache | None:
        """The cache of `namespace` (None when caching is disabled)."""
        if self.path is None:
            return None
        if namespace not in self._caches:
            self._caches[namespace] = SqliteJsonCache(self.path, namespace)
        return self._caches[namespace]

    def stats(self) -> dict[str, int]:
        """Hits, misses and writes summed over namespaces."""
        totals = {"hits": 0, "misses": 0, "writes": 0}
        for cache in self._caches.values():
            for key, value in cache.stats().items():
                totals[key] += value
        return totals

    def close(self) -> None:
        """Close every connection."""
        for cache in self._caches.values():
            cache.close()
        self._caches.clear()

"""Test doubles: a scripted chat model and a bag-of-words embedding. For unit tests only."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from anchorgate.tools.answer.text import normalize_words
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import DenseIndex, build_or_load
from anchorgate.tools.text.tokens import count_tokens, truncate_to_tokens


class ScriptedChatModel(BaseChatModel):
    """Replies from a script: a list consumed in order, or a function of the last prompt text."""

    script: list[str] | Callable[[str], str] = Field(default_factory=list)
    report_usage: bool = False
    honor_max_tokens: bool = True  # like a real model: the completion is cut at max_tokens
    delay_s: float = 0.0
    prompts: list[str] = Field(default_factory=list)
    max_tokens_seen: list[int] = Field(default_factory=list)
    # first-position candidates, reported like the llama.cpp model does (or a function of the prompt)
    first_tokens: list[tuple[str, float]] | Callable[[str], list[tuple[str, float]]] | None = None

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        self.prompts.append(prompt)
        self.max_tokens_seen.append(int(kwargs.get("max_tokens", -1)))
        if callable(self.script):
            text = self.script(prompt)
        else:
            if not self.script:
                raise AssertionError("ScriptedChatModel ran out of scripted replies")
            text = self.script.pop(0)
        cap = int(kwargs.get("max_tokens", -1))
        if self.honor_max_tokens and cap >= 0:
            text = truncate_to_tokens(text, cap)
        if self.delay_s:
            time.sleep(self.delay_s)
        usage = None
        if self.report_usage:
            prompt_tokens, completion_tokens = count_tokens(prompt), count_tokens(text)
            usage = {
                "input_tokens": prompt_tokens,
                "output_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
        first = self.first_tokens(prompt) if callable(self.first_tokens) else self.first_tokens
        metadata = {"first_tokens": [list(t) for t in first]} if first else {}
        message = AIMessage(content=text, usage_metadata=usage, response_metadata=metadata)  # type: ignore[arg-type]
        return ChatResult(generations=[ChatGeneration(message=message)])


class BagOfWordsEmbeddings(Embeddings):
    """Deterministic hashed bag-of-words vectors: texts sharing words are similar."""

    def __init__(self, size: int = 64) -> None:
        self.size = size

    def _vector(self, text: str) -> list[float]:
        vec = np.zeros(self.size, dtype="float32")
        for word in normalize_words(text):
            slot = int(hashlib.md5(word.encode(), usedforsecurity=False).hexdigest(), 16) % self.size
            vec[slot] += 1.0
        norm = float(np.linalg.norm(vec))
        return (vec / norm).tolist() if norm else vec.tolist()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:  # type: ignore[override]
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def bag_of_words_index(passages: Sequence[Passage], folder: Path, embeddings: Embeddings) -> DenseIndex:
    """A real index (FAISS + BM25 files) of a few toy passages over hashed bag-of-words vectors."""
    return build_or_load(list(passages), embeddings, "bow256", ChunkingSettings(120, 20), folder, progress=False)


def as_quoted(answer: str) -> str:
    """A free-style scripted answer ("X [1].") in the quoted shape the quoted answer style asks for."""
    from anchorgate.tools.answer.text import cited_numbers, is_idk, strip_citations

    if is_idk(answer):
        return "I don't know"
    numbers = cited_numbers(answer) or [1]
    text = strip_citations(answer)
    return f"{text}\nQUOTE [{numbers[0]}]: {text}"


def quoting_aware(reply: Callable[[str], str]) -> Callable[[str], str]:
    """Wrap a prompt → answer function so answer calls of the quoted style get the quoted shape."""

    def wrapped(prompt: str) -> str:
        text = reply(prompt)
        return as_quoted(text) if "QUOTE [n]" in prompt and "QUOTE [" not in text else text

    return wrapped


@contextlib.contextmanager
def running(server: Any, on_stop: Callable[[], None] | None = None) -> Iterator[Any]:
    """A `socketserver` server serving on a daemon thread for the block; `on_stop` runs before shutdown
    (to release handlers that wait), then the server is shut down and closed."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        if on_stop is not None:
            on_stop()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def imports_in(source: str, package: str) -> Iterator[tuple[str, list[str]]]:
    """Each import statement of `source` as (the module it names, the names it takes from it): `import a.b`
    is ("a.b", []), `from .c import d` in package "p.q" is ("p.q.c", ["d"]) (relative imports resolved)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            yield base, [alias.name for alias in node.names]

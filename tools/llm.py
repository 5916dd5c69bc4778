"""The one model seam: `load_chat_model(spec, …)` builds the chat model every agent uses.

Specs:
  local            Qwen2.5-Coder-0.5B-Instruct assembled from PyPI chunk packages (sha256-checked);
                   $ANCHORGATE_GGUF, when set, points `local` at another GGUF instead.
  gguf:/path.gguf  any llama.cpp model file.
  openai:<model>   any OpenAI-compatible server; base URL from $OPENAI_BASE_URL, key $OPENAI_API_KEY.
  ollama:<model>   a local Ollama server ($OLLAMA_HOST).
Switching models is configuration only. Local models are cached per (path, n_ctx, seed): loading
a GGUF costs seconds and the instance serialises its own calls.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from anchorgate.tools.errors import ConfigError, ModelUnavailableError
from anchorgate.tools.model_files import assemble_default_model, check_gguf

_LOCAL_MODELS: dict[tuple[str, int, int, int], BaseChatModel] = {}
_LOCAL_LOCK = threading.Lock()


def resolve_gguf(spec: str, cache_dir: str = "") -> Path:
    """The GGUF file a `local` or `gguf:` spec names, verified."""
    if spec.startswith("gguf:"):
        return check_gguf(Path(spec.removeprefix("gguf:")).expanduser())
    override = os.environ.get("ANCHORGATE_GGUF")
    if override:
        return check_gguf(Path(override).expanduser())
    return assemble_default_model(cache_dir)


def load_chat_model(
    spec: str = "local",
    *,
    temperature: float = 0.0,
    seed: int = 42,
    n_ctx: int = 4096,
    top_logprobs: int = 5,
    max_tokens: int = 256,
    cache_dir: str = "",
) -> BaseChatModel:
    """A LangChain chat model for `spec` with deterministic settings (temperature 0, fixed seed)."""
    kind, _, name = spec.partition(":")
    if kind in {"local", "gguf"}:
        return _local_model(spec, temperature, seed, n_ctx, top_logprobs, max_tokens, cache_dir)
    if kind == "openai" and name:
        return _openai_model(name, temperature, seed, top_logprobs, max_tokens)
    if kind == "ollama" and name:
        return _ollama_model(name, temperature, seed, max_tokens)
    raise ConfigError(
        f"unknown model spec {spec!r}", "use local, gguf:/path/model.gguf, openai:<model> or ollama:<model>"
    )


def _local_model(
    spec: str, temperature: float, seed: int, n_ctx: int, top_logprobs: int, max_tokens: int, cache_dir: str
) -> BaseChatModel:
    from anchorgate.tools.llama_chat import LlamaCppChat

    path = resolve_gguf(spec, cache_dir)
    key = (str(path), n_ctx, seed, top_logprobs)
    with _LOCAL_LOCK:
        if key not in _LOCAL_MODELS:
            try:
                _LOCAL_MODELS[key] = LlamaCppChat(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=os.cpu_count() or 1,
                    seed=seed,
                    temperature=temperature,
                    max_tokens=max_tokens,
                    top_logprobs=top_logprobs,
                )
            except (ValueError, RuntimeError, OSError) as exc:
                raise ModelUnavailableError(f"llama.cpp could not load {path}: {exc}") from exc
        model = _LOCAL_MODELS[key]
    # Per-call settings may differ between runs sharing one loaded model.
    return model.model_copy(update={"temperature": temperature, "max_tokens": max_tokens})


def _openai_model(name: str, temperature: float, seed: int, top_logprobs: int, max_tokens: int) -> BaseChatModel:
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as exc:
        raise ModelUnavailableError("openai: models need langchain-openai", "pip install 'anchorgate[openai]'") from exc
    kwargs: dict[str, Any] = {"model": name, "temperature": temperature, "seed": seed, "max_tokens": max_tokens}
    if top_logprobs > 0:
        kwargs.update(logprobs=True, top_logprobs=top_logprobs)
    if os.environ.get("OPENAI_BASE_URL"):
        kwargs["base_url"] = os.environ["OPENAI_BASE_URL"]
    return ChatOpenAI(**kwargs)


def _ollama_model(name: str, temperature: float, seed: int, max_tokens: int) -> BaseChatModel:
    try:
        from langchain_ollama import ChatOllama
    except ImportError as exc:
        raise ModelUnavailableError("ollama: models need langchain-ollama", "pip install 'anchorgate[ollama]'") from exc
    return ChatOllama(model=name, temperature=temperature, seed=seed, num_predict=max_tokens)

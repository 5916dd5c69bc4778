"""Generator: answer only from the delimited evidence, citing passages as [n].

Two answer styles (`answer.style`):
- `free`: one or two sentences with [n] markers (the baseline's single pass).
- `quoted`: the model gives the shortest answer, then copies the sentence that states it
  (`QUOTE [n]: …`); a llama.cpp grammar holds the local model to that shape.
- `auto` (presets A/B/C): quoted when the question asks for a short answer (a name, date, number,
  place, yes/no or a choice), free for open questions. Asked for "the shortest answer" to "what is
  the role of the prime minister in Canada", the 1.5B model declined; in sentences it answers. The quotes are
  checked against the passages (`tools.answer.quoted_draft`) and the draft the gate measures is the
  answer with the markers of the passages its quotes were found in.

The calls and the reading of replies are `tools/answer/reader.py`'s; this node decides which are made.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.prompts import render
from anchorgate.tools.answer.confidence import abstain_probability
from anchorgate.tools.answer.quoted_draft import parse_draft
from anchorgate.tools.answer.reader import ANSWER_STOPS, quoted_call, quoted_recited, recited, uses_quotes
from anchorgate.tools.answer.second_reading import answers_agree, reversed_documents
from anchorgate.tools.answer.text import IDK_ANSWER, is_idk
from anchorgate.tools.index.embeddings import on_e5_scale
from anchorgate.tools.llm.budgeted import budgeted_call
from anchorgate.tools.llm.calls import CallOutcome
from anchorgate.tools.llm.usage import add_usage, spend_update
from anchorgate.tools.retrieval.evidence_strength import top_relevance
from anchorgate.tools.services import aservices_for


async def _second_reading_cap(config: Config) -> float:
    """The relevance cap of the second reading on this index's embedding scale."""
    on_e5 = on_e5_scale((await aservices_for(config)).embeddings)
    return config.scaled("gate.second_reading_below_relevance", on_e5)


async def second_reading(state: State, config: Config, first: CallOutcome, draft: Mapping[str, Any]) -> dict[str, Any]:
    """The reader once more over the same passages in reverse order, when the first reading gave a quoted
    answer, `second_reading` is on, the context holds two passages or more and the best one's relevance is
    below `second_reading_below_relevance` (`e5_second_reading_below_relevance` on a multilingual-e5 index;
    tools/answer/second_reading.py). The update holds the call and its spend besides `second_reading` =
    {answer, second, agree}; nothing when not read again."""
    structure = draft.get("draft_structure") or {}
    answer = str(structure.get("answer") or "")
    if config.gate.second_reading == "off" or structure.get("status") != "quoted" or is_idk(answer):
        return {"second_reading": None}
    # one passage reads the same in either order: the same prompt, the same answer, a call for nothing
    if len(state["context"]) < 2 or top_relevance(state["context"]) >= await _second_reading_cap(config):
        return {"second_reading": None}
    spent = add_usage(state.get("usage", {}), spend_update(first.record))
    outcome = await quoted_call(
        {**state, "usage": spent}, config, state["context"], reversed_documents(state["context"]),
        stage="second_reading", user_template="answer_quoted_user",
    )  # fmt: skip
    if outcome.reply is None:  # no budget or a fault: no second opinion, not a disagreement
        return {"second_reading": None, "calls": [outcome.record]}
    second = parse_draft(outcome.text)
    second_answer = second.answer if second.status == "quoted" else ""
    agree = answers_agree(answer, second_answer, state["question"])
    return {
        "second_reading": {"answer": answer, "second": second_answer, "agree": agree},
        "calls": [outcome.record],
        "usage": spend_update(outcome.record),
    }


def _free_messages(state: State, config: Config) -> list[BaseMessage]:
    return [
        SystemMessage(render("generate_system", config.llm.prompt_overrides)),
        HumanMessage(
            render(
                "generate_user",
                config.llm.prompt_overrides,
                documents=state["context_text"],
                question=state["question"],
            )
        ),
    ]


def draft_source(question: str, context_text: str, quoted: bool) -> str:
    """A fingerprint of everything a draft is written from: the question, the passages, the style."""
    payload = json.dumps([question, context_text, quoted], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


async def _free_call(state: State, config: Config, stage: str) -> CallOutcome:
    """One free-style call (sentences with [n] markers) over the packed context."""
    return await budgeted_call(
        config, _free_messages(state, config), stage=stage, usage=state.get("usage", {}), stop=ANSWER_STOPS
    )


async def generate(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """One answer draft from the packed context; no call (empty draft) without context or budget.

    A pass that leaves the context as it was (the anchor one-shot retry finding nothing new, as on
    most FacQA questions) keeps the draft already written from it: at temperature 0 the same prompt
    gives the same reply, so a second call would only spend tokens and time (docs/benchmark-log.md).
    """
    config = runtime.context
    started = time.perf_counter()
    if not state.get("context"):
        elapsed = time.perf_counter() - started
        return {
            "draft": "", "draft_logprobs": None, "draft_abstain_p": None, "draft_source": "",
            "latency": {"generate": elapsed},
        }  # fmt: skip
    quoted = uses_quotes(config, state)
    source = draft_source(state["question"], state["context_text"], quoted)
    if config.llm.temperature == 0 and source == state.get("draft_source") and state.get("draft"):
        reused = state.get("drafts_reused", 0) + 1
        return {"drafts_reused": reused, "latency": {"generate": time.perf_counter() - started}}
    if quoted:
        outcome = await quoted_call(
            state, config, state["context"], state["context_text"], stage="generate", user_template="answer_quoted_user"
        )
        draft = await quoted_recited(outcome, state, config)
        # the answer line comes first: its first token is the model's choice to answer or decline
        abstain_p = abstain_probability(outcome.first_tokens, IDK_ANSWER)
        reread = await second_reading(state, config, outcome, draft)
    else:
        outcome = await _free_call(state, config, "generate")
        draft = await recited(outcome.text, state, config)
        abstain_p = abstain_probability(outcome.first_tokens, IDK_ANSWER)
        reread = {"second_reading": None}
    calls = [outcome.record, *reread.pop("calls", [])]
    usage = add_usage(spend_update(outcome.record), reread.pop("usage", {}))
    return {
        **draft,
        **reread,
        # a draft that failed or was skipped is not one to keep
        "draft_source": source if draft.get("draft") else "",
        "draft_logprobs": outcome.logprobs,
        "draft_abstain_p": abstain_p,
        "calls": calls,
        "usage": usage,
        "latency": {"generate": time.perf_counter() - started},
    }

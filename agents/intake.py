"""Intake: validate the question and start a fresh round state (a thread may hold many questions)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import RESET_CHANNELS, State
from anchorgate.tools.question.validation import validate_question


async def intake(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """Clean question, round 0, no decision yet, empty logs; the run's settings kept in state."""
    question = validate_question(state.get("question"), runtime.context.llm.max_question_chars)
    return {
        **RESET_CHANNELS,
        "question": question,
        "settings": run_settings(runtime.context),
        "round": 0,
        "decision": "",
        "reason": "",
        "context": [],
        "context_text": "",
        "draft": "",
        "draft_logprobs": None,
        "draft_abstain_p": None,
        "draft_structure": None,
        "draft_source": "",
        "second_reading": None,
        "drafts_reused": 0,
        "signals": {},
        "gate_decision": {},
        "judge": None,
        "pruning": {},
        "hyde_text": "",
        "hyde_use": False,
        "asked_question": "",
        "hop_plan": [],
        "hop": 0,
        "hop_plan_reason": "",
    }


def run_settings(config: Config) -> dict[str, Any]:
    """The run's settings for resume/replay, minus where the store lives (a URL may hold a password)."""
    values = config.to_dict()
    values["resources"].update(checkpoint_db="", cache_dir="")
    return values

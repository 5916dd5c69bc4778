"""`llm_timeout_s` is for model servers: a local, in-process model is slow on a busy machine, not failed."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from anchorgate.tools.llm.calls import counted_call


class SlowModel(BaseChatModel):
    """Replies after `delay_s`; `runs_in_process` as the llama.cpp wrapper declares it."""

    delay_s: float = 0.4
    runs_in_process: ClassVar[bool] = False

    @property
    def _llm_type(self) -> str:
        return "slow-fake"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        raise NotImplementedError

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        await asyncio.sleep(self.delay_s)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="Paris"))])


class SlowLocalModel(SlowModel):
    runs_in_process: ClassVar[bool] = True


def _call(model: BaseChatModel) -> Any:
    return asyncio.run(
        counted_call(model, [HumanMessage(content="Capital of France?")], stage="generate", tokens_left=500,
                     max_tokens=8, timeout_s=0.1)
    )  # fmt: skip


def test_a_server_model_past_the_timeout_is_a_timeout_fault() -> None:
    outcome = _call(SlowModel())
    assert outcome.reply is None and outcome.record["fault"] == "TIMEOUT"


def test_a_local_model_past_the_timeout_still_answers() -> None:
    outcome = _call(SlowLocalModel())
    assert outcome.reply is not None and outcome.reply.content == "Paris" and "fault" not in outcome.record

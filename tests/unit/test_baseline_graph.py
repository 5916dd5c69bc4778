"""The baseline graph with a scripted model and a bag-of-words index (no real model needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.api import aask, resolve_config
from anchorgate.graph.builder import build_graph
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.errors import InvalidQuestionError
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel

PASSAGES = [
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis."),
    Passage("rust", "Rust", "Rust is a systems programming language focused on memory safety."),
]


def _services(tmp_path: Path, model: ScriptedChatModel) -> str:
    embeddings = BagOfWordsEmbeddings()
    index = build_or_load(PASSAGES, embeddings, "bow", ChunkingSettings(32, 4), tmp_path / "idx", progress=False)
    return register_services(Services(index, embeddings, model, "toy"))


def _config(tmp_path: Path, services_id: str, **extra: object) -> dict[str, object]:
    return {
        "resources.services_id": services_id,
        "resources.checkpoint_db": str(tmp_path / "ckpt.sqlite"),
        "retrieval.k": 2,
        **extra,
    }


async def test_answer_is_cited_and_tokens_are_counted(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=["Owls hunt mice at night [1]."], report_usage=True)
    overrides = _config(tmp_path, _services(tmp_path, model))
    result = await aask("What do owls hunt?", preset="baseline", overrides=overrides)
    assert result["decision"] == "STOP" and result["reason"] == "STOP_SINGLE_PASS"
    assert [c["title"] for c in result["citations"]] == ["Owls"]
    assert "<documents>" in model.prompts[0] and "What do owls hunt?" in model.prompts[0]
    tokens = result["tokens"]
    assert tokens["by_stage"]["generate"]["calls"] == 1
    assert tokens["total"] == tokens["prompt"] + tokens["completion"] > 0
    assert result["telemetry"]["context"][0]["n"] == 1


async def test_idk_becomes_abstain_without_citations(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=["I don't know."])
    overrides = _config(tmp_path, _services(tmp_path, model))
    result = await aask("Who won the football final?", preset="baseline", overrides=overrides)
    assert (result["decision"], result["reason"], result["answer"]) == ("ABSTAIN", "ABSTAIN_MODEL_IDK", "I don't know")
    assert result["citations"] == [] and result["short_answer"] == ""


async def test_budget_too_small_for_any_call_abstains_without_calling(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=["never used"])
    overrides = _config(tmp_path, _services(tmp_path, model), **{"budget.token_budget": 20})
    result = await aask("What do owls hunt?", preset="baseline", overrides=overrides)
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_BUDGET")
    assert model.prompts == [] and result["tokens"]["total"] == 0


async def test_a_thread_reused_for_a_second_question_starts_fresh(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=["Owls hunt mice [1].", "Tea comes from Camellia sinensis [1]."])
    overrides = _config(tmp_path, _services(tmp_path, model))
    first = await aask("What do owls hunt?", preset="baseline", overrides=overrides, thread_id="t1")
    second = await aask("Where does green tea come from?", preset="baseline", overrides=overrides, thread_id="t1")
    assert second["tokens"]["by_stage"]["generate"]["calls"] == 1, "spend must not carry over between questions"
    assert second["citations"][0]["title"] == "Tea" and first["thread_id"] == second["thread_id"] == "t1"


async def test_state_is_checkpointed_in_sqlite(tmp_path: Path) -> None:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    model = ScriptedChatModel(script=["Owls hunt mice [1]."])
    overrides = _config(tmp_path, _services(tmp_path, model))
    await aask("What do owls hunt?", preset="baseline", overrides=overrides, thread_id="kept")
    async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "ckpt.sqlite")) as saver:
        graph = build_graph(checkpointer=saver)
        snapshot = await graph.aget_state({"configurable": {"thread_id": "kept"}})
        history = [s async for s in graph.aget_state_history({"configurable": {"thread_id": "kept"}})]
    assert snapshot.values["decision"] == "STOP" and snapshot.values["round"] == 1
    assert len(history) >= 6  # input + one checkpoint per node


async def test_generate_node_alone_with_a_fake(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=["Rust is memory safe [1]."])
    config = resolve_config("baseline", _config(tmp_path, _services(tmp_path, model)))
    node = build_graph().nodes["generator"]
    state = {
        "question": "What is Rust?",
        "context": [{"n": 1, "id": "x", "title": "Rust", "text": "Rust is safe.", "source": "", "score": 1.0}],
        "context_text": "<documents>\n[1] Rust\nRust is safe.\n</documents>",
        "usage": {},
    }
    from langgraph.runtime import Runtime

    update = await node.bound.ainvoke(state, config={"configurable": {"__pregel_runtime": Runtime(context=config)}})
    assert update["draft"] == "Rust is memory safe [1]." and update["usage"]["generate"]["calls"] == 1


@pytest.mark.parametrize("question", ["", "   \n\t", "x" * 2001])
async def test_bad_questions_fail_before_any_work(question: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidQuestionError):
        await aask(question, preset="baseline", overrides={"resources.checkpoint_db": str(tmp_path / "c.sqlite")})

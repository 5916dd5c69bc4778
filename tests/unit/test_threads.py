"""History, replay (time travel), resume and streaming over the SQLite checkpointer, with fakes."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from anchorgate.api import aask, astream, resolve_config
from anchorgate.graph import builder
from anchorgate.threads import replay, resume, thread_history
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.errors import ThreadNotFoundError
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, quoting_aware

PASSAGES = [
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis."),
]


def _overrides(tmp_path: Path, model: ScriptedChatModel, services_id: str = "", **extra: Any) -> dict[str, Any]:
    """Toy index, scripted model and a SQLite store in `tmp_path` (`services_id`: a fixed one, for another process)."""
    embeddings = BagOfWordsEmbeddings(128)
    index = build_or_load(PASSAGES, embeddings, "bow", ChunkingSettings(64, 8), tmp_path / "idx", progress=False)
    services_id = register_services(Services(index, embeddings, model, "toy"), services_id)
    return {"resources.services_id": services_id, "resources.checkpoint_db": str(tmp_path / "c.sqlite"), **extra}


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(
        script=quoting_aware(lambda p: "SUPPORTED" if "Verdict" in p else "Owls hunt mice at night [1]."),
        report_usage=True,
    )


async def test_history_lists_checkpoints_with_decisions(tmp_path: Path) -> None:
    overrides = _overrides(tmp_path, _model())
    await aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="h1")
    rows = await thread_history(resolve_config("A", overrides), "h1")
    assert rows[0]["next"] == [] and rows[0]["decision"] == "STOP" and rows[0]["tokens"] > 0
    assert any("generator" in r["next"] for r in rows)
    assert len({r["checkpoint_id"] for r in rows}) == len(rows)


async def test_replay_with_a_smaller_budget_changes_the_outcome(tmp_path: Path) -> None:
    overrides = _overrides(tmp_path, _model())
    first = await aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="r1")
    assert first["decision"] == "STOP"
    rows = await thread_history(resolve_config("A", overrides), "r1")
    before_generation = next(r for r in rows if r["next"] == ["generator"])
    forked = await replay(
        resolve_config("A", overrides), "r1", before_generation["checkpoint_id"], {"budget.token_budget": 30}
    )
    assert forked["decision"] == "ABSTAIN" and forked["reason"] == "ABSTAIN_BUDGET"
    assert forked["tokens"]["total"] <= 30
    assert forked["before"]["decision"] == "STOP" and forked["before"]["answer"] == first["answer"]
    assert forked["overrides"] == {"budget.token_budget": 30}
    # the fork runs on with the thread's own settings (preset A) plus the override
    history = await thread_history(resolve_config("A", overrides), "r1")
    assert history[0]["decision"] == "ABSTAIN"
    again = await resume(resolve_config("A", overrides), "r1")  # the fork's settings are the thread's now
    assert again["resumed"] is False and again["settings"]["budget"]["token_budget"] == 30


async def test_resume_of_a_finished_thread_changes_nothing(tmp_path: Path) -> None:
    model = _model()
    overrides = _overrides(tmp_path, model)
    done = await aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="d1")
    calls = len(model.prompts)
    again = await resume(resolve_config("A", overrides), "d1")
    assert again["resumed"] is False and again["answer"] == done["answer"] and len(model.prompts) == calls


async def test_unknown_thread_and_foreign_checkpoint_are_clear_errors(tmp_path: Path) -> None:
    overrides = _overrides(tmp_path, _model())
    await aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="t1")
    config = resolve_config("A", overrides)
    with pytest.raises(ThreadNotFoundError, match="no checkpoints"):
        await thread_history(config, "nope")
    with pytest.raises(ThreadNotFoundError, match="does not exist"):
        await resume(config, "nope")
    with pytest.raises(ThreadNotFoundError, match="does not exist"):
        await replay(config, "other-thread", (await thread_history(config, "t1"))[0]["checkpoint_id"], {})


async def test_stream_reports_nodes_gate_and_final_answer(tmp_path: Path) -> None:
    overrides = _overrides(tmp_path, _model())
    events = [e async for e in astream("What do owls hunt?", preset="A", overrides=overrides, thread_id="s1")]
    kinds = [e["event"] for e in events]
    assert kinds[-1] == "final" and events[-1]["decision"] == "STOP"
    gate = next(e for e in events if e["event"] == "gate_decision")
    assert gate["action"] == "STOP" and gate["reason"] == "STOP_OVERLAP_OK"
    assert {"anchor_predictor", "retriever_worker", "generator"} <= {e["node"] for e in events}


async def test_resume_after_a_crash_keeps_finished_nodes_and_matches_an_uninterrupted_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ref").mkdir()
    (tmp_path / "crash").mkdir()
    reference = await aask(
        "What do owls hunt?", preset="A", overrides=_overrides(tmp_path / "ref", _model()), thread_id="ref"
    )
    real_measure = builder.measure
    crashed = {"value": False}

    async def dies_once(state: Any, runtime: Any) -> Any:  # the process "dies" after the generator finished
        if not crashed["value"]:
            crashed["value"] = True
            raise RuntimeError("process died")
        return await real_measure(state, runtime)

    monkeypatch.setattr(builder, "measure", dies_once)
    model = _model()
    overrides = _overrides(tmp_path / "crash", model)
    with pytest.raises(RuntimeError, match="process died"):
        await aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="c1")
    generations = len(model.prompts)
    resumed = await resume(resolve_config("A", overrides), "c1")
    assert resumed["resumed"] is True and resumed["resumed_at"] == ["signals"]
    assert resumed["nodes_run"][0] == "signals" and "generator" not in resumed["nodes_run"]
    assert len(model.prompts) == generations  # the finished generator's reply was kept, not re-asked
    for key in ("answer", "decision", "reason", "tokens", "citations"):
        assert resumed[key] == reference[key], key


def test_replay_summary_names_what_the_fork_changed() -> None:
    from anchorgate.cli import _outcome_change

    before = {"decision": "STOP", "reason": "STOP_OVERLAP_OK", "rounds": 1, "tokens": {"total": 900}, "answer": "x"}
    after = {**before, "decision": "ABSTAIN", "reason": "ABSTAIN_BUDGET", "tokens": {"total": 30}}
    text = _outcome_change(before, after)
    assert "decision STOP → ABSTAIN" in text and "tokens   900 → 30" in text and "rounds   1 (unchanged)" in text


def _killed_after_the_fan_out(folder: str, workers: int) -> None:
    """Child process: ask, and SIGKILL itself once all `workers` retriever writes are committed.

    That is the moment the flaky crash test once hit: every task of the step has saved its writes
    but the step's own checkpoint is not written yet.
    """
    real_put_writes = AsyncSqliteSaver.aput_writes
    committed = []

    async def put_writes(self: AsyncSqliteSaver, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        await real_put_writes(self, config, writes, task_id, task_path)
        if task_path.startswith("~__pregel_push"):  # a retriever worker (a `Send` task)
            committed.append(task_id)
            if len(committed) == workers:
                os.kill(os.getpid(), signal.SIGKILL)

    AsyncSqliteSaver.aput_writes = put_writes  # type: ignore[method-assign]
    overrides = _overrides(Path(folder), _model(), services_id="crash-services")
    asyncio.run(aask("What do owls hunt?", preset="A", overrides=overrides, thread_id="k1"))


async def test_resume_after_a_kill_between_a_steps_writes_and_its_checkpoint(tmp_path: Path) -> None:
    (tmp_path / "ref").mkdir()
    (tmp_path / "crash").mkdir()
    ref_overrides = _overrides(tmp_path / "ref", _model())
    reference = await aask("What do owls hunt?", preset="A", overrides=ref_overrides, thread_id="ref")
    history = await thread_history(resolve_config("A", ref_overrides), "ref")
    fan_out = next(row for row in history if "retriever_worker" in row["next"])
    workers = fan_out["next"].count("retriever_worker")
    assert workers >= 2  # parallel Send tasks: the case where "all finished, none checkpointed" arises

    child = multiprocessing.get_context("spawn").Process(
        target=_killed_after_the_fan_out, args=(str(tmp_path / "crash"), workers)
    )
    child.start()
    await asyncio.to_thread(child.join, 300)
    assert child.exitcode == -signal.SIGKILL

    model = _model()
    overrides = _overrides(tmp_path / "crash", model, services_id="crash-services")  # the id the thread saved
    config = resolve_config("A", overrides)
    latest = (await thread_history(config, "k1"))[0]
    assert latest["next"] == ["retriever_worker"] * workers and all(t["done"] for t in latest["tasks"])
    resumed = await resume(config, "k1")
    # before the fix: LangGraph's live `next` was empty here, so resume answered `resumed: false`
    assert resumed["resumed"] is True and resumed["resumed_at"] == latest["next"] and resumed["kept"] == latest["next"]
    assert "retriever_worker" not in resumed["nodes_run"] and resumed["nodes_run"][0] == "fuse_and_select"
    finished = {t["id"] for t in latest["tasks"]}
    assert not finished & {t["id"] for t in resumed["tasks_run"]}
    for key in ("answer", "decision", "reason", "tokens", "citations"):
        assert resumed[key] == reference[key], key
    assert (await thread_history(config, "k1"))[0]["next"] == []

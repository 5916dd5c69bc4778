"""The Studio server's request checks as pure functions (the real server: tests/e2e/test_studio_server.py)."""

from __future__ import annotations

from typing import Any

import pytest

from anchorgate.graph.presets import load_preset
from anchorgate.studio.checks import (
    Route,
    check_assistant,
    check_input,
    check_run,
    check_thread_has_question,
    continues_thread,
    custom_assistant_id,
    match_route,
    resolve_settings,
)
from anchorgate.tools.errors import ConfigError, InvalidQuestionError
from tests.conftest import REPO_ROOT

THREAD = "0b5e3b52-5d2c-4d8e-9a51-7a3f0c1d2e3f"
GOOD = {"assistant_id": "anchorgate", "input": {"question": "What does the pass statement do?"}}
DOCS = str(REPO_ROOT / "docs")  # a corpus folder that exists: a run's corpus is checked for reachability


@pytest.mark.parametrize(
    ("method", "path", "route"),
    [
        ("POST", "/runs", Route("run")),
        ("POST", "/runs/stream", Route("run")),
        ("POST", "/runs/wait", Route("run")),
        ("POST", "/runs/batch", Route("batch")),
        ("POST", "/runs/crons", Route("cron")),
        ("PATCH", "/runs/crons/c1", Route("cron_patch", cron_id="c1")),
        ("POST", f"/threads/{THREAD}/runs", Route("thread_run", thread_id=THREAD)),
        ("POST", f"/threads/{THREAD}/runs/stream", Route("thread_run", thread_id=THREAD)),
        ("POST", f"/threads/{THREAD}/runs/wait/", Route("thread_run", thread_id=THREAD)),
        ("POST", f"/threads/{THREAD}/runs/crons", Route("cron", thread_id=THREAD)),
        ("POST", "/assistants", Route("assistant")),
        ("PATCH", "/assistants/a1", Route("assistant")),
    ],
)
def test_every_route_that_takes_a_run_input_or_settings_is_matched(method: str, path: str, route: Route) -> None:
    assert match_route(method, path) == route


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"/threads/{THREAD}/runs"),
        ("POST", "/runs/cancel"),
        ("POST", "/runs/crons/search"),
        ("POST", "/runs/crons/count"),
        ("PATCH", "/runs/crons/search"),
        ("POST", "/assistants/search"),
        ("POST", f"/threads/{THREAD}/runs/r1/cancel"),
        ("DELETE", "/runs/crons/c1"),
        ("POST", "/threads"),
    ],
)
def test_other_routes_are_passed_through(method: str, path: str) -> None:
    assert match_route(method, path) is None


def test_a_preset_is_expanded_into_its_full_settings_with_the_overrides() -> None:
    settings = resolve_settings({"preset": "b", "budget.token_budget": 3000})
    assert settings == load_preset("B", {"budget.token_budget": 3000})
    assert settings.gate.round_strategy == "auto" and settings.budget.max_rounds == 2


def test_overrides_apply_to_a_stored_assistant_unless_they_name_a_preset() -> None:
    base = load_preset("B", {"resources.corpus": DOCS}).to_dict()
    layered = resolve_settings({"budget.token_budget": 2500}, base)
    assert (layered.preset, layered.resources.corpus, layered.budget.token_budget, layered.gate.round_strategy) == (
        "B",
        DOCS,
        2500,
        "auto",
    )
    assert resolve_settings({"preset": "A"}, base) == load_preset("A")
    assert resolve_settings({}, None) == load_preset("baseline")


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"preset": "Z"}, "unknown preset 'Z'"),
        ({"preset": 3}, "preset must be a string"),
        ({"tokn_budget": 5}, "unknown setting 'tokn_budget'"),
        ({"budget.token_budget": "5"}, "token_budget must be of type int"),
        ({"budget.token_budget": -5}, "token_budget must not be negative"),
        ({"gate.mode": "maybe"}, "gate.mode='maybe' is not one of"),
        (["preset", "A"], "context must be a JSON object"),
    ],
)
def test_bad_settings_are_refused(context: Any, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_settings(context)
    assert message in info.value.one_line()


@pytest.mark.parametrize(
    ("run_input", "message"),
    [
        (None, "the run has no input"),
        ({}, "input has no question"),
        ("What is pass?", "input must be a JSON object, got str"),
        ({"question": "What is pass?", "budget.token_budget": 5}, "unknown key(s) 'budget.token_budget'"),
        ({"question": ""}, "the question is empty"),
        ({"question": "what is the of"}, "has only stopwords"),
        ({"question": "x" * 21}, "the limit is 20"),
    ],
)
def test_bad_inputs_are_refused(run_input: Any, message: str) -> None:
    with pytest.raises(InvalidQuestionError) as info:
        check_input(run_input, 20, required=True)
    assert message in info.value.one_line()


def test_check_run_expands_the_context_and_measures_the_question_with_its_limit() -> None:
    checked = check_run({**GOOD, "context": {"preset": "A", "budget.token_budget": 3000}})
    assert checked["context"] == load_preset("A", {"budget.token_budget": 3000}).to_dict()
    assert checked["input"] == GOOD["input"]
    with pytest.raises(InvalidQuestionError, match="the limit is 10"):
        check_run({**GOOD, "context": {"llm.max_question_chars": 10}})
    with pytest.raises(InvalidQuestionError, match="the limit is 10"):  # an assistant's limit counts too
        check_run(GOOD, base=load_preset("A", {"llm.max_question_chars": 10}).to_dict())
    assert "context" not in check_run(GOOD)  # nothing to expand: the assistant's own settings apply


def test_settings_in_config_configurable_are_checked_like_a_context() -> None:
    legacy = {**GOOD, "config": {"configurable": {"preset": "B", "thread_id": THREAD, "langgraph_request_id": "r"}}}
    configurable = check_run(legacy)["config"]["configurable"]
    assert configurable["gate"]["round_strategy"] == "auto" and configurable["thread_id"] == THREAD
    with pytest.raises(ConfigError, match="unknown setting 'tokn_budget'"):
        check_run({**GOOD, "config": {"configurable": {"tokn_budget": 1}}})


def test_no_setting_is_mistaken_for_one_of_langgraphs_own_configurable_values() -> None:
    every_setting = load_preset("A").to_dict()  # checkpoint_db included, next to checkpoint_id
    checked = check_run({**GOOD, "config": {"configurable": {**every_setting, "checkpoint_id": "c"}}})
    assert checked["config"]["configurable"] == {**every_setting, "checkpoint_id": "c"}
    with pytest.raises(ConfigError, match="checkpoint_db must be of type str"):
        check_run({**GOOD, "config": {"configurable": {"resources.checkpoint_db": 5}}})


def test_a_run_without_input_is_allowed_only_where_it_can_go_on() -> None:
    bare = {"assistant_id": "anchorgate"}
    with pytest.raises(InvalidQuestionError, match="the run has no input"):
        check_run(bare, mode="new")
    assert check_run(bare, mode="continue") == bare
    command = {"update": {"question": "What is pass?"}}  # a command that sets the question stands for an input
    assert check_run({**bare, "command": command}, mode="new")["command"] == command
    with pytest.raises(InvalidQuestionError, match="input has no question"):
        check_run({**bare, "input": {}}, mode="continue")
    assert check_run({"schedule": "0 * * * *"}, mode="patch") == {"schedule": "0 * * * *"}
    with pytest.raises(InvalidQuestionError, match="only punctuation"):
        check_run({"input": {"question": "?"}}, mode="patch")


def test_a_thread_run_without_input_needs_a_question_in_the_thread() -> None:
    assert continues_thread({"assistant_id": "anchorgate"})
    assert not continues_thread({"assistant_id": "anchorgate", "checkpoint_id": "c"})
    assert continues_thread({"assistant_id": "anchorgate", "command": {"goto": "finalizer"}})  # the thread's question
    assert not continues_thread({"assistant_id": "anchorgate", "command": {"update": {"question": "What is pass?"}}})
    assert not continues_thread(GOOD)
    check_thread_has_question({"question": "What is pass?"}, thread_exists=True, creates_thread=False)
    check_thread_has_question(None, thread_exists=False, creates_thread=False)  # the server says 404
    for values, exists in (({}, True), (None, False)):
        with pytest.raises(InvalidQuestionError, match="the thread holds no question yet"):
            check_thread_has_question(values, thread_exists=exists, creates_thread=True)


def test_an_assistant_stores_full_settings_and_bad_ones_are_refused() -> None:
    checked = check_assistant({"graph_id": "anchorgate", "context": {"preset": "C"}, "name": "c"})
    assert checked["context"] == load_preset("C").to_dict() and checked["name"] == "c"
    with pytest.raises(ConfigError, match="unknown preset"):
        check_assistant({"graph_id": "anchorgate", "context": {"preset": "nope"}})
    with pytest.raises(ConfigError, match="budget must be an object of budget settings"):
        check_assistant({"config": {"configurable": {"budget": 1}}})
    assert check_assistant({"name": "renamed"}) == {"name": "renamed"}


def test_only_a_stored_assistant_id_gives_a_base() -> None:
    assert custom_assistant_id({"assistant_id": THREAD}) == THREAD
    assert custom_assistant_id({"assistant_id": "anchorgate"}) is None
    assert custom_assistant_id([GOOD]) is None

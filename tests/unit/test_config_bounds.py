"""Every setting is checked for range and shape from its one declaration (graph/bounds.py), the same
way at every entry point: `--set`, the CLI, the Python API, Studio's context. No input ends as an
internal error (exit 70): a table of the hostile probe's cases, then random settings and questions."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
from collections.abc import Iterator
from typing import Any
from unittest import mock

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import anchorgate
from anchorgate import api
from anchorgate.cli import run
from anchorgate.graph.bounds import Range, Text
from anchorgate.graph.config import Config, field_names, parse_assignments, steps_needed
from anchorgate.graph.config_groups import GROUPS, ResourceSettings
from anchorgate.graph.presets import load_preset, preset_names
from anchorgate.prompts import prompt_names
from anchorgate.studio.app import RunContextMiddleware
from anchorgate.studio.checks import check_assistant, check_run
from anchorgate.threads import run_config
from anchorgate.tools.errors import EX_CONFIG, EX_SOFTWARE, EX_USAGE, AnchorgateError, ConfigError, InvalidQuestionError
from tests.unit.test_studio_app import ASSISTANT, FakeLookup, Server

QUESTION = "What does the pass statement do?"
REACHED_THE_MODEL = 99  # the exit code of the stand-in for loading the index and the model


class ReachedTheModel(AnchorgateError):
    """Raised where the run would load its index and model: everything before it accepted the input."""

    exit_code = REACHED_THE_MODEL


def _no_model(_config: Config) -> None:
    raise ReachedTheModel("the input was accepted; the model is not loaded in unit tests")


@contextlib.contextmanager
def _model_never_loaded() -> Iterator[None]:
    with mock.patch.object(api, "services_for", _no_model):
        yield


# (setting, its `--set` text, its JSON value as Studio or an API caller sends it, words of the error)
CASES: list[tuple[str, str, Any, str]] = [
    (
        "budget.token_budget",
        "99999999999999999999999",
        99999999999999999999999,
        "token_budget must be at most 10000000",
    ),
    ("budget.token_budget", "1000000000000", 10**12, "token_budget must be at most 10000000"),
    ("retrieval.list_reserve", "5,-1", [5, -1], "list_reserve must hold numbers from 0 to 10000"),
    ("retrieval.e5_scale", '{"retrieval.k": 3}', {"retrieval.k": 3}, "is not a setting on the embedding scale"),
    ("llm.prompt_overrides", '{"generate_user":5}', {"generate_user": 5}, "['generate_user'] must be text, not int"),
    (
        "llm.prompt_overrides",
        '{"generate_user":"Answer {question}"}',
        {"generate_user": "Answer {question}"},
        "lacks placeholder(s) {documents}",
    ),
    (
        "llm.prompt_overrides",
        '{"generate_user":"{documents} {question} {answer}"}',
        {"generate_user": "{documents} {question} {answer}"},
        "unknown placeholder(s) {answer}",
    ),
    ("llm.prompt_overrides", '{"nope":"x"}', {"nope": "x"}, "['nope'] is not a template name"),
    ("gate.gray_zone", "0.9,0.1", [0.9, 0.1], "gray_zone must be ordered"),
    ("gate.gray_zone", "1", [1.0], "gray_zone must be a pair"),
    ("gate.gray_zone", "0.1,0.2,0.3", [0.1, 0.2, 0.3], "gray_zone must be a pair"),
    ("gate.overlap_tau", "nan", math.nan, "overlap_tau must be a finite number"),
    ("gate.overlap_tau", "inf", math.inf, "overlap_tau must be a finite number"),
    ("gate.overlap_tau", "5", 5.0, "overlap_tau must be at most 2.0"),
    ("llm.n_ctx", "1", 1, "n_ctx must be at least 512"),
    ("llm.temperature", "50", 50.0, "temperature must be at most 2.0"),
    ("llm.timeout_s", "0", 0.0, "llm.timeout_s must be above 0.0"),
]
CASE_IDS = [f"{key}={raw}" for key, raw, _, _ in CASES]


@pytest.mark.parametrize(("key", "raw", "value", "words"), CASES, ids=CASE_IDS)
def test_set_refuses_each_probe_case_naming_the_setting_value_and_range(
    key: str, raw: str, value: Any, words: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        Config().replace(**parse_assignments([f"{key}={raw}"]))
    assert words in refused.value.one_line() and refused.value.exit_code == EX_CONFIG
    assert "allowed: " in refused.value.hint


@pytest.mark.parametrize(("key", "raw", "value", "words"), CASES, ids=CASE_IDS)
def test_cli_ask_exits_78_with_one_error_line_before_any_model(
    key: str, raw: str, value: Any, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with _model_never_loaded():
        code = run(["ask", QUESTION, "--set", f"{key}={raw}"])
    err = capsys.readouterr().err
    assert code == EX_CONFIG
    assert err.count("\n") == 1 and err.startswith("error: ") and words in err


@pytest.mark.parametrize(("key", "raw", "value", "words"), CASES, ids=CASE_IDS)
def test_the_python_api_raises_config_error(key: str, raw: str, value: Any, words: str) -> None:
    with _model_never_loaded(), pytest.raises(ConfigError) as refused:
        anchorgate.ask(QUESTION, overrides={key: value})
    assert words in refused.value.one_line() and "allowed: " in refused.value.hint


@pytest.mark.parametrize(("key", "raw", "value", "words"), CASES, ids=CASE_IDS)
def test_studio_refuses_each_case_in_context_configurable_and_assistants(
    key: str, raw: str, value: Any, words: str
) -> None:
    run_body = {"assistant_id": "anchorgate", "input": {"question": QUESTION}}
    for body in ({**run_body, "context": {key: value}}, {**run_body, "config": {"configurable": {key: value}}}):
        with pytest.raises(ConfigError) as refused:
            check_run(body)
        assert words in refused.value.one_line()
    with pytest.raises(ConfigError) as refused:
        check_assistant({"graph_id": "anchorgate", "context": {key: value}})
    assert words in refused.value.one_line()


@pytest.mark.parametrize(("key", "raw", "value", "words"), CASES, ids=CASE_IDS)
async def test_studio_answers_each_case_with_422_before_storing_anything(
    key: str, raw: str, value: Any, words: str
) -> None:
    server = Server()
    app = RunContextMiddleware(server, lookup=FakeLookup())
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://studio")
    body = {"assistant_id": "anchorgate", "input": {"question": QUESTION}, "context": {key: value}}
    for method, path, sent in (
        ("POST", "/runs/wait", body),
        ("POST", "/runs/crons", {**body, "schedule": "* * * * *"}),
        ("PATCH", f"/assistants/{ASSISTANT}", {"context": {key: value}}),
    ):
        response = await client.request(
            method, path, content=json.dumps(sent)
        )  # NaN and Infinity as Python writes them
        assert response.status_code == 422, (method, path)
        assert words in response.json()["detail"]
    assert server.received == []


@pytest.mark.parametrize("question", ["\ud800", "What does the pass statement do?\udcff"])
def test_a_question_with_a_lone_surrogate_is_an_invalid_question(
    question: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with _model_never_loaded():
        assert run(["ask", question]) == EX_USAGE
        with pytest.raises(InvalidQuestionError, match="not valid text"):
            anchorgate.ask(question)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: the question is not valid text")


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"generate_user": "{question:>999999999} {documents}"}, "format spec or conversion"),
        ({"generate_user": "{question.__class__} {documents}"}, "unknown placeholder(s) {question.__class__}"),
        ({"judge_system": 'Answer {"verdict": …}'}, "unknown placeholder(s)"),
        ({"generate_user": "{question} {documents} }"}, "is not a valid template"),
        ({"generate_user": "\ud800 {question} {documents}"}, "unpaired surrogate"),
        ({"generat_user": "x"}, "did you mean 'generate_user'?"),
    ],
)
def test_prompt_overrides_are_checked_against_the_packaged_templates(overrides: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as refused:
        Config().replace(**{"llm.prompt_overrides": overrides})
    assert words in refused.value.one_line()


def test_a_valid_override_keeps_exactly_the_packaged_placeholders() -> None:
    overrides = {
        "generate_user": "Passages:\n{documents}\n\nQ: {question}",
        "judge_system": 'Reply {{"verdict": …}}',  # a literal brace, doubled
        "hyde": "{question}{question}",
    }
    assert Config().replace(**{"llm.prompt_overrides": overrides}).llm.prompt_overrides == overrides


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"resources.corpus": "docs\x00"}, "resources.corpus must not hold a NUL character"),
        ({"llm.seed": 2**32}, "llm.seed must be at most 4294967295"),
        ({"budget.token_budget": -5}, "token_budget must not be negative"),  # the words the e2e tests expect
        ({"gate.gray_zone": (0.2, math.nan)}, "gate.gray_zone must hold finite numbers"),
        ({"gate.gray_zone": ("0.1", "0.2")}, "gate.gray_zone must hold two numbers"),
        ({"gate.gray_zone": (0.2, 1.5)}, "gate.gray_zone must lie within 0.0 and 1.0"),
        ({"retrieval.list_reserve": (5, True)}, "retrieval.list_reserve must hold two whole numbers"),
        ({"retrieval.list_reserve[2]": 1}, "retrieval.list_reserve has parts [0] to [1], not [2]"),
        ({"retrieval.e5_scale": {"retrieval.relevance_floor": 3}}, "must lie within 0 and 2"),
        ({"llm.retry_backoff_s": (8.0, 1.0)}, "llm.retry_backoff_s must be ordered"),
        ({"gate": {"overlap_tau": 0.5, "nope": 1}}, "unknown setting 'gate.nope'"),
        ({"budget": 5}, "budget must be an object of budget settings"),
    ],
)
def test_relations_text_and_shapes(changes: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as refused:
        Config().replace(**changes)
    assert words in refused.value.one_line()


def test_the_step_limit_follows_max_rounds() -> None:
    four = Config().replace(**{"budget.max_rounds": 4})
    assert run_config(four, "t")["recursion_limit"] == steps_needed(4) == 48
    assert run_config(Config(), "t")["recursion_limit"] == steps_needed(1) == 21


def test_every_preset_builds() -> None:
    for name in preset_names():
        assert load_preset(name).preset == name


def test_every_number_declares_its_range_and_every_text_its_rule() -> None:
    for group in GROUPS.values():
        for field in dataclasses.fields(group):
            rule = field.metadata["allowed"]
            default = getattr(group(), field.name)
            if isinstance(default, int | float) and not isinstance(default, bool):
                assert isinstance(rule, Range), field.name
            if isinstance(default, str):
                assert rule is not None, field.name
    corpus = next(f for f in dataclasses.fields(ResourceSettings) if f.name == "corpus")
    assert isinstance(corpus.metadata["allowed"], Text)


def test_anchorgate_config_shows_each_settings_range_or_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["config"]) == 0
    out = capsys.readouterr().out
    assert "    allowed: 1 ≤ budget.token_budget ≤ 10000000\n" in out
    assert "    allowed: a pair low,high with 0.0 ≤ low ≤ high ≤ 1.0\n" in out
    assert "    allowed: one of none, baug\n" in out


# --- random settings and questions: a value or a clean error, never exit 70 ----------------------------
KEYS = st.sampled_from(field_names()) | st.text(max_size=12)
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=30)  # lone surrogates too
NUMBER_TEXT = (
    st.integers(min_value=-(10**30), max_value=10**30).map(str)
    | st.floats(allow_nan=True, allow_infinity=True).map(repr)
    | st.sampled_from(["nan", "inf", "-inf", "-0", "1e309", "9" * 5000, "0x10", "1_000", "٣"])
)
SHAPES = st.sampled_from(
    ["0.9,0.1", "1", "0.1,0.2,0.3", "0.2,0.4", ",", "", " ", "true", "off", "[" * 5000, "a\x00b", "local"]
)
TEMPLATE_TEXT = st.sampled_from(
    ["{question}", "{documents} {question}", "{question:>9} {documents}", "{", "}", "{{x}}", "{0}", "{answer}"]
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT | TEMPLATE_TEXT,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(prompt_names()) | st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
VALUES = NUMBER_TEXT | SHAPES | ANY_TEXT | JSON_VALUES.map(json.dumps)
ASSIGNMENTS = st.lists(st.builds("{}={}".format, KEYS, VALUES) | ANY_TEXT, max_size=3)
QUESTIONS = st.sampled_from([QUESTION, "", "   ", "\ud800", "what is the of", "?", "x" * 2001]) | ANY_TEXT
PRESETS = st.sampled_from(["A", "b", "baseline", "C", "Z", ""])
FUZZ = settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _clean(exc: AnchorgateError) -> None:
    assert exc.exit_code != EX_SOFTWARE and "\n" not in exc.one_line()


@FUZZ
@given(ASSIGNMENTS)
def test_random_set_values_give_a_config_or_a_clean_error(assignments: list[str]) -> None:
    try:
        config = Config().replace(**parse_assignments(assignments))
    except AnchorgateError as exc:
        _clean(exc)
        return
    json.dumps(config.to_dict(), allow_nan=False)  # what a checkpoint or Studio stores: finite, plain JSON
    numbers = [v for group in config.to_dict().values() if isinstance(group, dict) for v in group.values()]
    assert all(abs(v) < 2**63 for v in numbers if isinstance(v, int))  # msgpack's 64 bits


@FUZZ
@given(PRESETS, ASSIGNMENTS, QUESTIONS)
def test_random_cli_asks_end_in_a_value_or_one_error_line_never_exit_70(
    preset: str, assignments: list[str], question: str
) -> None:
    err = io.StringIO()
    argv = ["ask", "--preset", preset, *(f"--set={item}" for item in assignments), "--", question]
    with _model_never_loaded(), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = run(argv)
    assert code != EX_SOFTWARE, err.getvalue()
    assert code in (REACHED_THE_MODEL, EX_USAGE, EX_CONFIG), (code, err.getvalue())
    lines = err.getvalue().splitlines()  # a flat setting name of the previous release adds its one note line first
    assert [line for line in lines if not line.startswith("note: setting ")] == lines[-1:], lines
    assert lines[-1].startswith("error: ") and err.getvalue().endswith("\n")


@FUZZ
@given(PRESETS, st.dictionaries(KEYS, JSON_VALUES, max_size=3), QUESTIONS)
def test_random_api_overrides_and_questions_raise_only_clean_errors(
    preset: str, overrides: dict[str, Any], question: str
) -> None:
    with _model_never_loaded():
        try:
            anchorgate.ask(question, preset=preset, overrides=overrides)
        except ReachedTheModel:
            return
        except AnchorgateError as exc:
            _clean(exc)

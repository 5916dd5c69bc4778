from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from anchorgate.cli import run
from anchorgate.graph.config import Config, describe_fields, field_names, parse_assignments, parse_value
from anchorgate.graph.config_keys import DeprecatedSettingName
from anchorgate.graph.presets import load_preset, preset_names
from anchorgate.tools.errors import EX_CONFIG, ConfigError


def test_presets_follow_the_design_table() -> None:
    assert preset_names() == ["baseline", "A", "B", "C"]
    baseline, a, b, c = (load_preset(n) for n in preset_names())
    assert (
        baseline.budget.max_rounds,
        baseline.gate.mode,
        baseline.retrieval.use_anchors,
        baseline.retrieval.mode,
    ) == (
        1,
        "none",
        False,
        "dense",
    )
    assert baseline.budget.max_context_tokens == 900 and baseline.retrieval.mmr_diversity == 0.0
    assert (
        a.retrieval.pool_k,
        a.retrieval.k,
        a.retrieval.mmr_diversity,
        a.retrieval.anchor_bonus,
        a.retrieval.per_source_cap,
    ) == (
        24,
        8,
        0.45,
        0.07,
        2,
    )
    assert (a.gate.mode, a.judge.policy, a.judge.max_calls, a.gate.factoid_one_shot) == ("baug", "gray_zone", 1, True)
    assert (b.budget.max_rounds, b.gate.round_strategy, b.budget.round2_context_tokens, b.judge.policy) == (
        2,
        "auto",
        700,
        "always",
    )
    assert b.retrieval.list_reserve == (5, 3)
    assert c.retrieval.reranker != "none" and c.gate.mode == "baug"


def test_preset_names_are_case_insensitive_and_overrides_win() -> None:
    config = load_preset("b", {"budget.token_budget": 5000})
    assert config.preset == "B" and config.budget.token_budget == 5000 and config.budget.max_rounds == 2


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("budget.token_budget=1500", 1500),
        ("gate.overlap_tau=0.5", 0.5),
        ("gate.follow_hops=yes", True),
        ("retrieval.list_reserve=5,3", (5, 3)),
        ("retrieval.list_reserve[1]=4", 4),
        ("gate.gray_zone=0.2,0.4", (0.2, 0.4)),
    ],
)
def test_set_values_are_typed(raw: str, expected: object) -> None:
    key = raw.split("=")[0]
    assert parse_assignments([raw])[key] == expected


def test_unknown_key_suggests_the_close_one() -> None:
    with pytest.raises(ConfigError, match="unknown setting") as info:
        parse_value("budget.token_budgte", "5")
    assert "budget.token_budget" in info.value.hint


@pytest.mark.parametrize(
    "changes",
    [{"budget.token_budget": -1}, {"gate.mode": "maybe"}, {"judge.policy": "sometimes"}, {"budget.max_rounds": 0}],
)
def test_invalid_values_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        Config().replace(**changes)


def test_malformed_assignment_names_itself() -> None:
    with pytest.raises(ConfigError, match="group.field=value"):
        parse_assignments(["budget.token_budget"])
    with pytest.raises(ConfigError, match="cannot read budget.token_budget"):
        parse_assignments(["budget.token_budget=lots"])


def test_settings_sit_in_at_most_eight_groups_of_at_most_sixty_in_all() -> None:
    names = field_names()
    assert len(names) <= 60 and len({name.partition(".")[0] for name in names} - {"preset"}) <= 8
    assert not [name for name in names if name.partition(".")[2].startswith("e5_") and name != "retrieval.e5_scale"]


def test_every_group_and_field_has_a_description() -> None:
    for field in dataclasses.fields(Config):
        assert field.metadata.get("description"), field.name
    for name, _type, description in describe_fields():
        assert description.strip(), name


def test_a_flat_name_still_works_with_a_deprecation_note() -> None:
    with pytest.warns(DeprecatedSettingName, match="'token_budget' is now 'budget.token_budget'"):
        config = load_preset("A", {"token_budget": 5000})
    assert config.budget.token_budget == 5000
    with pytest.warns(DeprecatedSettingName, match="'e5_relevance_floor' is now"):
        assert load_preset("A", {"e5_relevance_floor": 0.25}).retrieval.e5_scale["retrieval.relevance_floor"] == 0.25


def test_the_cli_prints_the_note_once_and_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["config", "--preset", "A"]) == 0  # no --set: no note
    assert "note:" not in capsys.readouterr().err
    assert run(["ask", "q", "--set", "token_budget=5000", "--set", "token_budget=4000"], handler_hook=_parsed) == 0
    err = capsys.readouterr().err
    assert err.count("note: setting 'token_budget' is now 'budget.token_budget'") == 1


def _parsed(args: Any) -> int:
    """The command's handler, up to reading its settings (no model is loaded)."""
    assert parse_assignments(args.set) == {"budget.token_budget": 4000}
    return 0


@pytest.mark.parametrize(
    ("assignment", "words", "hint"),
    [
        ("gates.mode=baug", "unknown setting 'gates.mode'", "the groups: resources, retrieval, budget, gate"),
        ("gate.moda=baug", "unknown setting 'gate.moda'", "did you mean gate.mode?"),
        ("budget.nope=1", "unknown setting 'budget.nope'", "the budget settings: token_budget, max_context_tokens"),
        ("use_hyde=yes", "setting 'use_hyde' was withdrawn", "gate.round_strategy=hyde"),
        ("retrieval.adaptive_mmr=no", "setting 'retrieval.adaptive_mmr' was withdrawn", "retrieval.mmr_diversity"),
    ],
)
def test_an_unknown_group_or_field_is_exit_78_listing_the_valid_names(
    assignment: str, words: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_assignments([assignment])
    assert words in str(refused.value) and hint in refused.value.hint and refused.value.exit_code == EX_CONFIG
    assert run(["ask", "q", "--set", assignment]) == EX_CONFIG
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and hint in err


def test_a_context_by_group_builds_the_same_config_as_dotted_names() -> None:
    by_group = Config(gate={"mode": "baug", "overlap_tau": 0.5}, llm={"model": "local-0.5b"})  # type: ignore[arg-type]
    dotted = Config().replace(**{"gate.mode": "baug", "gate.overlap_tau": 0.5, "llm.model": "local-0.5b"})
    assert by_group == dotted and Config(**by_group.to_dict()) == by_group


def test_a_checkpoint_written_before_the_groups_is_read() -> None:
    flat = {"preset": "B", "token_budget": 3000, "gate": "baug", "llm": "local-0.5b", "use_hyde": True,
            "list_reserve_main": 5, "list_reserve_extra": 3, "recursion_limit": 30}  # fmt: skip
    config = Config.from_saved(flat)
    assert (config.preset, config.budget.token_budget, config.gate.mode, config.llm.model) == (
        "B", 3000, "baug", "local-0.5b",
    )  # fmt: skip
    assert config.retrieval.list_reserve == (5, 3)


def test_a_grouped_checkpoint_holding_a_withdrawn_field_is_read() -> None:
    saved = load_preset("A").to_dict()
    saved["retrieval"]["adaptive_mmr"] = True  # stored by the release that had the setting
    assert Config.from_saved(saved) == load_preset("A")


def test_scaled_settings_read_the_e5_table_only_on_an_e5_index() -> None:
    a = load_preset("A")
    assert a.scaled("retrieval.relevance_floor", on_e5=False) == 0.30
    assert a.scaled("retrieval.relevance_floor", on_e5=True) == 0.20
    assert a.scaled("gate.second_reading_below_relevance", on_e5=True) == 0.5
    assert load_preset("baseline").scaled("retrieval.relevance_floor", on_e5=True) == 0.0

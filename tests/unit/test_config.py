from __future__ import annotations

import dataclasses

import pytest

from anchorgate.graph.config import Config, parse_assignments, parse_value
from anchorgate.graph.presets import load_preset, preset_names
from anchorgate.tools.errors import ConfigError


def test_every_field_has_a_description() -> None:
    for field in dataclasses.fields(Config):
        assert field.metadata.get("description"), field.name


def test_presets_follow_the_design_table() -> None:
    assert preset_names() == ["baseline", "A", "B", "C"]
    baseline, a, b, c = (load_preset(n) for n in preset_names())
    assert (baseline.max_rounds, baseline.gate, baseline.use_anchors, baseline.retrieval_mode) == (
        1,
        "none",
        False,
        "dense",
    )
    assert baseline.max_context_tokens == 900 and baseline.mmr_diversity == 0.0
    assert (a.retrieval_pool_k, a.retrieval_k, a.mmr_diversity, a.anchor_bonus, a.per_source_cap) == (
        24,
        8,
        0.45,
        0.07,
        2,
    )
    assert (a.gate, a.judge_policy, a.judge_max_calls, a.factoid_one_shot) == ("baug", "gray_zone", 1, True)
    assert (b.max_rounds, b.use_hyde, b.round2_context_tokens, b.judge_policy) == (2, True, 700, "always")
    assert (b.list_reserve_main, b.list_reserve_extra) == (5, 3)
    assert c.reranker != "none" and c.gate == "baug"


def test_preset_names_are_case_insensitive_and_overrides_win() -> None:
    config = load_preset("b", {"token_budget": 5000})
    assert config.preset == "B" and config.token_budget == 5000 and config.max_rounds == 2


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("token_budget=1500", 1500), ("overlap_tau=0.5", 0.5), ("use_hyde=yes", True), ("gray_zone=0.2,0.4", (0.2, 0.4))],
)
def test_set_values_are_typed(raw: str, expected: object) -> None:
    key = raw.split("=")[0]
    assert parse_assignments([raw])[key] == expected


def test_unknown_key_suggests_the_close_one() -> None:
    with pytest.raises(ConfigError, match="unknown setting") as info:
        parse_value("token_budgte", "5")
    assert "token_budget" in info.value.hint


@pytest.mark.parametrize(
    "changes", [{"token_budget": -1}, {"gate": "maybe"}, {"judge_policy": "sometimes"}, {"max_rounds": 0}]
)
def test_invalid_values_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        Config().replace(**changes)


def test_malformed_assignment_names_itself() -> None:
    with pytest.raises(ConfigError, match="key=value"):
        parse_assignments(["token_budget"])
    with pytest.raises(ConfigError, match="cannot read token_budget"):
        parse_assignments(["token_budget=lots"])


def test_abstain_p_max_is_a_probability() -> None:
    assert load_preset("A", {"abstain_p_max": 0.3}).abstain_p_max == 0.3
    with pytest.raises(ConfigError, match="at most 1.0"):
        load_preset("A", {"abstain_p_max": 1.5})

"""The one configuration: every knob of a run, in seven groups (graph/config_groups.py), each with a description.

`Config` is also the LangGraph context schema, so Studio shows every group and field with its
description and a person can change the preset, the budget, the model or a prompt per run. Hard
budgets live here; spend lives in the graph state. Per-run values win over environment variables.

A setting is named `group.field` (`gate.overlap_tau`) on the command line (`--set`), in the Python
API's overrides and in the HTTP API (graph/config_keys.py); the flat names of the release before
the groups are read for one more release, with a deprecation note.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from dataclasses import dataclass, field, fields
from typing import Any

from anchorgate.graph.config_checks import (
    allowed_values,
    build_group,
    check_value,
    describe_fields,
    field_names,
)
from anchorgate.graph.config_groups import (
    GROUPS,
    PRESET_DESCRIPTION,
    AnswerSettings,
    BudgetSettings,
    GateSettings,
    JudgeSettings,
    LLMSettings,
    ResourceSettings,
    RetrievalSettings,
)
from anchorgate.graph.config_keys import (
    WITHDRAWN,
    DeprecatedSettingName,
    canonical,
    changed_values,
    parse_assignments,
    parse_value,
)
from anchorgate.graph.config_rules import steps_needed

__all__ = [
    "Config",
    "allowed_values",
    "describe_fields",
    "field_names",
    "parse_assignments",
    "parse_value",
    "steps_needed",
]


def _group(name: str) -> Any:
    return field(default_factory=GROUPS[name], metadata={"description": (GROUPS[name].__doc__ or "").strip()})


@dataclass(kw_only=True)
class Config:
    """All settings of one question-answering run. Presets fill these; `--set group.field=value` overrides."""

    preset: str = field(default="baseline", metadata={"description": PRESET_DESCRIPTION})
    resources: ResourceSettings = _group("resources")
    retrieval: RetrievalSettings = _group("retrieval")
    budget: BudgetSettings = _group("budget")
    gate: GateSettings = _group("gate")
    judge: JudgeSettings = _group("judge")
    answer: AnswerSettings = _group("answer")
    llm: LLMSettings = _group("llm")

    def __post_init__(self) -> None:
        # Studio and the servers build the context straight from JSON: a group arrives as an object.
        for name in GROUPS:
            setattr(self, name, build_group(name, getattr(self, name)))
        self.validate()

    @classmethod
    def from_saved(cls, values: dict[str, Any]) -> Config:
        """A Config from a stored `to_dict()`: by group, or flat as checkpoints written before the groups hold it."""
        if not values or any(isinstance(values.get(name), dict) for name in GROUPS):
            kept: dict[str, Any] = {
                name: {key: value for key, value in group.items() if f"{name}.{key}" not in WITHDRAWN}
                if isinstance(group, dict)
                else group
                for name, group in values.items()
            }  # a field a later release withdrew is not read back
            return cls(**kept)
        flat = {key: value for key, value in values.items() if key not in WITHDRAWN}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecatedSettingName)  # names the program stored, not the user's
            return cls().replace(**{canonical(key, warn=False): value for key, value in flat.items()})

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values by group (tuples become lists)."""
        return json.loads(json.dumps(dataclasses.asdict(self)))

    def get(self, key: str) -> Any:
        """The value of setting `group.field` (or `preset`)."""
        group, _, name = key.partition(".")
        return getattr(getattr(self, group), name) if name else getattr(self, group)

    def scaled(self, key: str, on_e5: bool) -> float:
        """Setting `key` on the index's scale: `retrieval.e5_scale[key]` on a multilingual-e5 index, if named."""
        if on_e5 and key in self.retrieval.e5_scale:
            return float(self.retrieval.e5_scale[key])
        return float(self.get(key))

    def replace(self, **changes: Any) -> Config:
        """A copy with `changes` (`"group.field": value`, or a group as {field: value}) applied and validated."""
        values: dict[str, Any] = {"preset": self.preset}
        values.update({name: dataclasses.asdict(getattr(self, name)) for name in GROUPS})
        return Config(**changed_values(values, changes))

    def validate(self) -> None:
        """Raise ConfigError on the first setting its declaration does not allow: type, choices, range, shape."""
        check_value("preset", self.preset)
        for name in GROUPS:
            group = getattr(self, name)
            for f in fields(group):
                check_value(f"{name}.{f.name}", getattr(group, f.name), self)

"""Setting names, typed values and checks: how `--set`, the APIs and Studio reach graph/config.py.

A setting is named `group.field` (`gate.overlap_tau`). The flat names of the release before the
groups (`overlap_tau`) are still read, with a deprecation note, for one more release; a setting
that was withdrawn is refused with what replaced it. `key[item]` sets one part of a pair
(`retrieval.list_reserve[0]`) or one entry of a table (`retrieval.e5_scale[retrieval.relevance_floor]`).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from anchorgate.graph.bounds import shown
from anchorgate.graph.config_checks import allowed_values, default_of, is_setting, names_hint
from anchorgate.graph.config_groups import GROUPS
from anchorgate.tools.errors import ConfigError


class DeprecatedSettingName(FutureWarning):
    """A setting named by its flat name of the release before the groups (the CLI prints it as a note)."""


# Flat names of the release before the groups: what each is now.
RENAMED: dict[str, str] = {
    "corpus": "resources.corpus",
    "embedding_model": "resources.embedding_model",
    "cache_dir": "resources.cache_dir",
    "checkpoint_db": "resources.checkpoint_db",
    "vector_store": "resources.vector_store",
    "vector_collection": "resources.vector_collection",
    "services_id": "resources.services_id",
    "chunk_tokens": "resources.chunk_tokens",
    "retrieval_mode": "retrieval.mode",
    "fusion": "retrieval.fusion",
    "dense_weight": "retrieval.dense_weight",
    "retrieval_pool_k": "retrieval.pool_k",
    "retrieval_k": "retrieval.k",
    "use_anchors": "retrieval.use_anchors",
    "max_anchor_workers": "retrieval.max_anchor_workers",
    "bridge_links": "retrieval.bridge_links",
    "bridge_weight": "retrieval.bridge_weight",
    "mmr_diversity": "retrieval.mmr_diversity",
    "anchor_bonus": "retrieval.anchor_bonus",
    "relevance_floor": "retrieval.relevance_floor",
    "e5_relevance_floor": "retrieval.e5_scale[retrieval.relevance_floor]",
    "per_source_cap": "retrieval.per_source_cap",
    "list_reserve_main": "retrieval.list_reserve[0]",
    "list_reserve_extra": "retrieval.list_reserve[1]",
    "reranker": "retrieval.reranker",
    "pruning_threshold": "retrieval.pruning_threshold",
    "max_context_tokens": "budget.max_context_tokens",
    "round2_context_tokens": "budget.round2_context_tokens",
    "max_output_tokens": "budget.max_output_tokens",
    "token_budget": "budget.token_budget",
    "max_rounds": "budget.max_rounds",
    "min_round_tokens": "budget.min_round_tokens",
    "gate": "gate.mode",
    "overlap_tau": "gate.overlap_tau",
    "gray_zone": "gate.gray_zone",
    "retry_min_relevance": "gate.strong_evidence",
    "factoid_one_shot": "gate.factoid_one_shot",
    "abstain_unanchored_answers": "gate.abstain_unanchored_answers",
    "round2_strategy": "gate.round_strategy",
    "second_reading": "gate.second_reading",
    "second_reading_below_relevance": "gate.second_reading_below_relevance",
    "e5_second_reading_below_relevance": "retrieval.e5_scale[gate.second_reading_below_relevance]",
    "judge_policy": "judge.policy",
    "judge_style": "judge.style",
    "judge_accept_p": "judge.accept_p",
    "judge_grounding_min": "judge.grounding_min",
    "judge_max_calls": "judge.max_calls",
    "judge_bridged_answers": "judge.bridged_answers",
    "answer_style": "answer.style",
    "repair_citations": "answer.repair_citations",
    "llm": "llm.model",
    "temperature": "llm.temperature",
    "seed": "llm.seed",
    "n_ctx": "llm.n_ctx",
    "llm_timeout_s": "llm.timeout_s",
    "llm_max_retries": "llm.max_retries",
    "llm_retry_backoff_s": "llm.retry_backoff_s[0]",
    "llm_retry_backoff_max_s": "llm.retry_backoff_s[1]",
    "max_question_chars": "llm.max_question_chars",
    "prompt_overrides": "llm.prompt_overrides",
}

# Flat names withdrawn with the groups: why, and what to use instead.
WITHDRAWN: dict[str, str] = {
    "recursion_limit": "LangGraph's step limit now follows budget.max_rounds",
    "chunk_overlap_tokens": "chunks now share a sixth of resources.chunk_tokens",
    "use_hyde": "use gate.round_strategy=hyde (or auto, which uses HyDE for low support)",
    "use_pruning": "set retrieval.pruning_threshold above 0 to prune",
    "factoid_min_tokens_left": "the anchor one-shot retry needs budget.min_round_tokens",
    "rank_fusion_weight": "selection weighs the fused rank 0.7, the seed's",
    "mmr_redundancy_floor": "MMR counts every similarity, as the seed's",
    "rerank_max_comparisons": "the pairwise reranker makes at most 8 comparisons",
    "rerank_token_budget": "the pairwise reranker spends at most 700 tokens",
    "support_threshold": "a claim is supported at 0.5, the seed's",
    "novelty_epsilon": "a later pass that found under 10 % new passages ends the search, the seed's",
    "judge_relevance_max": "the weak_evidence judge policy was withdrawn: use gray_zone or always",
    "judge_retries": "the judge is re-asked once when its verdict cannot be read",
    "judge_context_tokens": "the judge reads at most 450 tokens of the passages the draft cites",
    "rewrite_min_similarity": "the rewrite guard keeps seed 001's cuts",
    "rewrite_top_distance_margin": "the rewrite guard keeps seed 001's cuts",
    "rewrite_min_source_jaccard": "the rewrite guard keeps seed 001's cuts",
    "dragin_threshold": "generation confidence is recorded against 0.5, the seed's",
    "logprobs_top_k": "the uncertainty signal reads the top 5 logprobs",
    "abstain_p_max": "the near-refusal abstention was withdrawn: no held-out figure supported it",
    "free_style_fallback": "withdrawn: measured in B it traded about two right answers for one wrong",
    "drop_unsupported": "withdrawn: no preset used it and no held-out figure supported it",
    "adaptive_mmr": "MMR adapts to the question whenever retrieval.mmr_diversity is above 0",
    "retrieval.adaptive_mmr": "MMR adapts to the question whenever retrieval.mmr_diversity is above 0",
}


def canonical(key: str, *, warn: bool = True) -> str:
    """`key` as `group.field[item]`: a flat name of the release before the groups is translated with a note.

    An unknown name is a ConfigError listing the valid names: the groups, or the fields of the named group.
    """
    base, bracket, item = key.partition("[")
    if is_setting(base):
        if bracket and not _takes_items(base):
            raise ConfigError(f"setting {base!r} has no parts to set with [...]")
        return key
    if base in RENAMED and not bracket:
        if warn:
            note = f"setting {base!r} is now {RENAMED[base]!r}; the flat name is read for one more release"
            warnings.warn(note, DeprecatedSettingName, stacklevel=3)
        return RENAMED[base]
    if base in WITHDRAWN:
        raise ConfigError(f"setting {base!r} was withdrawn", WITHDRAWN[base])
    raise ConfigError(f"unknown setting {key!r}", names_hint(base))


def setting_names(changes: dict[str, Any]) -> set[str]:
    """The `group.field` names `changes` (as `Config.replace` takes them) set."""
    names: set[str] = set()
    for raw_key, value in changes.items():
        key = str(raw_key)
        if key in GROUPS and isinstance(value, dict):
            names.update(f"{key}.{name}" for name in value)
        elif key in GROUPS and key not in RENAMED:
            names.add(key)
        else:
            names.add(canonical(key, warn=False).partition("[")[0])
    return names


def _takes_items(key: str) -> bool:
    return isinstance(default_of(key), tuple | dict) and key != "llm.prompt_overrides"


def changed_values(values: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`values` (Config's fields: `preset` and each group as a dict) with `changes` applied, unchecked.

    A change is `group.field`, `group.field[item]`, a whole group as {field: value}, `preset`, or a flat
    name of the release before the groups (read with a deprecation note). Whole groups apply first, so a
    `group.field` beside its group's object (a stored assistant's settings and a run's override) wins.
    """
    values = {name: dict(part) if isinstance(part, dict) else part for name, part in values.items()}
    ordered = sorted(changes.items(), key=lambda item: not (str(item[0]) in GROUPS and isinstance(item[1], dict)))
    for raw_key, value in ordered:
        key = str(raw_key)
        if key in GROUPS and (isinstance(value, dict) or key not in RENAMED):  # a whole group: its fields change
            if not isinstance(value, dict):
                raise ConfigError(
                    f"{key} must be an object of {key} settings, got {shown(value)}", names_hint(f"{key}.")
                )
            for name, item in value.items():
                _set(values, f"{key}.{name}", item)
            continue
        key = canonical(key)
        if key == "preset":
            values["preset"] = value
        else:
            _set(values, key, value)
    return values


def _set(values: dict[str, dict[str, Any]], key: str, value: Any) -> None:
    base, _, item = key.partition("[")
    group, _, name = base.partition(".")
    if group not in GROUPS or name not in values[group]:
        raise ConfigError(f"unknown setting {key!r}", names_hint(base))
    if not item:
        values[group][name] = value
        return
    item = item.removesuffix("]")
    current = values[group][name]
    if isinstance(current, dict):
        values[group][name] = {**current, item: value}
    elif item in {str(i) for i in range(len(current))}:
        parts = list(current)
        parts[int(item)] = value
        values[group][name] = tuple(parts)
    else:
        raise ConfigError(f"{base} has parts [0] to [{len(current) - 1}], not [{item}]", allowed_values(base))


def parse_value(key: str, raw: str) -> Any:
    """Convert a `--set key=value` string to the type of setting `key` (or of its part `key[item]`)."""
    base, bracket, _ = canonical(key, warn=False).partition("[")
    default = default_of(base)
    if bracket:
        default = default[0] if isinstance(default, tuple) else 0.0
    try:
        return _coerce(default, raw)
    except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
        message = f"cannot read {key}={shown(raw)} as {type(default).__name__}: {exc}"
        raise ConfigError(message, allowed_values(base)) from exc


def _coerce(default: Any, raw: str) -> Any:
    if isinstance(default, bool):
        lowered = raw.strip().lower()
        if lowered in {"1", "true", "yes", "on"}:
            return True
        if lowered in {"0", "false", "no", "off"}:
            return False
        raise ValueError("expected true or false")
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    if isinstance(default, tuple):
        kind = type(default[0])
        return tuple(kind(part) for part in raw.split(","))
    if isinstance(default, dict):
        value = json.loads(raw)
        if not isinstance(value, dict):
            raise ValueError("expected a JSON object")
        return value
    return raw


def parse_assignments(assignments: list[str]) -> dict[str, Any]:
    """`["group.field=value", …]` → typed overrides by canonical name; a malformed item names itself."""
    overrides: dict[str, Any] = {}
    for item in assignments:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set expects group.field=value, got {item!r}")
        name = canonical(key.strip())
        overrides[name] = parse_value(name, raw)
    return overrides

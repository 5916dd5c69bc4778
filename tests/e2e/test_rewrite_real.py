"""The guarded query rewrite through the real parts: llama.cpp (0.5B), MiniLM, FAISS + BM25, SQLite.

Preset B with `round2_strategy=rewrite`, and round 2 made certain: no draft counts as supported
(`overlap_tau` above 1, no judge) and nothing else is tried first (no anchor one-shot, no answer
retry), so the gate asks for another round whatever the model writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import ask, resolve_config
from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.services import register_services, services_for_passages
from tests.conftest import E2E_LLM

pytestmark = pytest.mark.e2e
GUARD_REASONS = {
    "ACCEPT", "BLOCK_EMPTY", "BLOCK_IDENTICAL", "BLOCK_LANGUAGE", "BLOCK_SIMILARITY", "BLOCK_ENTITIES",
    "BLOCK_TOP_DISTANCE", "BLOCK_JACCARD",
}  # fmt: skip


def test_round_two_rewrite_is_guarded_logged_and_the_run_decides(
    datasets_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    searched: list[str] = []
    real_search = HybridSearcher.search

    def spy(self: HybridSearcher, query: str, *args: Any, **kwargs: Any) -> Any:
        searched.append(query)  # what the retriever workers asked the real FAISS + BM25 search
        return real_search(self, query, *args, **kwargs)

    monkeypatch.setattr(HybridSearcher, "search", spy)
    item = load_dataset(datasets_dir / "clapnq" / "clapnq_dev_answerable.jsonl", limit=1).items[0]
    settings = {
        "llm.model": E2E_LLM,
        "gate.round_strategy": "rewrite",
        "gate.overlap_tau": 1.01,
        "judge.policy": "never",
        "gate.factoid_one_shot": False,
    }
    config = resolve_config("B", settings)
    services_id = register_services(services_for_passages(list(item.passages), config))
    overrides = {
        "resources.services_id": services_id,
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        **settings,
    }
    result = ask(item.question, preset="B", overrides=overrides)

    telemetry = result["telemetry"]
    assert result["decision"] in {"STOP", "ABSTAIN"} and result["reason"] == telemetry["gate"][-1]["reason"]
    assert result["rounds"] == 2 and telemetry["round_plans"][-1]["strategy"] == "rewrite"
    (attempt,) = telemetry["rewrites"]
    assert attempt["round"] == 2 and attempt["reason"] in GUARD_REASONS, attempt
    assert attempt["accepted"] == (attempt["reason"] == "ACCEPT")
    if attempt["reason"] not in {"BLOCK_EMPTY", "BLOCK_IDENTICAL", "BLOCK_LANGUAGE"}:
        assert 0.0 < attempt["similarity"] <= 1.0  # measured with the index's MiniLM
    # an accepted rewrite searched in round 2 instead of the question; a rejected one searched nowhere
    assert searched.count(attempt["rewrite"]) == (1 if attempt["accepted"] else 0), searched
    assert searched.count(item.question) == (1 if attempt["accepted"] else 2), searched
    assert result["tokens"]["by_stage"]["rewrite"]["calls"] == 1
    assert result["tokens"]["total"] <= config.budget.token_budget

"""The full agent graph (presets A, B, C) with a scripted model over a bag-of-words index."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.services import Services, register_services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel, quoting_aware

PASSAGES = [
    Passage("ao2017", "2017 Australian Open", "Roger Federer won the 2017 Australian Open men's singles title."),
    Passage("ao2018", "2018 Australian Open", "Roger Federer won the 2018 Australian Open, his 20th major title."),
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
    Passage("tea", "Tea", "Green tea is brewed from the leaves of Camellia sinensis in China and Japan."),
    Passage("huge", "Huge", " ".join(f"Filler sentence number {i} about nothing in particular." for i in range(600))),
]


def _setup(
    tmp_path: Path,
    model: ScriptedChatModel,
    passages: list[Passage] = PASSAGES,
    embeddings: BagOfWordsEmbeddings | None = None,
) -> str:
    embeddings = embeddings or BagOfWordsEmbeddings(256)
    index = build_or_load(passages, embeddings, "bow256", ChunkingSettings(120, 20), tmp_path / "idx", progress=False)
    return register_services(Services(index, embeddings, model, "toy"))


async def _ask(tmp_path: Path, model: ScriptedChatModel, question: str, preset: str, **extra: Any) -> dict[str, Any]:
    overrides = {
        "resources.services_id": _setup(tmp_path, model),
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        **extra,
    }
    return await aask(question, preset=preset, overrides=overrides)


def _replier(answer: str, verdict: str = "SUPPORTED") -> ScriptedChatModel:
    def reply(prompt: str) -> str:
        if "Verdict" in prompt:
            return verdict
        if "YES or NO" in prompt:  # preset B's yes/no judge (greedy word: the fake reports no logprobs)
            return "YES" if verdict == "SUPPORTED" else "NO"
        if "Passage A" in prompt and "Passage B" in prompt:
            return "Passage A"
        if "Paragraph:" in prompt:
            return "Roger Federer won the Australian Open."
        return answer

    return ScriptedChatModel(script=quoting_aware(reply), report_usage=True)


async def test_supported_answer_stops_with_overlap_ok(tmp_path: Path) -> None:
    model = _replier("Owls hunt mice at night [1].")
    result = await _ask(tmp_path, model, "What do owls hunt at night?", "A")
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert result["telemetry"]["support_overlap"] == 1.0 and result["citations"][0]["title"] == "Owls"


async def test_hallucinated_answer_abstains_for_low_support(tmp_path: Path) -> None:
    model = _replier("Owls mostly eat bamboo shoots and fruit in the mountains of Peru [1].")
    result = await _ask(tmp_path, model, "What do owls hunt at night?", "A")
    reasons = {"ABSTAIN_LOW_SUPPORT", "ABSTAIN_JUDGE_REJECTED", "ABSTAIN_UNVERIFIED_QUOTE"}
    assert result["decision"] == "ABSTAIN" and result["reason"] in reasons
    assert result["answer"] == "I don't know"


async def test_two_entities_get_two_anchor_workers(tmp_path: Path) -> None:
    model = _replier("Roger Federer won it [1].")
    result = await _ask(tmp_path, model, "Did Roger Federer win the Australian Open in 2017?", "A")
    workers = result["telemetry"]["workers"]
    assert "question" in workers and "anchor:Roger Federer" in workers and "anchor:Australian Open" in workers


async def test_b_uses_a_second_round_with_hyde_when_support_is_low(tmp_path: Path) -> None:
    model = _replier("Something unrelated entirely [1].", verdict="UNSUPPORTED")
    result = await _ask(tmp_path, model, "What do owls hunt at night?", "B")
    reasons = [g["reason"] for g in result["telemetry"]["gate"]]
    assert reasons[0].startswith("RETRIEVE") and result["rounds"] == 2
    assert result["telemetry"]["hyde"] and "hyde" in result["tokens"]["by_stage"]
    assert result["decision"] == "ABSTAIN"


async def test_c_spends_rerank_tokens_and_still_answers(tmp_path: Path) -> None:
    model = _replier("Green tea is brewed from the leaves of Camellia sinensis.")  # attributed, not cited
    result = await _ask(tmp_path, model, "What is green tea brewed from?", "C", **{"retrieval.relevance_floor": 0.0})
    assert result["tokens"]["by_stage"]["rerank"]["calls"] >= 1
    assert result["decision"] == "STOP"


async def test_partial_verdict_reflects_once(tmp_path: Path) -> None:
    replies = {"n": 0}

    def reply(prompt: str) -> str:
        if "Verdict" in prompt:
            return "PARTIAL"
        if "Answer to revise" in prompt:
            replies["n"] += 1
            return "Owls hunt mice at night [1]."
        return "Owls hunt mice at night and sing opera [1]. They also brew tea [1]."

    model = ScriptedChatModel(script=reply, report_usage=True)
    # the judge's self-edit is a free-style flow: the draft is sentences with markers
    result = await _ask(
        tmp_path, model, "What do owls hunt at night?", "B", **{"judge.style": "verdict", "answer.style": "free"}
    )
    assert [g["action"] for g in result["telemetry"]["gate"]][:2] == ["REFLECT", "STOP"]
    assert replies["n"] == 1 and "opera" not in result["answer"]


@pytest.mark.parametrize("preset", ["A", "B", "C"])
@pytest.mark.parametrize("budget", [1, 60, 150, 300, 500, 900, 1400])
@pytest.mark.parametrize(
    "question",
    [
        "What do owls hunt at night?",
        " ".join(f"Name{i} Person{i}" for i in range(30)) + " — who are they?",
        "Tell me everything about the filler sentences in Huge.",
    ],
)
async def test_no_question_ever_exceeds_its_budget(tmp_path: Path, preset: str, budget: int, question: str) -> None:
    model = _replier("Owls hunt mice at night [1]. " * 40, verdict="PARTIAL")
    result = await _ask(tmp_path, model, question, preset, **{"budget.token_budget": budget})
    assert result["tokens"]["total"] <= budget
    assert result["decision"] in {"STOP", "ABSTAIN"} and result["reason"]


async def test_stopword_question_ends_with_a_clear_decision(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _replier("I don't know."), "what is the of and to?", "A")
    assert result["decision"] == "ABSTAIN" and result["reason"].startswith("ABSTAIN_")


async def test_nothing_passes_the_floor_abstains_without_llm_calls(tmp_path: Path) -> None:
    model = _replier("never used")
    result = await _ask(
        tmp_path, model, "Quantum chromodynamics lattice gauge theory?", "A", **{"retrieval.relevance_floor": 0.99}
    )
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_NO_EVIDENCE")
    assert model.prompts == []


async def test_malformed_judge_output_is_retried_then_recorded(tmp_path: Path) -> None:
    def reply(prompt: str) -> str:
        return "{ not a verdict" if "Verdict" in prompt or "one word only" in prompt else "Owls hunt mice [1]."

    model = ScriptedChatModel(script=reply, report_usage=True)
    result = await _ask(tmp_path, model, "What do owls hunt at night?", "B")
    judge_calls = [c for c in result["telemetry"]["calls"] if c["stage"] == "judge"]
    assert len(judge_calls) == 2 and result["telemetry"]["judge"]["error"] == "JUDGE_MALFORMED"
    assert result["decision"] in {"STOP", "ABSTAIN"}


async def test_model_timeout_abstains_with_the_cause(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=lambda prompt: "Owls hunt mice [1].", delay_s=0.5)
    result = await _ask(tmp_path, model, "What do owls hunt at night?", "A", **{"llm.timeout_s": 0.05})
    assert result["decision"] == "ABSTAIN"
    assert any(c.get("skipped") == "TIMEOUT" for c in result["telemetry"]["calls"])


@pytest.mark.parametrize("threshold", [0.2, 0.3, 0.5])
async def test_pruning_keeps_the_relevant_sentences(tmp_path: Path, threshold: float) -> None:
    # thresholds below the pruner's chunk-drop floor (0.4) must still be valid settings
    owls = Passage(
        "owls",
        "Owls",
        "Owls hunt mice at night. The museum shop opens on Mondays. Tickets cost five euros at the gate.",
    )
    model = _replier("Owls hunt mice at night [1].")
    overrides = {
        "resources.services_id": _setup(tmp_path, model, [owls, *PASSAGES[:2]]),
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "retrieval.pruning_threshold": threshold,
    }
    result = await aask("What do owls hunt at night?", preset="A", overrides=overrides)
    pruning = result["telemetry"]["pruning"]
    assert pruning["tokens_after"] < pruning["tokens_before"]
    kept = result["telemetry"]["highlights"][result["telemetry"]["context"][0]["id"]]
    assert "Owls hunt mice at night." in kept
    assert not any("museum" in s for s in kept)
    if threshold >= 0.3:  # a looser threshold may keep a weakly scored sentence
        assert not any("Tickets" in s for s in kept)


async def test_fusion_settings_reach_the_retriever_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    real_search = HybridSearcher.search

    def spy(self: HybridSearcher, *args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs)
        return real_search(self, *args, **kwargs)

    monkeypatch.setattr(HybridSearcher, "search", spy)
    model = _replier("Owls hunt mice at night [1].")
    result = await _ask(
        tmp_path,
        model,
        "What do owls hunt at night?",
        "A",
        **{"retrieval.fusion": "weighted", "retrieval.dense_weight": 0.8},
    )
    assert result["decision"] == "STOP" and result["citations"][0]["title"] == "Owls"
    assert seen and all(k["fusion"] == "weighted" and k["dense_weight"] == 0.8 for k in seen)


async def test_yes_no_judge_reads_the_yes_probability_not_the_greedy_word(tmp_path: Path) -> None:
    # Greedy says NO, but P(YES) / (P(YES) + P(NO)) = 0.4: SUPPORTED at 0.3, not at 0.5.
    def reply(prompt: str) -> str:
        return "NO" if "YES or NO" in prompt else "Owls hunt mice at night [1]."

    model = ScriptedChatModel(script=reply, report_usage=True)
    model.first_tokens = [("NO", math.log(0.54)), ("YES", math.log(0.27)), ("Yes", math.log(0.09))]
    accepted = await _ask(
        tmp_path, model, "What do owls hunt at night?", "B", **{"judge.style": "yes_no", "judge.accept_p": 0.3}
    )
    assert accepted["telemetry"]["judge"]["label"] == "SUPPORTED"
    assert accepted["telemetry"]["judge"]["confidence"] == pytest.approx(0.4, abs=1e-4)
    assert (accepted["decision"], accepted["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    strict = await _ask(
        tmp_path, model, "What do owls hunt at night?", "B", **{"judge.style": "yes_no", "judge.accept_p": 0.5}
    )
    assert strict["telemetry"]["judge"]["label"] == "UNSUPPORTED"
    assert (strict["decision"], strict["reason"]) == ("ABSTAIN", "ABSTAIN_JUDGE_REJECTED")
    assert not any(c["stage"] == "reflect" for c in strict["telemetry"]["calls"])


async def test_the_judge_rejects_an_answer_the_passages_do_not_hold_without_a_call(tmp_path: Path) -> None:
    def reply(prompt: str) -> str:
        return "YES" if "YES or NO" in prompt else "bamboo shoots\nQUOTE [1]: Owls hunt mice at night."

    model = ScriptedChatModel(script=reply, report_usage=True)
    model.first_tokens = [("YES", math.log(0.9)), ("NO", math.log(0.1))]
    settings = {"judge.style": "yes_no", "answer.style": "quoted"}
    checked = await _ask(tmp_path, model, "What do owls hunt at night?", "B", **settings)
    verdict = checked["telemetry"]["judge"]
    assert verdict["label"] == "UNSUPPORTED" and verdict["grounding"] == 0.0  # "bamboo", "shoots": in no passage
    assert not any(c["stage"] == "judge" for c in checked["telemetry"]["calls"])
    unchecked = await _ask(
        tmp_path, model, "What do owls hunt at night?", "B", **{"judge.grounding_min": 0.0}, **settings
    )
    assert unchecked["telemetry"]["judge"]["label"] == "SUPPORTED"  # the LLM alone accepts it
    assert any(c["stage"] == "judge" for c in unchecked["telemetry"]["calls"])


async def test_free_prose_is_left_to_the_llm_judge(tmp_path: Path) -> None:
    def reply(prompt: str) -> str:
        return "YES" if "YES or NO" in prompt else "Owls hunt bamboo shoots at dusk [1]."

    model = ScriptedChatModel(script=reply, report_usage=True)
    model.first_tokens = [("YES", math.log(0.9)), ("NO", math.log(0.1))]
    result = await _ask(
        tmp_path, model, "What do owls hunt at night?", "B", **{"judge.style": "yes_no", "answer.style": "free"}
    )
    assert result["telemetry"]["judge"]["label"] == "SUPPORTED" and result["telemetry"]["judge"]["grounding"] is None


async def test_answerable_judge_asks_whether_the_passages_answer_this_exact_question(tmp_path: Path) -> None:
    judged: list[str] = []

    def reply(prompt: str) -> str:
        if "exact question" in prompt:
            judged.append(prompt)
            return "NO"
        return "Owls hunt mice at night [1]."

    model = ScriptedChatModel(script=reply, report_usage=True)
    model.first_tokens = [("NO", math.log(0.6)), ("YES", math.log(0.4))]
    settings = {"judge.style": "answerable", "judge.policy": "always", "answer.style": "free"}
    accepted = await _ask(tmp_path, model, "What do owls hunt at night?", "A", **{"judge.accept_p": 0.4}, **settings)
    assert accepted["telemetry"]["judge"]["confidence"] == pytest.approx(0.4, abs=1e-4)
    assert (accepted["decision"], accepted["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert "Owls hunt mice at night." in judged[0] and "Proposed answer: Owls hunt mice" in judged[0]
    rejected = await _ask(tmp_path, model, "What do owls hunt at night?", "A", **{"judge.accept_p": 0.5}, **settings)
    assert (rejected["decision"], rejected["reason"]) == ("ABSTAIN", "ABSTAIN_JUDGE_REJECTED")

"""The quoted answer stage through the graph (scripted model) and the gate's answer-stage reasons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorgate.graph.gate import decide
from anchorgate.graph.presets import load_preset
from tests.fakes import ScriptedChatModel
from tests.unit.test_agents_graph import _ask
from tests.unit.test_gate import sig

A = load_preset("A")
OWLS = "What do owls hunt at night?"


def _quoting(*replies: str) -> ScriptedChatModel:
    """Replies in order to the answer calls; judge prompts get YES/SUPPORTED."""
    queue = list(replies)

    def reply(prompt: str) -> str:
        if "Verdict" in prompt or "YES or NO" in prompt:
            return "SUPPORTED"
        return queue.pop(0) if queue else "I don't know"

    return ScriptedChatModel(script=reply, report_usage=True)


@pytest.mark.parametrize(
    ("name", "signals", "expected"),
    [
        ("declined, strong evidence", sig(idk=True, evidence_strong=True, draft_status="declined"),
         ("ABSTAIN", "ABSTAIN_MODEL_IDK")),
        ("declined, weak evidence", sig(idk=True, evidence_strong=False, draft_status="declined"),
         ("ABSTAIN", "ABSTAIN_MODEL_IDK")),
        ("malformed draft", sig(draft_status="malformed", overlap=0.0), ("ABSTAIN", "ABSTAIN_LOW_SUPPORT")),
        ("quote in no passage", sig(draft_status="quoted", quote_verified=False, overlap=0.0, one_shot_used=True),
         ("ABSTAIN", "ABSTAIN_UNVERIFIED_QUOTE")),
        ("verified quote", sig(draft_status="quoted", quote_verified=True, overlap=1.0), ("STOP", "STOP_OVERLAP_OK")),
    ],
)  # fmt: skip
def test_answer_stage_reasons(name: str, signals: dict[str, Any], expected: tuple[str, str]) -> None:
    assert decide(signals, A) == expected


async def test_a_verified_quote_stops_with_a_short_answer_and_the_quote_as_citation(tmp_path: Path) -> None:
    model = _quoting("mice\nQUOTE [1]: Owls hunt mice at night.")
    result = await _ask(tmp_path, model, OWLS, "A", **{"answer.style": "quoted"})
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert result["answer"] == "mice [1]" and result["short_answer"] == "mice"
    assert result["citations"][0]["quote"] == "Owls hunt mice at night." and result["citations"][0]["verified"]
    assert result["telemetry"]["draft_structure"]["quotes"][0]["status"] == "verbatim"
    assert "QUOTE [n]" in model.prompts[0]  # the quoted-style instructions were sent


async def test_a_decline_is_abstained_on_after_one_call(tmp_path: Path) -> None:
    model = _quoting("I don't know")
    result = await _ask(tmp_path, model, OWLS, "A", **{"answer.style": "quoted"})
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_MODEL_IDK")
    assert len(model.prompts) == 1


async def test_an_invented_quote_is_measured_and_abstained_on(tmp_path: Path) -> None:
    model = _quoting("bamboo\nQUOTE [1]: Owls are famous for eating bamboo in Peru.")
    result = await _ask(tmp_path, model, OWLS, "A", **{"answer.style": "quoted", "judge.policy": "never"})
    assert result["decision"] == "ABSTAIN"
    assert result["reason"] in {"ABSTAIN_UNVERIFIED_QUOTE", "ABSTAIN_LOW_SUPPORT"}
    assert result["telemetry"]["draft_structure"]["quotes"][0]["status"] == "absent"


async def test_a_malformed_draft_is_a_signal_and_is_judged_by_its_claims_support(tmp_path: Path) -> None:
    model = _quoting("Owls, I think, hunt mice")
    result = await _ask(tmp_path, model, OWLS, "A", **{"answer.style": "quoted", "judge.policy": "never"})
    signals = result["telemetry"]["gate"][0]["signals"]
    assert signals["draft_status"] == "malformed" and signals["quote_verified"] is False
    assert (result["decision"] == "STOP") == (signals["overlap"] >= A.gate.overlap_tau)
    assert len(model.prompts) == 1  # no second reader call


async def test_the_quote_judge_rejects_an_answer_that_disagrees_with_the_quoted_one(tmp_path: Path) -> None:
    def reply(prompt: str) -> str:
        return "mice\nQUOTE [1]: Owls hunt mice at night."

    model = ScriptedChatModel(script=reply, report_usage=True)
    # the generator's draft says "mice", and so does the judge's own extraction: supported
    quote_judge = {"judge.policy": "always", "judge.style": "quote", "judge.accept_p": 0.5}
    result = await _ask(tmp_path, model, OWLS, "A", **{"answer.style": "quoted"}, **quote_judge)
    assert result["telemetry"]["judge"]["label"] == "SUPPORTED" and result["decision"] == "STOP"


def test_a_missing_inferred_anchor_never_causes_an_abstention() -> None:
    inferred_only = sig(missing_anchors=["you're so vain"], missing_firm_anchors=[], one_shot_used=True)
    assert decide(inferred_only, A) == ("STOP", "STOP_OVERLAP_OK")
    first_pass = sig(missing_anchors=["you're so vain"], missing_firm_anchors=[], overlap=0.1)
    assert decide(first_pass, A) == ("RETRIEVE_MORE", "RETRIEVE_ANCHOR_ONE_SHOT")
    firm = sig(missing_anchors=["Leland"], missing_firm_anchors=["Leland"], one_shot_used=True, pass_no=2)
    assert decide(firm, A) == ("ABSTAIN", "ABSTAIN_MISSING_ANCHOR")


async def test_a_yes_no_answer_to_an_open_question_counts_as_declining(tmp_path: Path) -> None:
    model = _quoting("No\nQUOTE [1]: Owls hunt mice at night.")
    result = await _ask(tmp_path, model, OWLS, "A", **{"answer.style": "quoted"})
    gate = result["telemetry"]["gate"]
    assert gate[-1]["reason"] == "ABSTAIN_MODEL_IDK" and gate[0]["signals"]["idk"] is True


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("Who directed the film shot in Leland, North Carolina in 1986?", True),
        ("when did the last of us come out", True),
        ("What language were books being translated into during the era of Haymo of Faversham?", True),
        ("Are Christopher Nolan and Sathish Kalathil both film directors?", True),
        ("what is the role of the prime minister in canada", False),
        ("difference between russian blue and british blue cat", False),
        ("How do I make a class usable in a with statement?", False),
        # Indonesian puts "which" after the noun and "where" anywhere (IndoNLU FacQA's wording)
        ("Apa nama kesepakatan internasional yang mengatur kompensasi terhadap penebangan pohon?", True),
        ("Apakah judul buku yang ditulis Bill Emmott pada tahun 1989 mengenai perekonomian Jepang?", True),
        ("Apa istilah untuk gaya khas teater yang diciptakan Harold Pinter?", True),
        ("Negara apakah yang ditinggalkan Maria Sharapova pada umur 9 tahun?", True),
        ("Gasohol berpotensi untuk menggantikan bahan bakar apa", True),
        ("Di provinsi manakah, Ali Mazi menjabat sebagai gubernur", True),
        ("Sudirman DVM menjabat sebagai presiden direktur di mana", True),
        ("Berlangsung dimanakah SEA Games XXII?", True),
        ("Kemana PT Igas Utama memasok gas?", True),
        ("Seberapa berat bola basket?", True),
        ("Bagaimana cara mengerjakan salat tujuh waktu?", False),
        ("Kenapa ada api yang berwarna biru?", False),
        ("Apa yang dimaksud dengan asteroid?", False),
        ("Kacang kedelai itu apa?", False),
        ("Garam digunakan untuk apa?", False),
        ("what is mana in hawaiian culture", False),
    ],
)
def test_auto_style_quotes_only_questions_that_ask_for_a_short_answer(question: str, quoted: bool) -> None:
    from anchorgate.tools.question.anchors import question_type
    from anchorgate.tools.question.answer_type import short_answer_expected

    assert short_answer_expected(question, question_type(question)) is quoted

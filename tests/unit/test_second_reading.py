"""The second reading: the reader reads the same passages in reverse order; an answer it does not give
again is withdrawn (`second_reading=withdraw`) or only measured (`record`).

NoMIRACL-id: "siapakah robot terbesar di Transformers?" over passages that never say which robot is
the biggest was answered "Reflector", quoting "Reflector sebenarnya merupakan sebuah robot …"; read
in reverse order the 1.5B gave another robot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorgate.api import aask
from anchorgate.tools.answer.second_reading import answers_agree, reversed_documents
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.embeddings import E5
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel
from tests.unit.test_agents_graph import _setup

QUESTION = "Who built the biggest robot in the workshop?"
PASSAGES = [
    Passage("reflector", "Reflector", "Reflector is a robot made of three small robots built by Ana Diaz."),
    Passage("omega", "Omega", "Omega is the tallest machine in the workshop, built by Ben Okafor."),
]


def test_the_same_answer_agrees() -> None:
    assert answers_agree("Bart Cummings", "Bart Cummings")
    assert answers_agree("Bart Cummings", "Cummings")  # one holds the other
    assert answers_agree("1924", "tahun 1924")
    assert answers_agree("Sungai Nil di Afrika", "Sungai Nil di Mesir")  # token F1 0.75


def test_the_question_s_own_words_are_no_agreement() -> None:
    question = "Apa nama daun untuk melinting tembakau pada rokok siong?"
    first = 'Daun untuk melinting tembakau pada rokok siong adalah "pucuk".'
    second = "Daun tembakau yang digunakan untuk melinting rokok siong adalah daun nipah yang muda."
    assert not answers_agree(first, second, question)
    assert answers_agree(first, second)  # without the question, its words look like agreement
    assert answers_agree("Shah Rukh Khan", "Duta kesehatan adalah Shah Rukh Khan.", "Siapa duta kesehatan?")
    assert answers_agree("4 orang", "4", "Ada berapa orang di dalam satu grup band?")  # a digit is a word


def test_yes_no_answers_are_compared_word_for_word() -> None:
    # "no" is a stopword: the content-word comparison has nothing to compare
    assert answers_agree("No", "No", "Are both bands from the same country?")
    assert answers_agree("No", "No, they are not", "Are both bands from the same country?")
    assert not answers_agree("Yes", "No", "Are both bands from the same country?")


def test_another_answer_or_a_decline_disagrees() -> None:
    assert not answers_agree("Reflector", "Omega Supreme")
    assert not answers_agree("1970", "1986")
    assert not answers_agree("Reflector", "I don't know")
    assert not answers_agree("Reflector", "")
    assert not answers_agree("the red house by the lake", "the blue car")  # token F1 0.25


def test_reversed_documents_keep_each_passage_number() -> None:
    context = [{"n": 1, "title": "A", "text": "first"}, {"n": 2, "title": "B", "text": "second"}]
    text = reversed_documents(context)
    assert text.index("[2] B\nsecond") < text.index("[1] A\nfirst")
    assert text.startswith("<documents>") and text.endswith("</documents>")


def _reader(first: str, second: str) -> ScriptedChatModel:
    """The reader's answer depends on which passage it reads first: as a position-biased model's does."""

    def reply(prompt: str) -> str:
        if "YES or NO" in prompt:
            return "YES"
        if "<documents>" not in prompt:  # B's round-2 query rewrite
            return QUESTION
        documents = prompt[prompt.index("<documents>") :]
        if "[2]" not in documents:
            return first
        return first if documents.index("[1]") < documents.index("[2]") else second

    return ScriptedChatModel(script=reply, report_usage=True)


RIGHT = "Ben Okafor\nQUOTE [2]: Omega is the tallest machine in the workshop, built by Ben Okafor."
WRONG = "Ana Diaz\nQUOTE [1]: Reflector is a robot made of three small robots built by Ana Diaz."


class E5ScaleBagOfWords(BagOfWordsEmbeddings):
    """The toy embeddings, reporting multilingual-e5's name: relevance on the e5 scale."""

    model_name = E5


async def _ask(
    tmp_path: Path, model: ScriptedChatModel, preset: str = "A", passages: list[Passage] = PASSAGES, **extra: Any
) -> dict[str, Any]:
    overrides = {
        "resources.services_id": _setup(tmp_path, model, passages),
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "answer.style": "quoted",
        "retrieval.relevance_floor": 0.0,  # bag-of-words scores of the toy index sit below the MiniLM floor
        "gate.second_reading_below_relevance": 1.0,  # the toy index is on the MiniLM scale, where A never reads again
        **extra,
    }
    return await aask(QUESTION, preset=preset, overrides=overrides)


def _stages(result: dict[str, Any]) -> list[str]:
    return [c["stage"] for c in result["telemetry"]["calls"]]


async def test_an_answer_read_again_differently_is_withdrawn(tmp_path: Path) -> None:
    model = _reader(WRONG, RIGHT)
    result = await _ask(tmp_path, model, **{"gate.second_reading": "withdraw"})
    assert (result["decision"], result["reason"]) == ("ABSTAIN", "ABSTAIN_INCONSISTENT_ANSWER")
    assert result["telemetry"]["gate"][-1]["signals"]["answer_inconsistent"] is True
    assert result["telemetry"]["second_reading"] == {"answer": "Ana Diaz", "second": "Ben Okafor", "agree": False}
    assert _stages(result).count("second_reading") == 1
    assert result["tokens"]["by_stage"]["second_reading"]["calls"] == 1  # its tokens are counted


async def test_record_only_measures(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(WRONG, RIGHT), **{"gate.second_reading": "record"})
    assert (result["decision"], result["short_answer"]) == ("STOP", "Ana Diaz")
    assert result["telemetry"]["gate"][-1]["signals"]["answer_inconsistent"] is True


async def test_an_answer_given_again_stands(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(RIGHT, RIGHT), **{"gate.second_reading": "withdraw"})
    assert (result["decision"], result["short_answer"]) == ("STOP", "Ben Okafor")
    assert result["telemetry"]["gate"][-1]["signals"]["answer_inconsistent"] is False


async def test_off_makes_no_second_call(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(WRONG, RIGHT), **{"gate.second_reading": "off"})
    assert "second_reading" not in _stages(result)
    assert result["telemetry"]["gate"][-1]["signals"]["answer_inconsistent"] is None


async def test_evidence_above_the_relevance_cap_is_not_read_again(tmp_path: Path) -> None:
    result = await _ask(
        tmp_path,
        _reader(WRONG, RIGHT),
        **{"gate.second_reading": "withdraw", "gate.second_reading_below_relevance": 0.0},
    )
    assert "second_reading" not in _stages(result)
    assert (result["decision"], result["short_answer"]) == ("STOP", "Ana Diaz")
    assert result["telemetry"]["gate"][-1]["signals"]["top_relevance"] > 0.0


async def test_a_reads_again_on_weak_e5_evidence_only(tmp_path: Path) -> None:
    # preset A as shipped: never on the MiniLM scale, below retrieval.e5_scale's cut on e5's
    overrides = {
        "resources.checkpoint_db": str(tmp_path / "c.sqlite"),
        "answer.style": "quoted",
        "retrieval.relevance_floor": 0.0,
    }
    on_minilm = {**overrides, "resources.services_id": _setup(tmp_path / "m", _reader(WRONG, RIGHT), PASSAGES)}
    minilm = await aask(QUESTION, preset="A", overrides=on_minilm)
    assert "second_reading" not in _stages(minilm) and minilm["short_answer"] == "Ana Diaz"
    e5_index = _setup(tmp_path / "e", _reader(WRONG, RIGHT), PASSAGES, E5ScaleBagOfWords(256))
    e5 = {**overrides, "resources.services_id": e5_index, "retrieval.e5_scale[retrieval.relevance_floor]": 0.0}
    weak = await aask(QUESTION, preset="A", overrides=e5)
    assert weak["telemetry"]["gate"][-1]["signals"]["top_relevance"] < 0.5  # the toy's scores are weak
    assert weak["reason"] == "ABSTAIN_INCONSISTENT_ANSWER"
    strong = await aask(
        QUESTION, preset="A", overrides={**e5, "retrieval.e5_scale[gate.second_reading_below_relevance]": 0.0}
    )
    assert "second_reading" not in _stages(strong) and strong["short_answer"] == "Ana Diaz"


async def test_one_passage_is_not_read_again(tmp_path: Path) -> None:
    # the reply depends on passage order only; with one passage there is no other order to read
    result = await _ask(tmp_path, _reader(WRONG, RIGHT), passages=PASSAGES[:1], **{"gate.second_reading": "withdraw"})
    assert len(result["telemetry"]["context"]) == 1
    assert "second_reading" not in _stages(result)
    assert result["telemetry"]["gate"][-1]["signals"]["answer_inconsistent"] is None


async def test_a_declined_draft_is_not_read_again(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader("I don't know", RIGHT), **{"gate.second_reading": "withdraw"})
    assert "second_reading" not in _stages(result)
    assert result["reason"] == "ABSTAIN_MODEL_IDK"


async def test_no_budget_for_the_second_reading_leaves_the_signal_unmeasured(tmp_path: Path) -> None:
    # the budget fits the first reading but not a second one: the answer is then not called inconsistent
    model = _reader(WRONG, RIGHT)
    first = await _ask(tmp_path, model, **{"gate.second_reading": "off"})
    budget = first["tokens"]["total"] + 60
    result = await _ask(
        tmp_path / "b", _reader(WRONG, RIGHT), **{"gate.second_reading": "withdraw", "budget.token_budget": budget}
    )
    skipped = [c for c in result["telemetry"]["calls"] if c["stage"] == "second_reading"]
    assert skipped and skipped[0].get("skipped") == "BUDGET"
    assert result["telemetry"]["gate"][-1]["signals"]["answer_inconsistent"] is None
    assert result["tokens"]["total"] <= budget


async def test_b_spends_round_2_on_an_inconsistent_answer(tmp_path: Path) -> None:
    result = await _ask(tmp_path, _reader(WRONG, RIGHT), preset="B", **{"gate.second_reading": "withdraw"})
    reasons = [g["reason"] for g in result["telemetry"]["gate"]]
    assert reasons[0] == "RETRIEVE_INCONSISTENT_ANSWER"
    assert result["reason"] == "ABSTAIN_INCONSISTENT_ANSWER"  # round 2 reads the same two passages

"""The quote re-read: pure parts (spans, grammar, acceptance) and the graph with a scripted model."""

from __future__ import annotations

from pathlib import Path

from anchorgate.tools.answer.quote_reread import (
    accepted_span,
    full_sentence,
    reread_candidate,
    reread_structure,
    sentence_spans,
    span_grammar,
)
from tests.fakes import ScriptedChatModel
from tests.unit.test_agents_graph import _ask

EARSWICK = (
    "The planner Raymond Unwin and the architect Barry Parker were commissioned to produce an overall plan "
    "for a new 'garden' village and the detailed designs for the houses."
)
OWLS = "What do owls hunt at night?"


def _structure(grounding: float, status: str = "verbatim") -> dict:
    quote = {"passage": 1, "text": EARSWICK[:120], "status": status, "found_in": 1 if status != "absent" else None,
             "match": EARSWICK[:120], "ratio": 1.0}  # fmt: skip
    return {"status": "quoted", "answer": "Joseph Rowntree", "quotes": [quote], "grounding": grounding}


def test_spans_are_runs_of_the_sentences_words_without_edge_punctuation() -> None:
    spans = sentence_spans("The planner Raymond Unwin, and Parker.", max_words=3)
    assert "Raymond Unwin" in spans and "Unwin, and Parker" in spans and "Parker" in spans
    assert "The planner Raymond Unwin" not in spans  # four words
    assert len(spans) == len(set(spans))


def test_the_span_grammar_offers_idk_or_a_span_only() -> None:
    grammar = span_grammar('He said "yes" to Unwin.')
    assert grammar.startswith('root ::= "I don\'t know" | span\n')
    assert '"Unwin"' in grammar and '"He said \\"yes' in grammar
    assert span_grammar("...") == 'root ::= "I don\'t know"\n'


def test_a_draft_is_reread_only_when_its_answer_is_not_in_a_found_quote() -> None:
    assert reread_candidate(_structure(0.0), 0.5)["found_in"] == 1
    assert reread_candidate(_structure(0.5), 0.5) is None  # grounded enough
    assert reread_candidate(_structure(0.0, status="absent"), 0.5) is None  # nothing verified to read
    assert reread_candidate({**_structure(0.0), "status": "declined"}, 0.5) is None
    assert reread_candidate(None, 0.5) is None


def test_the_reread_sentence_is_the_whole_passage_sentence_the_quote_was_cut_from() -> None:
    context = [{"n": 1, "title": "New Earswick", "text": f"New Earswick is a village. {EARSWICK} It grew."}]
    title, sentence = full_sentence(_structure(0.0)["quotes"][0], context)
    assert (title, sentence) == ("New Earswick", EARSWICK)


def test_a_span_is_accepted_only_when_the_sentence_holds_its_words() -> None:
    question = "who designed the garden city of new earswick"
    assert (
        accepted_span("Raymond Unwin and Barry Parker", EARSWICK, question, False) == "Raymond Unwin and Barry Parker"
    )
    assert accepted_span("Joseph Rowntree", EARSWICK, question, False) is None  # not in the sentence
    assert accepted_span("I don't know", EARSWICK, question, False) is None
    assert accepted_span("garden", EARSWICK, question, False) is None  # the question's own word
    assert accepted_span("No", EARSWICK, question, False) is None  # yes/no to an open question


def test_the_structure_keeps_a_record_of_the_reread() -> None:
    kept = reread_structure(_structure(0.0), "I don't know", None)
    assert kept["answer"] == "Joseph Rowntree" and kept["grounding"] == 0.0
    assert kept["reread"] == {"answer_before": "Joseph Rowntree", "reply": "I don't know", "accepted": False}
    replaced = reread_structure(_structure(0.0), "Raymond Unwin", "Raymond Unwin")
    assert replaced["answer"] == "Raymond Unwin" and replaced["grounding"] == 1.0 and replaced["reread"]["accepted"]


def _reader(draft: str, reread: str) -> ScriptedChatModel:
    def reply(prompt: str) -> str:
        if "Verdict" in prompt or "YES or NO" in prompt:
            return "SUPPORTED"
        return reread if "Sentence:" in prompt else draft

    return ScriptedChatModel(script=reply, report_usage=True)


async def test_an_answer_its_quote_does_not_hold_is_replaced_by_the_quotes_span(tmp_path: Path) -> None:
    model = _reader("rabbits\nQUOTE [1]: Owls hunt mice at night.", "mice")
    result = await _ask(tmp_path, model, OWLS, "A", answer_style="quoted", quote_reread=True)
    structure = result["telemetry"]["draft_structure"]
    assert structure["reread"] == {"answer_before": "rabbits", "reply": "mice", "accepted": True}
    assert result["short_answer"] == "mice" and result["answer"].startswith("mice [")
    assert (result["decision"], result["reason"]) == ("STOP", "STOP_OVERLAP_OK")
    assert "quote_reread" in result["tokens"]["by_stage"]
    assert "Sentence: Owls hunt mice at night." in model.prompts[1] and "Document: Owls" in model.prompts[1]


async def test_a_declined_reread_keeps_the_first_answer(tmp_path: Path) -> None:
    model = _reader("rabbits\nQUOTE [1]: Owls hunt mice at night.", "I don't know")
    result = await _ask(tmp_path, model, OWLS, "A", answer_style="quoted", quote_reread=True, judge_policy="never")
    structure = result["telemetry"]["draft_structure"]
    assert structure["answer"] == "rabbits" and structure["reread"]["accepted"] is False
    assert [c["stage"] for c in result["telemetry"]["calls"]][:2] == ["generate", "quote_reread"]


async def test_no_reread_when_off_or_when_the_answer_is_in_its_quote(tmp_path: Path) -> None:
    off = _reader("rabbits\nQUOTE [1]: Owls hunt mice at night.", "mice")
    result = await _ask(tmp_path / "off", off, OWLS, "A", answer_style="quoted", judge_policy="never")
    assert "reread" not in result["telemetry"]["draft_structure"]
    assert "quote_reread" not in result["tokens"]["by_stage"]
    grounded = _reader("mice\nQUOTE [1]: Owls hunt mice at night.", "night")
    result = await _ask(tmp_path / "on", grounded, OWLS, "A", answer_style="quoted", quote_reread=True)
    assert result["short_answer"] == "mice" and "reread" not in result["telemetry"]["draft_structure"]


def test_a_span_of_another_shape_than_asked_is_not_taken() -> None:
    sentence = "Young is a town in New South Wales with 6,960 people at the 2011 census."
    question = "At the 2011 census, what was the population of the town where she was born?"
    assert accepted_span("Young", sentence, question, False, first_answer="6,960") is None  # number → words
    assert accepted_span("6,960", sentence, question, False, first_answer="7,000") == "6,960"
    when = "When was the census taken in Young?"
    assert accepted_span("New South Wales", sentence, when, False, first_answer="Sydney") is None  # not a date
    assert accepted_span("2011", sentence, when, False, first_answer="Sydney") == "2011"
    # a passage marker the model wrote on its answer line is not a number
    assert accepted_span("Barry Parker", EARSWICK, "who designed it", False, "Joseph Rowntree [1]") == "Barry Parker"


def test_a_sentence_answer_is_not_reread() -> None:
    sentence_answer = {**_structure(0.0), "answer": "The current director of the US Mint is David Motl. [1]"}
    assert reread_candidate(sentence_answer, 0.5, max_words=4) is None
    assert reread_candidate({**_structure(0.0), "answer": "Joseph Rowntree [1]"}, 0.5, max_words=2) is not None

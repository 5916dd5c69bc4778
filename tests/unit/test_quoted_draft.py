"""Quote-then-answer drafts: parsing any reply, checking quotes against passages, evidence strength."""

from __future__ import annotations

from typing import Any

import pytest

from anchorgate.tools.answer.quoted_draft import answer_grounding, check_quotes, parse_draft, user_answer
from anchorgate.tools.question.anchors.model import without_particles
from anchorgate.tools.question.answer_type import expected_answer_type, short_answer_expected
from anchorgate.tools.retrieval.evidence_strength import answer_type_present, measure_strength
from anchorgate.tools.retrieval.selection import question_kind

CONTEXT: list[dict[str, Any]] = [
    {"n": 1, "title": "Eiffel Tower", "text": "The Eiffel Tower is in Paris. It was completed in 1889 for the fair.",
     "score": 0.8},
    {"n": 2, "title": "Gustave Eiffel", "text": "Gustave Eiffel was a French civil engineer born in Dijon.",
     "score": 0.4},
]  # fmt: skip


def test_a_well_formed_reply_is_parsed_and_its_quote_found_verbatim() -> None:
    draft = check_quotes(parse_draft("1889\nQUOTE [1]: It was completed in 1889 for the fair."), CONTEXT)
    assert draft.status == "quoted" and draft.answer == "1889"
    assert [(q.status, q.found_in) for q in draft.quotes] == [("verbatim", 1)]
    assert draft.verified and answer_grounding(draft, CONTEXT) == 1.0
    assert user_answer(draft) == "1889 [1]"


def test_a_quote_under_the_wrong_number_is_found_in_its_real_passage() -> None:
    draft = check_quotes(parse_draft("Dijon\nQUOTE [1]: Gustave Eiffel was a French civil engineer"), CONTEXT)
    assert [(q.status, q.found_in) for q in draft.quotes] == [("moved", 2)]
    assert user_answer(draft) == "Dijon [2]"


def test_case_punctuation_and_spacing_do_not_break_a_verbatim_match() -> None:
    draft = check_quotes(parse_draft("Paris.\nQUOTE [1]: the eiffel tower is in  PARIS"), CONTEXT)
    assert draft.quotes[0].status == "verbatim"
    assert user_answer(draft) == "Paris [1]."


def test_a_nearly_copied_quote_is_near_and_an_invented_one_absent() -> None:
    near = check_quotes(parse_draft("1889\nQUOTE [1]: It was completed in 1889 for the world fair."), CONTEXT)
    assert near.quotes[0].status == "near" and near.quotes[0].found_in == 1
    invented = check_quotes(parse_draft("yes\nQUOTE [2]: Eiffel designed the Statue of Liberty."), CONTEXT)
    assert invented.quotes[0].status == "absent" and not invented.verified and invented.cited == []


def test_an_answer_not_in_its_quote_is_not_grounded() -> None:
    draft = check_quotes(parse_draft("Dijon\nQUOTE [1]: The Eiffel Tower is in Paris."), CONTEXT)
    assert answer_grounding(draft, CONTEXT) == 0.0


def test_a_one_digit_answer_is_grounded_only_by_a_quote_holding_it() -> None:
    context = [{"n": 1, "title": "Week", "text": "A week has 7 days. A fortnight has 14 days.", "score": 0.8}]
    held = check_quotes(parse_draft("7\nQUOTE [1]: A week has 7 days."), context)
    other = check_quotes(parse_draft("8\nQUOTE [1]: A week has 7 days."), context)
    assert answer_grounding(held, context) == 1.0 and answer_grounding(other, context) == 0.0
    for quote in ("A week has seven days.", "Satu minggu ada tujuh hari.", "一周有七天。"):  # a digit written out
        written = check_quotes(parse_draft(f"7\nQUOTE [1]: {quote}"), [{**context[0], "text": quote}])
        assert answer_grounding(written, context) == 1.0, quote
    density = [{**context[0], "text": "Density is 85 per km2."}]
    decimal = check_quotes(parse_draft("85.0 [1]\nQUOTE [1]: Density is 85 per km2."), density)
    assert answer_grounding(decimal, density) == 1.0  # the "0" of a decimal is no number of its own


def test_yes_no_answers_are_verdicts_on_their_quote() -> None:
    draft = check_quotes(parse_draft("Yes\nQUOTE [1]: The Eiffel Tower is in Paris."), CONTEXT)
    assert answer_grounding(draft, CONTEXT) == 1.0


def test_two_quotes_cite_both_passages() -> None:
    reply = (
        "Dijon\nQUOTE [2]: Gustave Eiffel was a French civil engineer born in Dijon.\n"
        "QUOTE [1]: It was completed in 1889 for the fair."
    )
    assert user_answer(check_quotes(parse_draft(reply), CONTEXT)) == "Dijon [2][1]"


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        ("I don't know", "declined"),
        ("I don't know.\nQUOTE [1]: The Eiffel Tower is in Paris.", "declined"),
        ("The tower was finished in 1889 [1].", "malformed"),
        ("QUOTE [1]: The Eiffel Tower is in Paris.", "malformed"),
        ("ANSWER: Paris", "malformed"),
        ("", "malformed"),
        ("QUOTE [1]: x\nANSWER:", "malformed"),
        ("QUOTE [1]: The Eiffel Tower is in Paris.\nANSWER: Paris", "quoted"),  # the older order reads too
    ],
)
def test_any_reply_parses_to_a_status_never_an_exception(reply: str, status: str) -> None:
    assert check_quotes(parse_draft(reply), CONTEXT).status == status


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When was the Eiffel Tower completed?", "date"),
        ("How many floors does it have?", "number"),
        ("Who designed the Eiffel Tower?", "name"),
        ("what does the pass statement do", "any"),
    ],
)
def test_expected_answer_type(question: str, expected: str) -> None:
    assert expected_answer_type(question) == expected


def test_answer_type_present_ignores_what_the_question_already_says() -> None:
    assert answer_type_present("Who designed the Eiffel Tower?", ["The Eiffel Tower is tall."]) == ("name", False)
    assert answer_type_present("Who designed the Eiffel Tower?", ["Gustave Eiffel designed it."]) == ("name", True)
    assert answer_type_present("When did 1889 end?", ["It ended in 1889."]) == ("date", False)


def test_evidence_is_strong_only_when_every_cue_holds() -> None:
    question = "When was the Eiffel Tower completed?"
    assert measure_strength(question, CONTEXT, True, 0.5).strong
    assert not measure_strength(question, CONTEXT, False, 0.5).strong  # an anchor is missing
    assert not measure_strength(question, CONTEXT, True, 0.9).strong  # relevance too low
    assert not measure_strength(question, CONTEXT[1:], True, 0.3).strong  # no date in the passages
    assert not measure_strength(question, [], True, 0.0).strong


@pytest.mark.parametrize(
    ("proposed", "expected"),
    [
        ("Delhi", 1.0),  # the extracted answer itself
        ("The head office is in Delhi.", 1.0),
        ("Mumbai, the financial capital of India.", 0.0),  # disagrees, and brings outside words
        ("Dijon", 0.0),  # a word from the evidence, but not the answer
    ],
)
def test_answer_agreement_with_the_readers_own_quoted_answer(proposed: str, expected: float) -> None:
    from anchorgate.tools.answer.quoted_draft import answer_agreement

    evidence = "The Oberoi Group is a hotel company with its head office in Delhi. Dijon is in France."
    context = [{"n": 1, "title": "", "text": evidence}]
    reply = "Delhi\nQUOTE [1]: The Oberoi Group is a hotel company with its head office in Delhi."
    extracted = check_quotes(parse_draft(reply), context)
    question = "The Oberoi family is part of a hotel company that has a head office in what city?"
    assert answer_agreement(proposed, extracted, evidence, question) == expected


def test_no_agreement_without_a_found_quote() -> None:
    from anchorgate.tools.answer.quoted_draft import answer_agreement

    context = [{"n": 1, "title": "", "text": "Paris is in France."}]
    extracted = check_quotes(parse_draft("Rome\nQUOTE [1]: Rome is in Italy."), context)
    assert answer_agreement("Rome", extracted, "Paris is in France.", "Where?") == 0.0


def test_the_grammar_offers_each_passage_sentence_as_a_literal_quote() -> None:
    from anchorgate.tools.answer.quoted_draft import draft_grammar, quotable_sentences

    grammar = draft_grammar([*CONTEXT, {"n": 3, "title": "", "text": 'He said "hi" \\ left.'}])
    assert r'"QUOTE [1]: " p1' in grammar and 'p2 ::= "Gustave Eiffel was' in grammar
    assert r'p3 ::= "He said \"hi\" \\ left."' in grammar  # quotes and backslashes escaped
    long = " ".join(["word"] * 100) + "."
    assert all(len(s) <= 160 for s in quotable_sentences(long))
    assert draft_grammar([]).startswith("root ::= declined")


def test_the_grammar_compiles_in_llama_cpp() -> None:
    from llama_cpp import LlamaGrammar

    from anchorgate.tools.answer.quoted_draft import draft_grammar

    LlamaGrammar.from_string(draft_grammar(CONTEXT), verbose=False)


@pytest.mark.parametrize(
    ("answer", "question", "echo"),
    [
        ("Lilu", "If Gallu is a demon Lilu is what?", True),
        ("a spirit", "If Gallu is a demon Lilu is what?", False),
        ("Arthur's Magazine", "Which magazine was started first Arthur's Magazine or First for Women?", False),
        ("yes", "Are both film directors?", False),
        # a count the question does not hold answers it, though "bulan" is the question's word (FacQA)
        ("6 bulan", "Berapa bulan waktu yang diberikan Presiden Uzbekistan kepada AS?", False),
        ("8 satwa", "Berapa jenis satwa yang tergolong langka?", False),
        ("2005", "Kapankah Yves Chauvin memperoleh penghargaan Nobel Kimia 2005", True),
        ("3,5 tahun", "Berapa angka peningkatan pengangguran di Indonesia dalam 3,5 tahun?", True),
        # the question's words with another suffix (ClapNQ) still answer nothing
        ("Cherry picking", "where does the term cherry picker come from", True),
        ("harvesting fruit", "where does the term cherry picker come from", False),
    ],
)
def test_an_answer_made_of_the_questions_words_is_an_echo(answer: str, question: str, echo: bool) -> None:
    from anchorgate.tools.answer.quoted_draft import echoes_question

    assert echoes_question(answer, question) is echo


@pytest.mark.parametrize(
    ("answer", "yes_no_question", "expected"),
    [("No", False, "yes_no_to_open_question"), ("No", True, None), ("Lilu", False, "echo"), ("a spirit", False, None)],
)
def test_non_answers(answer: str, yes_no_question: bool, expected: str | None) -> None:
    from anchorgate.tools.answer.quoted_draft import non_answer

    assert non_answer(answer, "If Gallu is a demon Lilu is what?", yes_no_question) == expected


def test_a_quote_run_into_the_answer_line_is_cut_off() -> None:
    draft = parse_draft("Billy Flynn [1] QUOTE [1]: Billy Flynn plays him.\nQUOTE [1]: Billy Flynn plays him.")
    assert draft.answer == "Billy Flynn" and draft.status == "quoted"


@pytest.mark.parametrize(
    ("question", "answer_type"),
    [
        ("Siapakah ketua Komisi A DPRD di Sumatera Utara?", "name"),
        ("Kapankah Taman Lumut di Kebun Raya Cibodas dibuka?", "date"),
        ("Berapakah jumlah penduduk Provinsi Jiangsu saat ini?", "number"),
        ("Dimanakah Dr Wilson W Wenas mengajar?", "any"),
    ],
)
def test_kah_question_words_ask_for_a_short_answer(question: str, answer_type: str) -> None:
    """ "Siapakah" is "siapa" + the question particle "-kah": the same short-answer question."""
    assert short_answer_expected(question, "other") and expected_answer_type(question) == answer_type
    assert question_kind(question) == "factoid"  # the selection's cue, read the same way


def test_particles_are_dropped_only_from_the_words_that_carry_them() -> None:
    assert without_particles("Siapakah ketua DPRD?") == "siapa ketua DPRD?"
    # words that merely end in the same letters keep them ("istilah" is not "isti" + "-lah")
    assert without_particles("Apa istilah untuk jumlah murid sekolah?") == "Apa istilah untuk jumlah murid sekolah?"
    assert without_particles("Bisakah kita pergi ke manakah?") == "bisa kita pergi ke mana?"
    assert without_particles("Who won in 1924?") == "Who won in 1924?"


def test_an_answer_line_going_on_with_a_labelless_quote_yields_the_answer_and_the_quote() -> None:
    # FacQA (questions 1-60): "Pertamax [1]: <sentence>" is an answer plus a quote without its QUOTE label
    raw = "Pertamax [1]: sedangkan pertamax dari Rp 5.700 menjadi Rp 5.400.\nQUOTE [1]: Harga pertamax terus turun."
    draft = parse_draft(raw)
    assert draft.answer == "Pertamax" and draft.status == "quoted"
    assert [q.text for q in draft.quotes] == [
        "sedangkan pertamax dari Rp 5.700 menjadi Rp 5.400.",
        "Harga pertamax terus turun.",
    ]
    passages = [
        {
            "n": 1,
            "title": "BBM",
            "text": "Harga pertamax terus turun. Premium tetap, sedangkan pertamax dari Rp 5.700 menjadi Rp 5.400.",
        }
    ]
    checked = check_quotes(draft, passages)
    assert [q.status for q in checked.quotes] == ["verbatim", "verbatim"]
    assert answer_grounding(checked, passages) == 1.0


def test_an_answer_line_that_copies_its_quote_after_a_marker_is_cut_there() -> None:
    # HotpotQA: "239 [1] The tornado outbreak sequence of May 22–31 …" with that sentence as its quote
    quote = "The tornado outbreak sequence of May 22–31, 2008 was a series of tornado outbreaks"
    draft = parse_draft(f"239 [1] {quote} affecting the plains.\nQUOTE [1]: {quote}")
    assert draft.answer == "239"


def test_text_after_a_marker_that_is_not_the_quote_stays_in_the_answer() -> None:
    draft = parse_draft(
        "Paris [1] and later Lyon [2]\nQUOTE [1]: The court sat in Paris.\nQUOTE [2]: It moved to Lyon."
    )
    assert draft.answer == "Paris [1] and later Lyon [2]"


def test_a_quote_cut_at_the_grammar_cap_is_checked_against_its_whole_sentence() -> None:
    """The grammar offers a long sentence up to 160 characters; the answer may sit past the cut."""
    from anchorgate.tools.answer.quoted_draft import quotable_sentences

    # FacQA's shape: the answer ("10 kategori") comes after the first 160 characters of its sentence
    sentence = (
        "Pada saat hampir bersamaan, UE pada 27 Mei 2005 mulai melakukan serangkaian perundingan bilateral "
        "dengan China dan disepakati untuk mengenakan kuota terhadap 10 kategori, yaitu cotton fabric, hingga 2007."
    )
    context = [{"n": 1, "title": "", "text": f"{sentence} Kalimat kedua pendek."}]
    head = quotable_sentences(context[0]["text"])[0]
    assert "10 kategori" not in head and sentence.startswith(head)
    draft = check_quotes(parse_draft(f"10 kategori\nQUOTE [1]: {head}"), context)
    assert [(q.status, q.found_in, q.text, q.match) for q in draft.quotes] == [("verbatim", 1, head, sentence)]
    assert answer_grounding(draft, context) == 1.0
    # an answer in another sentence is still not in the quote
    elsewhere = check_quotes(parse_draft(f"Kalimat\nQUOTE [1]: {head}"), context)
    assert answer_grounding(elsewhere, context) == 0.0
    short = check_quotes(parse_draft("kedua\nQUOTE [1]: Kalimat kedua pendek."), context)
    assert short.quotes[0].match == "Kalimat kedua pendek."

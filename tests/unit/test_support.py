"""Support overlap and citation repair, lexical part (no embedding model: score = 0.6 · word share)."""

from __future__ import annotations

from anchorgate.tools.answer.support import repair_citations, support_report

CONTEXT = [
    {
        "n": 1,
        "id": "c1",
        "title": "Circus Diablo",
        "text": "Circus Diablo is a rock band formed in 2004 in Los Angeles.",
    },
    {"n": 2, "id": "c2", "title": "The Exies", "text": "The Exies are an American rock band formed in 1997."},
    {"n": 3, "id": "c3", "title": "Exies live", "text": "The Exies toured with other bands."},
]


def test_a_claim_under_the_wrong_marker_is_recited_to_the_supporting_passage() -> None:
    answer = "The Exies were formed in 1997 [1]."
    assert support_report(answer, CONTEXT, None)[0] == 0.0
    repaired, repairs = repair_citations(answer, CONTEXT, None)
    assert repaired == "The Exies were formed in 1997 [2]."
    assert repairs == [{"claim": "The Exies were formed in 1997.", "from": [1], "to": 2, "score": 0.6}]
    assert support_report(repaired, CONTEXT, None)[0] == 1.0


def test_supported_claims_keep_their_markers_and_an_uncited_supported_claim_gets_one() -> None:
    answer = "Circus Diablo was formed in 2004 in Los Angeles [1]. The Exies were formed in 1997."
    repaired, repairs = repair_citations(answer, CONTEXT, None)
    assert repaired == "Circus Diablo was formed in 2004 in Los Angeles [1]. The Exies were formed in 1997 [2]."
    assert repairs == [{"claim": "The Exies were formed in 1997.", "from": [], "to": 2, "score": 0.6}]


def test_an_uncited_claim_no_passage_supports_stays_uncited_and_unsupported() -> None:
    answer = "Circus Diablo won three Grammy awards."
    assert repair_citations(answer, CONTEXT, None) == (answer, [])
    overlap, claims = support_report(answer, CONTEXT, None)
    assert overlap == 0.0 and claims[0].cited == [1] and not claims[0].supported  # its closest passage, not enough


WITH_CONTEXT = [
    {"n": 1, "id": "w1", "title": "With Statement Context Managers",
     "text": "object.__enter__(self) Enter the runtime context related to this object. "
             "object.__exit__(self, exc_type, exc_value, traceback) Exit the runtime context."},
    {"n": 2, "id": "w2", "title": "The global statement", "text": "Names listed in a global statement are local."},
]  # fmt: skip


def test_an_uncited_claim_is_scored_on_its_best_passage_with_inflections_and_filler_folded() -> None:
    answer = "You need to define the __enter__ and __exit__ methods, which enter and exit the runtime context."
    overlap, claims = support_report(answer, WITH_CONTEXT, None)
    # stems: define, __enter__, __exit__, method, enter, exit, runtime, context — six of eight in passage 1
    assert claims[0].cited == [1] and claims[0].lexical == 0.75 and overlap == 0.0  # 0.6 · 0.75 < 0.5 without semantics
    assert support_report(answer, WITH_CONTEXT, None, threshold=0.44)[0] == 1.0


def test_yes_is_filler_and_a_capitalised_name_is_never_a_stopword() -> None:
    text = "He was the father of Bollywood actress Antara Mali."
    context = [{"n": 1, "id": "m", "title": "Jagdish Mali", "text": text}]
    answer = "Yes, Jagdish Mali is the father of Antara Mali [1]."
    overlap, claims = support_report(answer, context, None)
    assert overlap == 1.0 and claims[0].lexical == 1.0
    # "antara" is an Indonesian stopword ("between"); capitalised, it is the name the answer adds
    assert support_report("Antara Mali [1].", context, None)[1][0].lexical == 1.0
    assert support_report("Priya Mali [1].", context, None)[1][0].lexical == 0.5


def test_a_claim_no_passage_supports_keeps_its_marker_so_the_gate_still_sees_it() -> None:
    answer = "Circus Diablo won three Grammy awards [2]."
    assert repair_citations(answer, CONTEXT, None) == (answer, [])


def test_several_markers_and_a_trailing_lone_marker_become_one() -> None:
    answer = "The Exies formed in 1997 [1][3]. [1]. Circus Diablo formed in 2004 [1]."
    repaired, repairs = repair_citations(answer, CONTEXT, None)
    assert repaired == "The Exies formed in 1997 [2]. Circus Diablo formed in 2004 [1]."
    assert [(r["from"], r["to"]) for r in repairs] == [([1, 3], 2)]


def test_ties_go_to_the_lower_passage_number_and_an_invalid_marker_is_repaired() -> None:
    tied = [{**CONTEXT[1], "n": 5}, {**CONTEXT[1], "id": "c9", "n": 4}]
    repaired, repairs = repair_citations("The Exies rock band [9].", tied, None)
    assert repaired == "The Exies rock band [4]." and repairs[0]["from"] == [9]


def test_refusals_and_empty_context_are_left_alone() -> None:
    assert repair_citations("I don't know [1].", CONTEXT, None) == ("I don't know [1].", [])
    assert repair_citations("The Exies formed in 1997 [1].", [], None) == ("The Exies formed in 1997 [1].", [])

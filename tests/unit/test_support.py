"""Support overlap and citation repair, lexical part (no embedding model: score = 0.6 · word share)."""

from __future__ import annotations

from anchorgate.tools.support import repair_citations, support_report

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


def test_supported_claims_and_uncited_claims_keep_their_markers() -> None:
    answer = "Circus Diablo was formed in 2004 in Los Angeles [1]. The Exies were formed in 1997."
    assert repair_citations(answer, CONTEXT, None) == (answer, [])


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

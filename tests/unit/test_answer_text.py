from __future__ import annotations

import pytest

from anchorgate.tools.answer.citations import resolve_citations
from anchorgate.tools.answer.text import cited_numbers, is_idk, strip_citations

CONTEXT = [
    {"n": 1, "id": "c1", "title": "pass", "source": "s1", "text": '"pass" is a null operation. Nothing happens.'},
    {"n": 2, "id": "c2", "title": "while", "source": "s2", "text": "The while loop repeats while a condition is true."},
]


def test_citation_markers_are_parsed_in_order() -> None:
    assert cited_numbers("A [2]. B [1, 3]. C [4-6]. D [2].") == [2, 1, 3, 4, 5, 6]
    assert strip_citations("Nothing happens [1] .") == "Nothing happens."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I don't know.", True),
        ("I do not know the answer [1].", True),
        ("The passages do not contain information about football.", True),
        ("Saya tidak tahu.", True),
        ("", True),
        ("pass does nothing [1]. I don't know more.", False),
        ("The known answer is 42 [1].", False),
    ],
)
def test_idk_detection(text: str, expected: bool) -> None:
    assert is_idk(text) is expected


def test_citations_map_to_passages_and_uncited_sentences_are_attributed() -> None:
    answer = "The pass statement is a null operation [1]. The while loop repeats while a condition is true. Bogus [7]."
    citations, invalid = resolve_citations(answer, CONTEXT)
    assert [c["id"] for c in citations] == ["c1", "c2"]
    assert citations[0]["attributed"] is False and citations[1]["attributed"] is True
    assert citations[0]["quote"].startswith('"pass" is a null operation')
    assert invalid == [7]


def test_unsupported_uncited_sentence_gets_no_citation() -> None:
    citations, _ = resolve_citations("Argentina won the football final in Qatar.", CONTEXT)
    assert citations == []

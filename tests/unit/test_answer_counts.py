"""`full_counts`: a bare number answering an Indonesian count question gets the classifier or the
counted noun its verified quote writes with it, as Indonesian answers (and FacQA's gold: "84
penumpang", "15 kali") carry it."""

from __future__ import annotations

import pytest

from anchorgate.tools.answer.reader import quoted_update
from anchorgate.tools.answer.short_numbers import counted_in_quote

PLANE = "Pesawat itu membawa 84 penumpang dan enam awak ketika jatuh."


@pytest.mark.parametrize(
    ("answer", "quote", "question", "expected"),
    [
        ("84", PLANE, "Berapa jumlah penumpang pesawat itu?", "84 penumpang"),
        ("15", "Ia sudah 15 kali menjuarai turnamen itu.", "Berapa kali ia menjuarai turnamen itu?", "15 kali"),
        ("12.770", "Populasinya mencapai 12.770 ekor.", "Berapakah populasi badak Jawa?", "12.770 ekor"),  # "-kah"
        ("6", PLANE, "Berapa jumlah penumpang pesawat itu?", None),  # "enam awak": no "6" with a noun
        ("84 penumpang", PLANE, "Berapa jumlah penumpang pesawat itu?", None),  # already whole
        ("84", "The plane carried 84 passengers.", "How many passengers were on the plane?", None),  # English
        ("1998", "Pabrik itu dibuka pada 1998.", "Kapan pabrik itu dibuka?", None),  # not a count question
    ],
)
def test_a_bare_count_is_completed_from_its_quote(answer: str, quote: str, question: str, expected: str | None) -> None:
    assert counted_in_quote(answer, quote, question) == expected


def test_the_draft_carries_the_counted_noun_only_when_asked() -> None:
    context = [{"n": 1, "title": "Kecelakaan", "text": PLANE}]
    reply = f"84\nQUOTE [1]: {PLANE}"
    question = "Berapa jumlah penumpang pesawat itu?"
    on = quoted_update(reply, context, question, full_counts=True)
    assert on["draft"] == "84 penumpang [1]" and on["draft_structure"]["clipped_answer"] == "84"
    assert quoted_update(reply, context, question)["draft"] == "84 [1]"

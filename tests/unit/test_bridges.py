from __future__ import annotations

from anchorgate.tools.corpus.documents import Chunk
from anchorgate.tools.retrieval.bridges import bridge_rows, mention_name, title_rows


def _chunk(doc: str, title: str, text: str) -> Chunk:
    return Chunk(f"{doc}#0", doc, title, text)


CHUNKS = [
    _chunk(
        "k", "Kerry Saxby-Junna", "Kerry Saxby-Junna (born 2 June 1961 in Young, New South Wales) is a race walker."
    ),
    _chunk(
        "y", "Young, New South Wales", "Young is a town in New South Wales. At the 2011 census it had 7,000 people."
    ),
    _chunk("s", "Scott Howell (political consultant)", "Scott Howell worked for Rudy Giuliani."),
    _chunk("r", "Rudy Giuliani", "Rudy Giuliani was the mayor of New York City."),
    _chunk("p", "pass", "pass is a null operation."),
]


def test_titles_are_matched_by_their_mention_name() -> None:
    assert mention_name("Scott Howell (political consultant)") == "Scott Howell"
    assert mention_name("Young, New South Wales") == "Young"
    table = title_rows("test-index", CHUNKS)
    assert "pass" not in table  # lowercase common-word titles never link
    assert table["Rudy Giuliani"] == [3]


def test_bridge_follows_mentions_the_question_does_not_name() -> None:
    table = title_rows("test-index", CHUNKS)
    question = "At the 2011 census, what was the population of the city where Kerry Saxby-Junna was born?"
    rows = bridge_rows([CHUNKS[0].text], {"Kerry Saxby-Junna"}, table, question, limit=3)
    assert rows == [1]


def test_bridge_skips_own_and_question_titles_and_partial_words() -> None:
    table = title_rows("test-index", CHUNKS)
    rows = bridge_rows(["Rudy Giulianis and Scott Howell met."], set(), table, "Who is Scott Howell?", limit=5)
    assert rows == []  # "Rudy Giulianis" is not a whole-word mention; Scott Howell is named by the question
    assert bridge_rows([CHUNKS[2].text], {"Scott Howell"}, table, "Which mayor?", limit=0) == []

"""Context selection: MMR, adaptive diversity, anchor bonus, tie-breaks, caps, list handling, reserves."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from anchorgate.tools.corpus.documents import Chunk, ScoredChunk
from anchorgate.tools.retrieval.selection import (
    SelectionSettings,
    contains_anchor,
    list_density,
    question_kind,
    select,
    source_key,
    unique_by_content,
)

PURE_RELEVANCE = SelectionSettings(adaptive_diversity=False, mmr_diversity=0.0)


def sc(
    cid: str,
    score: float,
    rank: int,
    title: str = "",
    text: str | None = None,
    doc_id: str | None = None,
    source: str = "",
    domain: str | None = None,
) -> ScoredChunk:
    metadata = {"domain": domain} if domain else {}
    chunk = Chunk(
        id=cid, doc_id=doc_id or cid, title=title, text=text if text is not None else f"passage {cid}",
        source=source, metadata=metadata,
    )
    return ScoredChunk(chunk=chunk, score=score, rank=rank)


def ids(result_chunks: list[ScoredChunk]) -> list[str]:
    return [c.chunk.id for c in result_chunks]


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("List the countries with the largest population in Europe", "list"),
        ("Name all members of the Beatles", "list"),
        ("Which countries are in the European Union?", "list"),
        ("What are the side effects of aspirin?", "list"),
        ("Sebutkan negara dengan populasi terbesar di Eropa", "list"),
        ("Apa saja syarat pengajuan keberatan pajak?", "list"),
        ("Daftar pemenang Piala Dunia sejak 1990", "list"),
        ("Who won the US Open in 2017?", "factoid"),
        ("How many titles did Federer win?", "factoid"),
        ("Siapa juara US Open 2017?", "factoid"),
        ("Berapa rata-rata usia pemain?", "factoid"),
        ("Why does CPython have a global interpreter lock?", "other"),
        ("Jelaskan prosedur keberatan pajak", "other"),
        ("Which river is longer, the Nile or the Amazon?", "other"),
    ],
)
def test_question_kind(question: str, kind: str) -> None:
    assert question_kind(question) == kind


def test_list_density() -> None:
    assert list_density("- apples\n- pears\n- plums") == 1.0
    assert list_density("Winners:\n1. Spain\n2. Italy") == pytest.approx(2 / 3)
    assert list_density("France, Germany, Italy, Spain and Poland border it.") == pytest.approx(0.75)
    assert list_density("The cat sat on the mat. It was warm.") == 0.0
    assert list_density("- a single bullet\nand prose") == 0.0


def test_contains_anchor_needs_whole_words() -> None:
    assert contains_anchor("Academy Awards 2004", "2004")
    assert not contains_anchor("Report 20045", "2004")
    assert not contains_anchor("Also relevant", "AO")
    assert contains_anchor("AO 2019 final", "ao")
    assert not contains_anchor("anything", "  ")


def test_anchor_bonus_flips_close_call_only_for_relevant_chunks() -> None:
    candidates = [
        sc("a", 0.50, 0, title="Tennis news"),
        sc("b", 0.45, 1, title="AO 2019 results"),
        sc("c", 0.15, 2, title="AO 2019 blog"),
    ]
    result = select("Who won the AO 2019?", candidates, anchors=["AO 2019"], settings=PURE_RELEVANCE)
    assert ids(result.selected) == ["b", "a", "c"]
    assert [c.score for c in result.selected] == pytest.approx([0.52, 0.50, 0.15])  # c: below floor, no bonus


def test_tie_within_epsilon_goes_to_earlier_rank_then_id() -> None:
    candidates = [sc("late", 0.5 + 5e-7, 3), sc("early", 0.5, 1)]
    assert ids(select("q", candidates, settings=PURE_RELEVANCE).selected)[0] == "early"
    strict = SelectionSettings(adaptive_diversity=False, mmr_diversity=0.0, tie_epsilon=1e-9)
    assert ids(select("q", candidates, settings=strict).selected)[0] == "late"
    same = [sc("b", 0.5, 2), sc("a", 0.5, 2)]
    assert ids(select("q", same, settings=PURE_RELEVANCE).selected) == ["a", "b"]


def test_per_source_cap_uses_domain_then_source_then_doc() -> None:
    wiki = [sc(f"w{i}", 0.9 - 0.01 * i, i, domain="wikipedia.org", source="x") for i in range(5)]
    blog = [sc(f"b{i}", 0.5 - 0.01 * i, 5 + i, source="blog") for i in range(3)]
    result = select("q", wiki + blog, settings=PURE_RELEVANCE)
    assert ids(result.selected) == ["w0", "w1", "b0", "b1"]
    assert result.capped_ids == ["w2", "w3", "w4", "b2"]
    assert source_key(wiki[0].chunk) == "wikipedia.org" and source_key(sc("z", 0, 0).chunk) == "z"
    no_cap = SelectionSettings(adaptive_diversity=False, per_source_cap=0)
    uncapped = select("q", wiki + blog, settings=no_cap)
    assert len(uncapped.selected) == 8


def test_list_questions_cap_chunks_per_document() -> None:
    same_doc = [sc(f"d1-{i}", 0.9 - 0.01 * i, i, doc_id="d1", domain=f"site{i}") for i in range(4)]
    other = [sc("d2-0", 0.4, 4, doc_id="d2", domain="site9")]
    listing = select("Sebutkan semua pemenang", same_doc + other, settings=PURE_RELEVANCE)
    assert Counter(c.chunk.doc_id for c in listing.selected) == {"d1": 2, "d2": 1}
    factoid = select("Who won?", same_doc + other, settings=PURE_RELEVANCE)
    assert Counter(c.chunk.doc_id for c in factoid.selected) == {"d1": 4, "d2": 1}


def test_list_boost_prefers_list_dense_chunks_for_list_questions() -> None:
    prose = sc("prose", 0.52, 0, text="The tournament has a long history of champions.")
    bullets = sc("bullets", 0.50, 1, text="- Spain\n- Italy\n- Germany\n- Brazil")
    assert ids(select("List the winners", [prose, bullets], settings=PURE_RELEVANCE).selected)[0] == "bullets"
    assert ids(select("Who won in 2010?", [prose, bullets], settings=PURE_RELEVANCE).selected)[0] == "prose"


def test_mmr_skips_near_duplicates_unless_diversity_is_zero() -> None:
    candidates = [sc("a", 0.9, 0), sc("a_dup", 0.88, 1), sc("b", 0.6, 2)]
    emb = np.array([[1.0, 0.0, 0.0], [0.99, 0.14, 0.0], [0.0, 1.0, 0.0]])
    diverse = SelectionSettings(adaptive_diversity=False, mmr_diversity=0.45, keep_k=2)
    result = select("q", candidates, emb, settings=diverse)
    assert ids(result.selected) == ["a", "b"]
    # mmr(b) = 0.55 · 0.6 − 0.45 · 0 = 0.33 > mmr(a_dup) ≈ 0.55 · 0.88 − 0.45 · 0.99
    assert result.picks[1].mmr == pytest.approx(0.33)
    relevance_only = SelectionSettings(adaptive_diversity=False, mmr_diversity=0.0, keep_k=2)
    assert ids(select("q", candidates, emb, settings=relevance_only).selected) == ["a", "a_dup"]


def test_redundancy_floor_penalizes_only_near_duplicates() -> None:
    # "b" is related to "a" (cosine 0.6) but a different passage; "a_dup" nearly repeats "a" (0.99).
    candidates = [sc("a", 0.9, 0), sc("b", 0.7, 1), sc("c", 0.5, 2), sc("a_dup", 0.88, 3)]
    emb = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0], [0.99, 0.141, 0.0]])
    plain = SelectionSettings(adaptive_diversity=False, mmr_diversity=0.45, keep_k=2)
    assert ids(select("q", candidates, emb, settings=plain).selected) == ["a", "c"]  # b pushed out
    floored = SelectionSettings(adaptive_diversity=False, mmr_diversity=0.45, keep_k=3, redundancy_floor=0.7)
    result = select("q", candidates, emb, settings=floored)
    assert ids(result.selected) == ["a", "b", "c"]  # the near-duplicate is still the one left out
    # mmr(b) = 0.55 · 0.7 − 0.45 · max(0, 0.6 − 0.7) / 0.3 = 0.385
    assert result.picks[1].mmr == pytest.approx(0.385)
    with pytest.raises(ValueError, match="redundancy_floor"):
        select("q", candidates, emb, settings=SelectionSettings(redundancy_floor=1.0))


def test_adaptive_diversity_by_question_kind() -> None:
    candidates = [sc("a", 0.9, 0)]
    assert select("Who won the US Open?", candidates).diversity == 0.2
    assert select("List the US Open winners", candidates).diversity == 0.6
    assert select("Why is grass green?", candidates).diversity == 0.45
    fixed = SelectionSettings(adaptive_diversity=False)
    assert select("List the US Open winners", candidates, settings=fixed).diversity == 0.45


def test_reserve_slots_cover_missing_anchor() -> None:
    federer = [sc(f"f{i}", 0.9 - 0.05 * i, i, text=f"Federer match report {i}") for i in range(7)]
    year = sc("y", 0.30, 7, text="The 2017 final was played in Melbourne")
    noise = sc("n", 0.10, 8, text="A 2017 blog post")  # below the floor: never used for coverage
    candidates = [*federer, year, noise]
    anchors = ["Federer", "2017"]
    plain = SelectionSettings(adaptive_diversity=False, mmr_diversity=0.0, keep_k=6)
    assert "y" not in ids(select("q", candidates, anchors=anchors, settings=plain).selected)
    reserve = SelectionSettings(
        adaptive_diversity=False, mmr_diversity=0.0, keep_k=6, reserve_main=4, reserve_extra=2
    )
    result = select("q", candidates, anchors=anchors, settings=reserve)
    assert ids(result.selected) == ["f0", "f1", "f2", "f3", "y", "f4"]
    assert [p.reason for p in result.picks] == ["mmr"] * 4 + ["reserve"] * 2


def test_pool_k_limits_candidates() -> None:
    candidates = [sc(f"c{i}", 1.0 - 0.01 * i, i) for i in range(30)]
    result = select("q", candidates, settings=SelectionSettings(pool_k=5, keep_k=10, per_source_cap=0))
    assert sorted(ids(result.selected)) == [f"c{i}" for i in range(5)]


def test_selection_is_deterministic_and_respects_limits() -> None:
    rng = np.random.default_rng(0)
    settings = SelectionSettings(pool_k=12, keep_k=6)
    for _ in range(100):
        n = int(rng.integers(1, 20))
        candidates = [
            sc(f"c{i}", round(float(rng.random()), 2), i, title=rng.choice(["AO 2019", "Other"]),
               domain=str(rng.choice(["a", "b", "c"])), doc_id=f"d{rng.integers(0, 4)}")
            for i in range(n)
        ]
        emb = rng.normal(size=(n, 8))
        perm = rng.permutation(n)
        first = select("List AO winners", candidates, emb, ["AO 2019"], settings)
        second = select("List AO winners", [candidates[i] for i in perm], emb[perm], ["AO 2019"], settings)
        assert ids(first.selected) == ids(second.selected)
        assert len(first.selected) <= 6 and len(set(ids(first.selected))) == len(first.selected)
        assert max(Counter(source_key(c.chunk) for c in first.selected).values(), default=0) <= 2
        assert max(Counter(c.chunk.doc_id for c in first.selected).values(), default=0) <= 2
        pool = sorted(candidates, key=lambda c: (-c.score, c.rank, c.chunk.id))[:12]
        assert set(ids(first.selected)) <= set(ids(pool))


def test_reserve_leftover_slots_are_filled_and_embeddings_must_align() -> None:
    candidates = [sc(f"c{i}", 0.9 - 0.05 * i, i) for i in range(6)]
    settings = SelectionSettings(adaptive_diversity=False, keep_k=5, reserve_main=2, reserve_extra=1)
    result = select("q", candidates, settings=settings)
    assert len(result.selected) == 5
    assert [p.reason for p in result.picks] == ["mmr", "mmr", "reserve", "mmr", "mmr"]
    with pytest.raises(ValueError):
        select("q", candidates, np.zeros((3, 4)))


def test_identical_texts_of_two_documents_fill_one_slot_the_better_ranked() -> None:
    shared = "A class that overrides __eq__() and does not define __hash__()"
    candidates = [
        sc("specialnames#35", 0.61, 5, text=shared, doc_id="specialnames"),
        sc("customization#30", 0.61, 2, text=shared, doc_id="customization"),  # same score, better rank
        sc("other", 0.50, 1),
        sc("copy-worse", 0.40, 3, text=" ".join(shared.split()), doc_id="types"),  # whitespace aside, same
    ]
    result = select("q", candidates, settings=PURE_RELEVANCE)
    assert ids(result.selected) == ["customization#30", "other"]
    assert result.duplicate_ids == ["specialnames#35", "copy-worse"]
    # a higher score wins over a better rank, and exact ties go to the smaller id
    higher = [sc("b", 0.7, 9, text=shared), sc("a", 0.6, 1, text=shared)]
    assert ids(select("q", higher, settings=PURE_RELEVANCE).selected) == ["b"]
    tied = [sc("b", 0.6, 1, text=shared), sc("a", 0.6, 1, text=shared)]
    assert ids(select("q", tied, settings=PURE_RELEVANCE).selected) == ["a"]
    # duplicates do not use pool slots: with pool_k 2 the second distinct text still gets in
    pooled = select("q", candidates, settings=SelectionSettings(pool_k=2, adaptive_diversity=False))
    assert ids(pooled.selected) == ["customization#30", "other"]


def test_unique_by_content_keeps_first_of_each_text() -> None:
    kept, dropped = unique_by_content(["a b", "c", "a  b", "c", "d"], lambda text: text)
    assert kept == ["a b", "c", "d"] and dropped == ["a  b", "c"]

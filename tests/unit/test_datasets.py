"""Loaders against the real public datasets in ../shared/datasets (counts verified on the files)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from anchorgate.eval.datasets import (
    ANSWERS_UNKNOWN,
    FORMATS,
    QADataset,
    detect_format,
    load_dataset,
)

TAG = re.compile(
    r"</?(html|head|body|div|span|p|a|script|style|meta|link|nav|li|ul|table|td|tr)\b[^>]*>", re.I
)


@pytest.fixture(scope="module")
def crag(datasets_dir: Path) -> QADataset:
    return load_dataset(datasets_dir / "crag_sample" / "crag_example_dev.jsonl.bz2")


@pytest.fixture(scope="module")
def hotpot(datasets_dir: Path) -> QADataset:
    return load_dataset(datasets_dir / "hotpotqa_sample" / "hotpotqa_train.json")


@pytest.fixture(scope="module")
def squad_id(datasets_dir: Path) -> QADataset:
    return load_dataset(datasets_dir / "squad2_id_translated")


@pytest.mark.parametrize(
    ("folder", "fmt"),
    [
        ("crag_sample", "crag"),
        ("hotpotqa_sample", "hotpotqa"),
        ("nq_open_oracle", "nq-oracle"),
        ("clapnq", "clapnq"),
        ("nomiracl", "nomiracl"),
        ("squad2_id_translated", "squad"),
        ("indonlu_facqa", "indonlu"),
        ("halueval_qa", "halueval"),
        ("falseqa", "falseqa"),
        ("covid_qa", "covidqa"),
    ],
)
def test_detect_format_of_every_folder(datasets_dir: Path, folder: str, fmt: str) -> None:
    assert detect_format(datasets_dir / folder) == fmt
    assert fmt in FORMATS


def test_crag_questions_pages_and_metadata(crag: QADataset) -> None:
    assert crag.format == "crag" and len(crag) == 10
    assert all(item.extra["n_search_results"] == 5 for item in crag.items)
    types = Counter(item.question_type for item in crag.items)
    assert types == {"comparison": 3, "multi-hop": 3, "set": 2, "simple": 1, "false_premise": 1}
    assert all(item.query_time and item.query_time.endswith("PT") for item in crag.items)
    pages = [p for item in crag.items for p in item.passages]
    # 50 search results, 3 of them (all in question 9) have an empty page_result.
    assert len(pages) == 47
    assert len(crag.skipped) == 3 and all("line 9" in where for where, _ in crag.skipped)
    assert len({p.id for p in pages}) == 47
    assert sum(p.metadata["last_modified"] is not None for p in pages) == 16
    for page in pages:
        meta = page.metadata
        assert meta["rank"] in range(1, 6) and page.id.endswith(f"#{meta['rank']}")
        assert (
            meta["domain"]
            and not meta["domain"].startswith("www.")
            and meta["domain"] == meta["domain"].lower()
        )
        assert meta["domain"] in meta["url"].lower() and page.source == meta["url"]
        assert "last_modified" in meta and page.title
        assert "<script" not in page.text.lower() and not TAG.search(page.text)
        assert len(page.text) <= 200_000 and ("\n\n" in page.text or len(page.text) < 1000)
    first = crag.items[0].passages[4]
    assert first.metadata["domain"] == "en.wikipedia.org" and first.metadata["last_modified"].endswith("GMT")
    assert "102 languages" in first.text


def test_crag_answers_false_premise_and_missing_gold(crag: QADataset) -> None:
    premise = [item for item in crag.items if item.false_premise]
    assert len(premise) == 1 and not premise[0].answerable
    assert premise[0].answers[0].startswith("rory mcilroy has never won")
    missing = [item for item in crag.items if not item.answers]
    assert len(missing) == 1 and missing[0].extra[ANSWERS_UNKNOWN] and missing[0].extra["raw_answer"] == "nan"
    assert crag.items[0].answers == ("yes",) and crag.items[0].extra["domain"] == "open"


def test_crag_limit_reads_only_what_it_needs(datasets_dir: Path, crag: QADataset) -> None:
    two = load_dataset(datasets_dir / "crag_sample", limit=2)
    assert two.items == crag.items[:2]


def test_hotpotqa_questions_corpus_and_supporting_facts(hotpot: QADataset) -> None:
    assert len(hotpot) == 100 and hotpot.corpus is not None and len(hotpot.corpus) == 994
    corpus = {p.id: p for p in hotpot.corpus}
    assert Counter(item.question_type for item in hotpot.items) == {"bridge": 78, "comparison": 22}
    assert sum(len(item.gold_sentences) for item in hotpot.items) == 229
    for item in hotpot.items:
        assert item.answers and 1 <= len(item.gold_passage_ids) <= 2
        assert {p.id for p in item.passages} <= corpus.keys()
        assert set(item.gold_passage_ids) <= {p.id for p in item.passages}
        for pid, sentence in item.gold_sentences:
            assert sentence in corpus[pid].metadata["sentences"] and sentence in corpus[pid].text
    first = hotpot.items[0]
    assert (first.id, first.answers, first.gold_passage_ids) == (
        "5a77ec115542992a6e59dff7", ("a spirit",), ("Alû", "Lilu (mythology)"),
    )  # fmt: skip
    assert corpus["Alû"] == next(p for p in first.passages if p.id == "Alû")


def test_nq_oracle_gold_passages_and_pooled_corpus(datasets_dir: Path) -> None:
    ds = load_dataset(datasets_dir / "nq_open_oracle")
    assert ds.format == "nq-oracle" and len(ds) == 1327
    assert ds.corpus is not None and len(ds.corpus) == 1312  # 15 gold passages are shared
    corpus_ids = {p.id for p in ds.corpus}
    assert len({item.id for item in ds.items}) == 1327
    for item in ds.items:
        assert item.answerable and item.answers
        assert len(item.passages) == 1 and item.gold_passage_ids == (item.passages[0].id,)
        assert item.gold_passage_ids[0] in corpus_ids
    assert sum(len(item.answers) > 1 for item in ds.items) == 613
    assert ds.items[0].answers == ("Wilhelm Conrad Röntgen",)
    assert "Röntgen" in ds.items[0].passages[0].text


def test_clapnq_answerable_flags_and_selected_sentences(datasets_dir: Path) -> None:
    ds = load_dataset(datasets_dir / "clapnq")
    assert len(ds) == 400
    answerable = [item for item in ds.items if item.answerable]
    unanswerable = [item for item in ds.items if not item.answerable]
    assert len(answerable) == 200 and len(unanswerable) == 200
    assert [item.answerable for item in ds.items[:4]] == [True, False, True, False]  # interleaved
    for item in answerable:
        assert item.answers and item.gold_sentences and item.extra["subset"] == "answerable"
        for pid, sentence in item.gold_sentences:
            owner = next(p for p in item.passages if p.id == pid)
            assert sentence in owner.metadata["sentences"] and pid in item.gold_passage_ids
    for item in unanswerable:
        assert item.answers == () and item.gold_passage_ids == () and item.gold_sentences == ()
        assert len(item.passages) == 1 and item.passages[0].text
    only = load_dataset(datasets_dir / "clapnq" / "clapnq_dev_unanswerable.jsonl")
    assert len(only) == 200 and not any(item.answerable for item in only.items)


def test_nomiracl_subsets_languages_and_passages(datasets_dir: Path) -> None:
    ds = load_dataset(datasets_dir / "nomiracl")
    assert len(ds) == 1000
    counts = Counter((item.language, item.answerable) for item in ds.items)
    assert counts == {("en", True): 250, ("en", False): 250, ("id", True): 250, ("id", False): 250}
    for item in ds.items:
        assert len(item.passages) == 10 and item.id.startswith(f"{item.language}:")
        assert all(p.id.startswith(f"{item.language}:") and p.text for p in item.passages)
        assert item.answers == () and item.extra[ANSWERS_UNKNOWN]
    assert len(ds.corpus_passages()) == 4901 + 4668
    indonesian = load_dataset(datasets_dir / "nomiracl", language="id")
    assert len(indonesian) == 500 and {item.language for item in indonesian.items} == {"id"}
    one_file = load_dataset(datasets_dir / "nomiracl" / "nomiracl_id_test_non_relevant.jsonl")
    assert len(one_file) == 250 and {(i.language, i.answerable) for i in one_file.items} == {("id", False)}
    assert one_file.items[0].question == "Siapakah pendiri Yahoo.inc?"


def test_squad_indonesian_unanswerable_and_paragraph_corpus(squad_id: QADataset) -> None:
    assert squad_id.format == "squad" and len(squad_id) == 8170
    assert squad_id.corpus is not None and len(squad_id.corpus) == 1202
    assert {item.language for item in squad_id.items} == {"id"}
    impossible = [item for item in squad_id.items if not item.answerable]
    assert len(impossible) == 3768
    assert all(item.answers == () and item.gold_passage_ids == () for item in impossible)
    assert all(item.extra["plausible_answers"] for item in impossible)
    corpus_ids = {p.id for p in squad_id.corpus}
    for item in squad_id.items:
        if item.answerable:
            assert item.gold_passage_ids[0] in corpus_ids
            assert all(answer in item.passages[0].text for answer in item.answers)
    assert len({p.title for p in squad_id.corpus}) == 35


def test_indonlu_facqa_jsonl_and_upstream_csv_agree(datasets_dir: Path) -> None:
    folder = datasets_dir / "indonlu_facqa"
    ds = load_dataset(folder)
    assert ds.path == str(folder) and len(ds) == 311
    assert {item.language for item in ds.items} == {"id"}
    assert all(item.answerable and item.gold_passage_ids for item in ds.items)
    assert all(answer in item.passages[0].text for item in ds.items for answer in item.answers)
    assert len(ds.corpus_passages()) == 273
    from_csv = load_dataset(folder / "valid_preprocess.csv")
    assert from_csv.format == "indonlu" and [i.id for i in from_csv.items] == [i.id for i in ds.items]
    assert sum(a.answers == b.answers for a, b in zip(ds.items, from_csv.items, strict=True)) == 311


def test_halueval_knowledge_and_hallucinated_answers(datasets_dir: Path) -> None:
    one = load_dataset(datasets_dir / "halueval_qa" / "qa_one-turn_data.json")
    assert one.format == "halueval" and len(one) == 500
    item = one.items[0]
    assert item.id == "halueval-one-turn-0" and item.answers == ("Arthur's Magazine",)
    assert item.extra["hallucinated_answer"] == "First for Women was started first."
    assert item.passages[0].text == item.extra["knowledge"] and item.gold_passage_ids == (
        item.passages[0].id,
    )
    both = load_dataset(datasets_dir / "halueval_qa")
    assert len(both) == 1000 and len(both.corpus_passages()) == 500  # same knowledge in both variants


def test_falseqa_false_premise_and_rebuttals(datasets_dir: Path) -> None:
    ds = load_dataset(datasets_dir / "falseqa" / "valid.csv")
    assert ds.format == "falseqa" and len(ds) == 982
    premise = [item for item in ds.items if item.false_premise]
    assert len(premise) == 491
    assert all(not item.answerable and item.extra["rebuttal"] == item.answers[0] for item in premise)
    assert all(item.answerable and item.answers for item in ds.items if not item.false_premise)
    assert all(item.passages == () for item in ds.items) and ds.corpus_passages() == ()


def test_covidqa_long_papers(datasets_dir: Path) -> None:
    ds = load_dataset(datasets_dir / "covid_qa")
    assert ds.format == "covidqa" and len(ds) == 1380
    assert ds.corpus is not None and len(ds.corpus) == 98
    assert max(len(p.text) for p in ds.corpus) > 60_000
    first = ds.items[0]
    assert first.id == "262" and first.passages[0].id == "doc-630"
    assert first.passages[0].title.startswith("Functional Genetic Variants in DC-SIGNR")
    assert all(item.answerable and item.gold_passage_ids for item in ds.items)


def test_limit_is_a_deterministic_prefix(datasets_dir: Path) -> None:
    folder = datasets_dir / "clapnq"
    full = load_dataset(folder)
    assert load_dataset(folder, limit=7).items == full.items[:7]
    ten = load_dataset(folder, limit=10)
    assert Counter(item.answerable for item in ten.items) == {True: 5, False: 5}
    assert len(load_dataset(folder, limit=10_000)) == 400
    assert len(load_dataset(folder, limit=0)) == 0
    with pytest.raises(ValueError):
        load_dataset(folder, limit=-1)


def test_limit_keeps_the_pooled_corpus(hotpot: QADataset, datasets_dir: Path) -> None:
    small = load_dataset(datasets_dir / "hotpotqa_sample", limit=3)
    assert len(small) == 3 and small.corpus == hotpot.corpus

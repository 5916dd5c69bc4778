"""Short answer span for EM/F1 scoring: seed 000 §6 finalizer rules (DESIGN §2.4)."""

from __future__ import annotations

import re
import string
from collections import Counter
from pathlib import Path

import pytest

from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.answer.short_answer import short_answer_span
from anchorgate.tools.answer.text import strip_citations
from anchorgate.tools.text.sentences import split_sentences

# (question, cited answer as the model wrote it, short span for scoring — None: the answer unchanged,
# citations stripped and final period removed, which is the conservative fallback)
CASES: list[tuple[str, str, str | None]] = [
    # numeric: averages (seed 000 §4/§6 — the marked average, not its components; units kept)
    ('Berapa rata-rata usia pemain?', 'Tiga pemain dengan usia 22, 25, 30 tahun, rata-rata usia 25.7 tahun [1].',
     '25.7 tahun'),
    ('Berapa rata-rata pendapatan perusahaan X?', 'Rata-rata pendapatan adalah 5 juta USD per kuartal [2].',
     '5 juta USD'),
    ('What was the average number of cases per year?',
     '2018: 50 cases, 2019: 55 cases, average ≈52.5 cases per year [1].',
     '52.5'),
    ('Berapa rata-rata kasus per tahun?', '2018: 50 kasus, 2019: 55 kasus, rata-rata ≈52.5 kasus per tahun [1].',
     '52.5 kasus'),
    ('How many goals per game did he score on average?',
     'He scored 40 goals in 12 games, an average of about 3.3 goals per game [1].',
     '3.3'),
    ('What was the mean temperature in July?', 'Daily highs were 31, 33 and 35 °C; the mean was 33 °C [1].', '33 °C'),
    # numeric: totals, percentages, money, Indonesian classifiers
    ('What was the total attendance?',
     'Attendance was 20,000 on Friday and 25,000 on Saturday, for a total of 45,000 [1].',
     '45,000'),
    ('What was the total score of the team?', 'The team scored 20, 25 and 30 points, 75 in total [1][2].', '75'),
    ('Berapa jumlah pengunjung tahun ini?', 'Pengunjung naik dari 1.200 orang menjadi 1.500 orang [1].', '1.500 orang'),
    ('What percentage of voters supported it?', 'In 2019, 52% of voters supported it [1].', '52%'),
    ('What percentage did sales grow?', 'Sales rose 4.5 percent in 2020 after 3 new stores opened [1].', '4.5 percent'),
    ('How much did the startup raise?', 'The startup raised $5 million from 12 investors in 2019 [3].', '$5 million'),
    ('Berapa nilai ekspor Indonesia?', 'Nilai ekspor mencapai Rp 5 miliar pada 2005 [1].', 'Rp 5 miliar'),
    ('How much did the film gross?',
     'The film grossed $5 million in its opening weekend and $120 million worldwide [1].',
     None),
    ('Berapa penumpang yang turut dalam penerbangan GA 181?',
     'Sebanyak 84 penumpang turut dalam penerbangan GA 181 [1].',
     '84 penumpang'),
    ('Berapa kalikah Lin Dan gagal memainkan netting?', 'Lin Dan gagal memainkan netting sebanyak 15 kali [1].',
     '15 kali'),
    ('How many passengers were on the Hindenburg?',
     'Of the 97 people on board, 36 passengers and 61 crewmen, 35 died [1].',
     '36'),
    # yes/no
    ('Are Christopher Nolan and Sathish Kalathil both film directors?', 'Yes, both are film directors [1][2].', 'yes'),
    ('Were Watertown and Alexandria airports in the same state?',
     'No. Watertown is in New York and Alexandria in Louisiana [1].',
     'no'),
    ('Apakah Jakarta ibu kota Indonesia?', 'Ya, Jakarta adalah ibu kota Indonesia [1].', 'yes'),
    ('Apakah Bandung ibu kota Indonesia?', 'Tidak, ibu kota Indonesia adalah Jakarta [1].', 'no'),
    ('Is the Eiffel Tower in Paris?', 'The Eiffel Tower stands on the Champ de Mars in Paris [1].', None),
    # lists
    ('Sebutkan provinsi di Pulau Jawa',
     'Provinsi di Pulau Jawa adalah Banten, Jawa Barat, Jawa Tengah dan Jawa Timur [1].',
     'Banten, Jawa Barat, Jawa Tengah, Jawa Timur'),
    ('List the members of The Beatles.',
     'The members were John Lennon, Paul McCartney, George Harrison and Ringo Starr [1].',
     'John Lennon, Paul McCartney, George Harrison, Ringo Starr'),
    ('What are the official languages of Canada?', 'Canada has two official languages:\n- English [1]\n- French [2]',
     'English, French'),
    ('List the causes of the war.', 'The war had many causes, chief among them a long dispute over trade routes [1].',
     None),
    # factoids: clear patterns only
    ('Who won the AO in 2017?', 'Roger Federer won the 2017 Australian Open [1].', 'Roger Federer'),
    ('What is the capital of France?', 'The capital of France is Paris [1].', 'Paris'),
    ('Which city is the capital of France?', 'Paris is the capital of France [1].', 'Paris'),
    ('Siapa pemenang Best Animated Feature 2004?', 'Pemenangnya adalah Film X pada Academy Awards 2004 [1].', 'Film X'),
    ('When was the Eiffel Tower completed?', 'The Eiffel Tower was completed on 31 March 1889 [1].', '31 March 1889'),
    ('In what year was Obama born?', 'Barack Obama was born on August 4, 1961, in Honolulu [2].', '1961'),
    ('Who is older, Sid Haig or Vic Darchinyan?', 'Sid Haig is older than Vic Darchinyan [1][2].', 'Sid Haig'),
    ('Which plant is larger, the Pterocarya or the Cotula?', 'The Pterocarya is larger; Cotula are small herbs [1].',
     'Pterocarya'),
    ('Who starred as Iron Man in the 2008 film?', 'Robert Downey Jr. starred as Iron Man in the 2008 film [1].',
     'Robert Downey Jr'),
    ('What is the capital of France?', 'Paris [1].', 'Paris'),
    # I don't know
    ('Who wrote Hamlet?', "I don't know.", ''),
    ('Who wrote Hamlet?', 'The passages do not mention the author [1].', ''),
    # conservative: no clear pattern → the answer unchanged (None)
    ('What does the pass statement do?', 'The pass statement does nothing; it is a placeholder [1].', None),
    ('Why did the empire fall?', 'The empire fell because of debt, plague and invasions [1][2].', None),
    ('Who painted the ceiling?',
     'The ceiling was painted over many years by several artists, according to the records [1].',
     None),
]  # fmt: skip


@pytest.mark.parametrize(("question", "answer", "expected"), CASES, ids=[c[0][:30] for c in CASES])
def test_short_answer_span(question: str, answer: str, expected: str | None) -> None:
    unchanged = " ".join(strip_citations(answer).split()).removesuffix(".")
    assert short_answer_span(question, answer) == (unchanged if expected is None else expected)


def test_table_covers_the_seed_examples() -> None:
    assert len(CASES) >= 25
    # seed 000 §4/§6: the average, not its components; the unit stays ("25.7 tahun", documented choice)
    assert CASES[0][0] == "Berapa rata-rata usia pemain?" and CASES[0][2] == "25.7 tahun"
    assert CASES[1][2] == "5 juta USD" and CASES[2][2] == "52.5"


def test_component_numbers_are_avoided() -> None:
    answer = "Q1: 10 units, Q2: 12 units, Q3: 14 units; overall 36 units were sold, an average of 12 [1]."
    assert short_answer_span("How many units were sold in total?", answer) == "36"
    assert short_answer_span("What was the average per quarter?", answer) == "12"


def test_conservative_fallback_keeps_the_answer() -> None:
    long_answer = "It depends on the season [1]. In winter the park closes early, in summer it stays open late [2]."
    assert short_answer_span("When does the park close?", long_answer) == (
        "It depends on the season. In winter the park closes early, in summer it stays open late"
    )
    assert short_answer_span("Who wrote it?", "  [1]  ") == ""


def test_is_deterministic() -> None:
    for question, answer, _ in CASES:
        assert short_answer_span(question, answer) == short_answer_span(question, answer)


def _tokens(text: str) -> list[str]:
    """SQuAD answer normalisation: lower case, no punctuation, no articles."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return re.sub(r"\b(a|an|the)\b", " ", text).split()


def _f1(prediction: str, golds: tuple[str, ...]) -> float:
    best = 0.0
    for gold in golds:
        pred, ref = _tokens(prediction), _tokens(gold)
        same = sum((Counter(pred) & Counter(ref)).values())
        if same:
            precision, recall = same / len(pred), same / len(ref)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def _answer_sentence(item_answers: tuple[str, ...], texts: list[str]) -> str | None:
    for text in texts:
        for sentence in split_sentences(text):
            if any(answer.lower() in sentence.text.lower() for answer in item_answers):
                return sentence.text
    return None


def test_short_span_beats_the_full_sentence_on_nq_open(datasets_dir: Path) -> None:
    # Synthetic answers: the gold passage's sentence that contains a gold answer, cited "[1]".
    # Measured on the first 200 such questions: mean token-F1 0.204 for the full sentence vs 0.432 for
    # the short span (400 questions: 0.195 vs 0.430).
    dataset = load_dataset(datasets_dir / "nq_open_oracle" / "nq-open-oracle.part1.jsonl")
    rows: list[tuple[str, str, tuple[str, ...]]] = []
    for item in dataset.items:
        gold = [p.text for p in item.passages if p.id in item.gold_passage_ids] or [p.text for p in item.passages]
        sentence = _answer_sentence(item.answers, gold)
        if sentence:
            rows.append((item.question, sentence, item.answers))
        if len(rows) == 200:
            break
    assert len(rows) == 200
    full = sum(_f1(sentence, answers) for _, sentence, answers in rows) / len(rows)
    short = sum(_f1(short_answer_span(q, f"{sentence} [1]"), answers) for q, sentence, answers in rows) / len(rows)
    assert short >= full + 0.15, (full, short)

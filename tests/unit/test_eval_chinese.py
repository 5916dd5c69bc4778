"""Chinese scoring and loading: CMRC 2018's EM/F1 convention (differential against its logic,
restated here as a test oracle), containment on Chinese answers, and the CMRC 2018 and NoMIRACL-zh
sets read with `--language zh`."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from anchorgate.eval.datasets import load_dataset
from anchorgate.eval.scoring.metrics import chinese_f1, contains_gold, exact_match, score_question, token_f1
from anchorgate.eval.scoring.text import chinese_segments

# --- Oracle: the logic of cmrc2018_evaluate.py (Cui et al. 2019), restated for punctuation-free ASCII
# runs split on spaces (the script uses NLTK's tokenizer there). ----------------------------------
SP_CHAR = ["-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=", "，", "。", "：", "？", "！", "“", "”", "；",
           "’", "《", "》", "……", "·", "、", "「", "」", "（", "）", "－", "～", "『", "』"]  # fmt: skip


def _ref_segments(text: str) -> list[str]:
    out, temp = [], ""
    for char in text.lower().strip():
        if char in SP_CHAR:
            continue
        if re.search("[\u4e00-\u9fa5]", char):
            out += temp.split()
            temp = ""
            out.append(char)
        else:
            temp += char
    return out + temp.split()


def _ref_lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            if a[i] == b[j]:
                table[i + 1][j + 1] = table[i][j] + 1
                best = max(best, table[i + 1][j + 1])
    return best


def _ref_f1(prediction: str, gold: str) -> float:
    pred, ref = _ref_segments(prediction), _ref_segments(gold)
    lcs = _ref_lcs(pred, ref)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(pred), lcs / len(ref)
    return 2 * precision * recall / (precision + recall)


def test_chinese_f1_agrees_with_the_cmrc_logic_on_random_text() -> None:
    rng = random.Random(11)
    vocabulary = ["曹", "雪", "芹", "红", "楼", "梦", "的", "作者", "是", "，", "。", "《", "》", " ", "ab", "2019",
                  "年"]  # fmt: skip
    for _ in range(2000):
        pred = "".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 8)))
        gold = "曹" + "".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 6)))
        if not _ref_segments(pred):
            continue
        assert chinese_f1(pred, gold) == pytest.approx(_ref_f1(pred, gold)), (pred, gold)


def test_hand_computed_chinese_em_and_f1() -> None:
    assert exact_match("《红楼梦》", "红楼梦") == 1.0 and exact_match("红楼", "红楼梦") == 0.0
    assert token_f1("作者曹雪芹", "曹雪芹") == pytest.approx(0.75)  # run of 3 over 5 and 3
    assert token_f1("曹雪芹写的", "红楼梦") == 0.0
    assert chinese_segments("1986年10月9日") == ["1986", "年", "10", "月", "9", "日"]
    assert token_f1("Paris, France", "Paris") == pytest.approx(2 / 3)  # English gold keeps SQuAD's rule


def test_a_chinese_gold_inside_a_short_chinese_answer_is_right() -> None:
    assert contains_gold("《红楼梦》的作者是曹雪芹。", "曹雪芹")
    assert not contains_gold("曹雪", "曹雪芹")
    score = score_question(answer="《红楼梦》的作者是曹雪芹[1]。", short_answer="", decision="STOP", golds=["曹雪芹"],
                           answerable=True, false_premise=False)  # fmt: skip
    assert score.correct and score.crag_score == 1 and score.f1 is not None and 0 < score.f1 < 1
    declined = score_question(answer="我不知道。", short_answer="", decision="STOP", golds=["曹雪芹"],
                              answerable=True, false_premise=False)  # fmt: skip
    assert declined.abstained and declined.crag_score == 0


def test_cmrc2018_loads_as_chinese_with_every_gold_span(datasets_dir: Path) -> None:
    items = load_dataset(datasets_dir / "cmrc2018", language="zh", limit=50).items
    assert len(items) == 50 and all(i.language == "zh" and i.answers and i.answerable for i in items)
    assert any(len(i.answers) > 1 for i in items)  # several gold spans per question become aliases
    assert load_dataset(datasets_dir / "cmrc2018", language="en", limit=5).items == ()


def test_nomiracl_zh_loads_relevant_and_non_relevant(datasets_dir: Path) -> None:
    items = load_dataset(datasets_dir / "nomiracl_zh", language="zh", limit=20).items
    assert len(items) == 20 and all(i.language == "zh" for i in items)
    assert {i.answerable for i in items} == {True, False}

"""Simplified vs Traditional: `script_of`, `to_script`, `match_script`, and the finalizer writing a
Chinese answer in its question's script while the citations' quotes stay the passage's own text."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.runtime import Runtime

from anchorgate.agents.finalizer import finalize
from anchorgate.graph.presets import load_preset
from anchorgate.tools.text.chinese_script import char_script, match_script, script_of, to_script


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("北京是中华人民共和国的首都，也是全国的政治中心。", "simplified"),
        ("臺北是中華民國的首都，也是全國的政治中心。", "traditional"),
        ("头发", "simplified"),
        ("頭髮", "traditional"),
        ("皇后", "neither"),  # 后 is written alike in both scripts
        ("中国", "simplified"),
        ("中文", "neither"),  # no character differs between the scripts
        ("What is Python 3?", "neither"),
        ("", "neither"),
        ("長江是中國最長的河流，长江与长城", "neither"),  # mixed: no script holds 80 % of the marked characters
        ("東京は日本の首都です", "neither"),  # Japanese: kanji follow neither script
    ],
)
def test_script_of(text: str, script: str) -> None:
    assert script_of(text) == script


def test_characters_both_scripts_write_mark_neither() -> None:
    assert [char_script(ch) for ch in "发髮后干台乾a"] == [
        "simplified", "traditional", "neither", "neither", "neither", "neither", "neither",
    ]  # fmt: skip


def test_to_script_is_phrase_aware_and_leaves_other_text_alone() -> None:
    assert to_script("头发和发展", "traditional") == "頭髮和發展"  # 发 is 髮 in 头发, 發 in 发展
    assert to_script("頭髮和發展", "simplified") == "头发和发展"
    assert (
        to_script("软件 Python 3.11 [1]。", "traditional") == "軟件 Python 3.11 [1]。"
    )  # the script, not the word 軟體
    assert to_script("长江", "neither") == "长江"


@pytest.mark.parametrize(
    ("answer", "question", "expected"),
    [
        ("長江是中國最長的河流[1]。", "中国最长的河流是哪条？", "长江是中国最长的河流[1]。"),
        ("长江是中国最长的河流[1]。", "中國最長的河流是哪條？", "長江是中國最長的河流[1]。"),
        ("答案是長江[1]。", "中国最长的河流是哪条？", "答案是长江[1]。"),  # one quoted name in the other script
        ("长江[1]。", "中国最长的河流是哪条？", "长江[1]。"),  # already in the question's script
        (
            "It is the 長江 [1].",
            "What is the longest river in China?",
            "It is the 長江 [1].",
        ),  # no Chinese script asked
        ("長江[1]。", "中文是什么？", "長江[1]。"),  # the question's script cannot be told
    ],
)
def test_match_script(answer: str, question: str, expected: str) -> None:
    assert match_script(answer, question) == expected


def _state(question: str, draft: str, passage: str, quote: str) -> dict[str, Any]:
    return {
        "question": question,
        "gate_decision": {"action": "STOP", "reason": "STOP_OK"},
        "draft": draft,
        "signals": {"claims": []},
        "context": [{"n": 1, "id": "a", "title": "t", "text": passage, "source": "s", "score": 1.0}],
        "draft_structure": {"quotes": [{"found_in": 1, "match": quote}]},
    }


@pytest.mark.parametrize(
    ("question", "draft", "passage", "answer"),
    [
        (
            "中国最长的河流是哪条？",
            "長江是中國最長的河流[1]。",
            "長江是中國最長的河流，全長6300公里。",
            "长江是中国最长的河流[1]。",
        ),
        (
            "中國最長的河流是哪條？",
            "长江是中国最长的河流[1]。",
            "长江是中国最长的河流，全长6300公里。",
            "長江是中國最長的河流[1]。",
        ),
    ],
)
async def test_the_answer_is_in_the_questions_script_and_the_quote_stays_verbatim(
    question: str, draft: str, passage: str, answer: str
) -> None:
    quote = draft.removesuffix("[1]。")
    update = await finalize(_state(question, draft, passage, quote), Runtime(context=load_preset("B")))  # type: ignore[arg-type]
    assert update["answer"] == answer
    assert update["short_answer"] == answer.removesuffix("[1]。")
    (citation,) = update["citations"]
    assert citation["verified"] and citation["quote"] == quote and citation["quote"] in passage
    assert update["telemetry"]["draft"] == draft  # the model's own draft is kept as written

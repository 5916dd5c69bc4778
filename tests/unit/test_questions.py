"""`validate_question`: empty, over-long and content-free questions are refused, real ones pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.cli import run
from anchorgate.eval.datasets.loader import load_dataset
from anchorgate.tools.errors import EX_USAGE, InvalidQuestionError
from anchorgate.tools.question.validation import question_words, validate_question


@pytest.mark.parametrize(
    "question",
    [
        "What is pass?",
        "Who wrote Hamlet?",
        "who was the man in you're so vain",
        "什么是生成器？",
        "Siapa presiden pertama Indonesia?",
        "What does in do?",  # a Python keyword is what the demo corpus is about
        "What does `is` do?",  # "is" counts when quoted
        "What is 'the'?",
        "What is __init__?",
        "What is 42?",
    ],
)
def test_real_questions_pass(question: str) -> None:
    assert validate_question(f"  {question}\n") == question


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("what is the of", "has only stopwords"),
        ("What is it?", "has only stopwords"),
        ("Apa itu?", "has only stopwords"),  # Indonesian stopwords count too
        ("what is is", "has only stopwords"),
        ("???", "has only punctuation"),
        ("... -- !", "has only punctuation"),
        ("___", "has only punctuation"),
        ("   ", "the question is empty"),
    ],
)
def test_content_free_questions_are_refused_with_a_message(question: str, message: str) -> None:
    with pytest.raises(InvalidQuestionError) as info:
        validate_question(question)
    assert message in info.value.one_line() and "\n" not in info.value.one_line()
    assert info.value.exit_code == EX_USAGE


def test_length_and_type_are_checked_before_content() -> None:
    with pytest.raises(InvalidQuestionError, match="the limit is 10"):
        validate_question("the of the of the of", max_chars=10)
    with pytest.raises(InvalidQuestionError, match="must be text, got int"):
        validate_question(5)


def test_content_words_keep_what_the_question_is_about() -> None:
    assert question_words("What does the pass statement do?") == ["pass", "statement"]
    assert question_words("Siapa presiden pertama Indonesia?") == ["presiden", "pertama", "indonesia"]
    assert question_words("what is the of") == []


def test_the_cli_prints_one_error_line_and_exits_with_the_question_code(capsys: pytest.CaptureFixture[str]) -> None:
    # InvalidQuestionError is a usage error (64), like an empty question; 65 is for bad dataset files
    assert run(["ask", "what is the of"]) == EX_USAGE == 64
    err = capsys.readouterr().err
    assert err.startswith("error: the question 'what is the of' has only stopwords") and err.count("\n") == 1


@pytest.mark.parametrize("dataset", ["nq_open_oracle", "clapnq", "indonlu_facqa", "falseqa", "halueval_qa", "nomiracl"])
def test_every_question_of_the_public_datasets_passes(datasets_dir: Path, dataset: str) -> None:
    # the check must never refuse a real question: short, lower-case, Indonesian, Chinese ones included
    refused = []
    for item in load_dataset(datasets_dir / dataset).items:
        try:
            validate_question(item.question, max_chars=100_000)
        except InvalidQuestionError as exc:
            refused.append(exc.one_line())
    assert refused == []

"""The quoted answer stage through the real parts: llama.cpp with the draft grammar, MiniLM, FAISS, BM25."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from anchorgate.api import ask, resolve_config
from anchorgate.eval.datasets import load_dataset
from anchorgate.tools.answer.citations import overlap_words
from anchorgate.tools.answer.quoted_draft import check_quotes, draft_grammar, parse_draft
from anchorgate.tools.answer.reader import quoted_messages
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.llm.chat_models import load_chat_model
from anchorgate.tools.services import register_services, services_for_passages
from tests.conftest import E2E_LLM

pytestmark = pytest.mark.e2e


def _ask_over(passages: list[Any], question: str, tmp_path: Path, **extra: Any) -> dict[str, Any]:
    extra = {"llm.model": E2E_LLM, **extra}
    config = resolve_config("A", extra)
    services_id = register_services(services_for_passages(list(passages), config))
    overrides = {"resources.services_id": services_id, "resources.checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    return ask(question, preset="A", overrides=overrides)


def test_the_grammar_holds_the_local_model_to_the_quoted_shape() -> None:
    model = load_chat_model(E2E_LLM, max_tokens=80)
    text = "Green tea is brewed from the leaves of Camellia sinensis. It is popular in Japan."
    context = [{"n": 1, "title": "Tea", "text": text}]
    documents = f"<documents>\n[1] Tea\n{text}\n</documents>"
    messages = quoted_messages(resolve_config("A"), documents, "What is green tea brewed from?", "answer_quoted_user")
    held = model.invoke(messages, max_tokens=80, grammar=draft_grammar(context))
    draft = check_quotes(parse_draft(str(held.content)), context)
    assert draft.status in {"quoted", "declined"}, held.content
    if draft.status == "quoted":  # the grammar only offers the passage's own sentences
        assert [(q.passage, q.status) for q in draft.quotes] == [(1, "verbatim")]
        assert draft.quotes[0].text in {sentence + "." for sentence in text.rstrip(".").split(". ")}
    bare = [SystemMessage("Answer the question."), HumanMessage(f"{documents}\n\nWhat is green tea brewed from?")]
    free = model.invoke(bare, max_tokens=40)
    assert parse_draft(str(free.content)).status == "malformed", "without instructions or grammar: free text"


def test_a_answers_a_hotpotqa_question_with_a_verified_quote_and_a_short_answer(
    datasets_dir: Path, tmp_path: Path
) -> None:
    item = next(i for i in load_dataset(datasets_dir / "hotpotqa_sample", limit=10).items if "Koolauloa" in i.question)
    result = _ask_over(list(item.passages), item.question, tmp_path)
    structure = result["telemetry"]["draft_structure"]
    assert structure["status"] in {"quoted", "declined", "malformed"}
    assert result["telemetry"]["calls"][0]["stage"] == "generate"
    if result["decision"] == "STOP":
        assert structure["status"] == "quoted" and structure["verified"]
        assert len(result["short_answer"].split()) <= 6
        # the verified sentence is the citation's quote, unless the answer was re-cited to the
        # passage that holds it (the model quoted one passage and answered from another)
        assert any(c.get("verified") for c in result["citations"]) or result["telemetry"]["citation_repairs"]
    else:
        assert result["reason"].startswith("ABSTAIN_")


def test_the_answer_span_confidence_is_read_from_the_real_model_s_logprobs(tmp_path: Path) -> None:
    """The answer-span confidence (risk-coverage ranks answers by it) comes from the local model's own
    logprobs: a number in [0, 1] on the gate's log, never the no-logprobs fallback."""
    passages = [
        Passage("tea", "Green tea", "Green tea is brewed from the leaves of Camellia sinensis."),
        Passage("coffee", "Coffee", "Coffee is brewed from roasted coffee beans. Brazil grows the most coffee."),
    ]
    extra = {"llm.model": E2E_LLM, "judge.policy": "never", "budget.max_output_tokens": 64}
    config = resolve_config("A", extra)
    services_id = register_services(services_for_passages(passages, config))
    overrides = {"resources.services_id": services_id, "resources.checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    result = ask("Which country grows the most coffee?", preset="A", overrides=overrides)
    signals = result["telemetry"]["gate"][0]["signals"]
    assert not signals["idk"], result["answer"]
    assert 0.0 <= signals["answer_confidence"] <= 1.0 and signals["uncertainty_off"] is None


def test_an_anchor_retry_that_finds_nothing_new_keeps_the_readers_draft(tmp_path: Path) -> None:
    """Through MiniLM, FAISS, BM25 and llama.cpp: "Zanzibar" is in no passage, so A retries for the
    anchor; with one passage in the corpus the retry cannot change the context, and the reader is
    not asked the same prompt twice (agents/generator.py)."""
    text = "Coffee is brewed from roasted coffee beans. Brazil grows the most coffee."
    question = "Which country grows the most coffee, says the Zanzibar survey?"
    result = _ask_over([Passage("coffee", "Coffee", text)], question, tmp_path)
    gate = result["telemetry"]["gate"]
    assert gate[0]["reason"] == "RETRIEVE_ANCHOR_ONE_SHOT" and result["telemetry"]["passes"] == 2
    assert "Zanzibar" in gate[1]["signals"]["missing_anchors"]
    assert result["telemetry"]["drafts_reused"] == 1
    assert result["tokens"]["by_stage"]["generate"]["calls"] == 1
    first, second = gate[0]["signals"], gate[1]["signals"]
    assert all(first[key] == second[key] for key in ("overlap", "idk", "draft_status", "abstain_p"))


def test_a_quote_of_a_long_sentence_is_checked_against_the_whole_sentence(tmp_path: Path) -> None:
    """The grammar stops a quote at 160 characters; the answer here comes after that point in its
    sentence. A quote of that sentence's head is matched to the whole sentence, so the answer
    counts as grounded in it."""
    sentence = (
        "After a long series of bilateral negotiations that began in the spring and continued through the summer "
        "in several capitals, the two governments agreed to set import quotas on exactly ten categories of textiles."
    )
    passages = [Passage("quotas", "Textile quotas", sentence)]
    result = _ask_over(passages, "How many categories of textiles got import quotas?", tmp_path,
                       **{"answer.style": "quoted", "judge.policy": "never"})  # fmt: skip
    structure = result["telemetry"]["draft_structure"]
    assert structure is not None and structure["status"] in {"quoted", "declined", "malformed"}
    if structure["status"] == "quoted":
        quote = structure["quotes"][0]
        assert quote["status"] == "verbatim" and len(quote["text"]) <= 160
        assert quote["match"] == sentence  # the head the grammar allowed, matched to its whole sentence
        words = overlap_words(structure["answer"])
        if "ten" in words:  # a word past the cut counts as grounded
            in_head = len(words & overlap_words(quote["text"])) / len(words)
            assert structure["grounding"] > in_head

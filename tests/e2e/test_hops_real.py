"""A question of nested descriptions answered hop by hop (`gate.follow_hops`) through the real parts:
all-MiniLM-L6-v2, FAISS, BM25 and the packaged 0.5B reader on llama.cpp.

The passages are written here (a made-up novel and its author, beside unrelated ones), so hop 1 has
one answer the reader can copy. Whatever the small reader does at hop 2, the run never ends on the
bridge entity: it answers the last hop, or abstains naming why; the final answer's asked kind is read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.api import ask, resolve_config
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.services import register_services, services_for_passages
from tests.conftest import E2E_LLM

pytestmark = pytest.mark.e2e

QUESTION = "Where was the author of Dead Ernest born?"
PASSAGES = [
    Passage("ernest", "Dead Ernest", "Dead Ernest is a novel written by Mara Quill and published in 1931."),
    Passage("quill", "Mara Quill", "Mara Quill was born in Tallinn. She wrote novels about the sea."),
    Passage("owls", "Owls", "Owls are nocturnal birds of prey. Owls hunt mice at night."),
    Passage("tides", "Tides", "Tides are the rise and fall of sea levels caused by the Moon."),
]
HOP_REASONS = {"ABSTAIN_INCOMPLETE_HOPS", "ABSTAIN_WRONG_KIND_ANSWER", "ABSTAIN_MODEL_IDK", "ABSTAIN_LOW_SUPPORT"}


def test_the_hops_are_followed_and_the_bridge_is_never_the_answer(tmp_path: Path) -> None:
    extra = {"llm.model": E2E_LLM, "gate.follow_hops": True}
    services_id = register_services(services_for_passages(PASSAGES, resolve_config("A", extra)))
    overrides = {"resources.services_id": services_id, "resources.checkpoint_db": str(tmp_path / "c.sqlite"), **extra}
    result = ask(QUESTION, preset="A", overrides=overrides)

    assert result["telemetry"]["hop_plan"] == "multi_hop_descriptions"
    first = result["hops"][0]
    assert first["question"] == "Who is the author of Dead Ernest?"
    assert "mara quill" in first["answer"].lower(), first  # the one passage that names the author
    reasons = [g["reason"] for g in result["telemetry"]["gate"]]
    assert reasons[0] == "RETRIEVE_NEXT_HOP", reasons
    if result["decision"] == "STOP":
        assert "tallinn" in result["answer"].lower(), result["answer"]
        assert result["hops"][-1]["question"] == "Where was Mara Quill born?"
    else:
        assert result["reason"] in HOP_REASONS and result["answer"] == "I don't know", result["reason"]
    assert "mara quill" not in result["short_answer"].lower()
    last = result["telemetry"]["gate"][-1]["signals"]
    if last.get("draft_status") == "quoted":
        assert last["answer_wrong_kind"] is not None  # read on every quoted answer while hops are followed

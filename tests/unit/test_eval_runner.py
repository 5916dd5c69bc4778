"""The evaluation harness end to end with a scripted model and bag-of-words embeddings.

Covers resumability (only missing questions are asked again), the on-disk LLM cache (a re-run
makes no model call and gives identical numbers), refusal of a folder from another run, and the
report files (metrics.json, report.md with the met/not-met table, PNG plots).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from anchorgate.eval.cli import _summary_lines
from anchorgate.eval.corpora import ServicesFactory
from anchorgate.eval.errors import EvalDataError, EvalError, EvalInputError
from anchorgate.eval.runner import run_eval
from anchorgate.eval.store import read_records
from anchorgate.graph.config import Config
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.services import Services
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel

OWLS = {"id": "owls", "title": "Owls", "text": "Owls are nocturnal birds of prey. Owls hunt mice at night."}
TEA = {"id": "tea", "title": "Tea",
       "text": "Green tea is brewed from the leaves of Camellia sinensis in China and Japan."}  # fmt: skip
AO = {"id": "ao2017", "title": "2017 Australian Open",
      "text": "Roger Federer won the 2017 Australian Open men's singles."}  # fmt: skip
ITEMS: list[dict[str, Any]] = [
    {"id": "q1", "question": "What do owls hunt at night?", "answers": ["mice"], "passages": [OWLS],
     "gold_passage_ids": ["owls"]},
    {"id": "q2", "question": "What is green tea brewed from?", "answers": ["leaves of Camellia sinensis"],
     "passages": [TEA]},
    {"id": "q3", "question": "Who won the 2017 Australian Open men's singles?", "answers": ["Roger Federer"],
     "passages": [AO]},
    {"id": "q4", "question": "What colour is the hat that owls wear?", "answers": [], "answerable": False,
     "passages": [OWLS]},
    {"id": "q5", "question": "Where is green tea grown?", "answers": ["China and Japan"], "passages": [TEA]},
]  # fmt: skip
REPLIES = {
    "What do owls hunt at night?": "Owls hunt mice at night [1].",
    "What is green tea brewed from?": "Green tea is brewed from the leaves of Camellia sinensis [1].",
    "Who won the 2017 Australian Open men's singles?": "Roger Federer won the 2017 Australian Open [1].",
    "What colour is the hat that owls wear?": "I don't know.",
    "Where is green tea grown?": "Green tea is grown on the planet Mars by robots [1].",
}


class CountingModel:
    """A scripted chat model whose replies depend on the question in the prompt; counts calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.model = ScriptedChatModel(script=self.reply, report_usage=True)

    def reply(self, prompt: str) -> str:
        self.calls += 1
        if "Verdict" in prompt:
            return "SUPPORTED"
        questions = re.findall(r"Question: (.+)", prompt)
        return REPLIES.get(questions[-1].strip() if questions else "", "I don't know.")


def _factory(model: CountingModel, root: Path) -> ServicesFactory:
    embeddings = BagOfWordsEmbeddings(128)

    def build(passages: Sequence[Passage], config: Config, name: str) -> Services:
        index = build_or_load(list(passages), embeddings, "bow128", ChunkingSettings(120, 20), root, progress=False)
        return Services(index, embeddings, model.model, name)

    return build


def _dataset(tmp_path: Path, items: list[dict[str, Any]] = ITEMS) -> Path:
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def _run(tmp_path: Path, model: CountingModel, out: str = "out", **kwargs: Any) -> dict[str, Any]:
    options: dict[str, Any] = {"presets": ["baseline", "A", "peer"], "progress": False,
                               "llm_cache": str(tmp_path / "llm.sqlite"), "out_dir": tmp_path / out}  # fmt: skip
    options.update(kwargs)
    return run_eval(_dataset(tmp_path), services_factory=_factory(model, tmp_path / "idx"), **options)


def _metrics(tmp_path: Path, out: str = "out") -> dict[str, Any]:
    return json.loads((tmp_path / out / "metrics.json").read_text(encoding="utf-8"))


def test_records_carry_metrics_and_scores_are_right(tmp_path: Path) -> None:
    _run(tmp_path, CountingModel())
    records = read_records(tmp_path / "out" / "baseline.jsonl")
    assert set(records) == {"q1", "q2", "q3", "q4", "q5"}
    q1, q4, q5 = records["q1"], records["q4"], records["q5"]
    assert (q1["decision"], q1["crag_score"], q1["scored_by"]) == ("STOP", 1, "gold") and 0 < q1["f1"] < 1
    assert "overlap" not in q1 and "overlap_graph" in q1  # the product's support figure: kept, not scored
    assert records["q3"]["em"] == 1.0 and records["q3"]["short_answer"] == "Roger Federer"
    assert q1["gold_in_context"] is True and records["q2"]["gold_in_context"] is None
    assert q4["abstained"] and q4["crag_score"] == 0 and q4["f1"] is None
    assert q5["wrong_on_answerable"] and q5["crag_score"] == -1
    assert q1["tokens"]["total"] > 0 and "generate" in q1["tokens"]["by_stage"]
    peer = read_records(tmp_path / "out" / "peer.jsonl")["q2"]
    assert peer["crag_score"] == 1 and peer["tokens"]["total"] > 0
    assert peer["telemetry"]["calls"][0]["source"] == "model"


def test_resume_asks_only_the_missing_questions(tmp_path: Path) -> None:
    model = CountingModel()
    _run(tmp_path, model, presets=["baseline"], limit=2, llm_cache="")
    first = model.calls
    assert first == 2 and len(read_records(tmp_path / "out" / "baseline.jsonl")) == 2
    summary = _run(tmp_path, model, presets=["baseline"], limit=4, llm_cache="")
    assert model.calls - first == 2 and summary["new_records"] == {"baseline": 2}
    assert len(read_records(tmp_path / "out" / "baseline.jsonl")) == 4


def test_a_cut_off_last_line_is_dropped_and_recomputed(tmp_path: Path) -> None:
    model = CountingModel()
    _run(tmp_path, model, presets=["baseline"], limit=3, llm_cache="")
    path = tmp_path / "out" / "baseline.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 1] + b'{"id": "q3", "pred')  # killed mid-write
    calls = model.calls
    _run(tmp_path, model, presets=["baseline"], limit=3, llm_cache="")
    assert model.calls - calls == 1
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["q1", "q2", "q3"]


def test_a_resumed_run_scores_its_stored_records_again_without_a_model_call(tmp_path: Path) -> None:
    model = CountingModel()
    _run(tmp_path, model, presets=["baseline"], llm_cache="")
    path = tmp_path / "out" / "baseline.jsonl"
    records = read_records(path)
    records["q1"].update(correct=False, crag_score=-1)  # as an earlier scoring rule had it
    path.write_text("".join(json.dumps(r) + "\n" for r in records.values()), encoding="utf-8")
    calls = model.calls
    summary = _run(tmp_path, model, presets=["baseline"], llm_cache="")
    assert model.calls == calls and summary["rescored"] == {"baseline": 1}
    assert read_records(path)["q1"]["crag_score"] == 1
    assert _metrics(tmp_path)["presets"]["baseline"]["crag_counts"]["correct"] == 3  # q1, q2, q3


def test_cached_rerun_makes_no_model_call_and_gives_identical_metrics(tmp_path: Path) -> None:
    model = CountingModel()
    first = _run(tmp_path, model)
    assert model.calls > 0 and first["llm_cache"]["writes"] > 0
    calls = model.calls
    second = _run(tmp_path, model, out="again")
    assert model.calls == calls and second["llm_cache"]["misses"] == 0
    a, b = _metrics(tmp_path), _metrics(tmp_path, "again")
    for preset in ("baseline", "A", "peer"):
        for key in ("f1_mean", "em_mean", "right", "wrong", "crag_score_mean", "tokens_mean", "tokens_by_stage_mean",
                    "idk_count", "wrong_on_answerable", "stop_reasons"):  # fmt: skip
            assert a["presets"][preset][key] == b["presets"][preset][key], (preset, key)
        assert b["presets"][preset]["cached_call_share"] == 1.0 and b["presets"][preset]["llm_calls"] > 0
    assert "answered from the on-disk LLM cache" in (tmp_path / "again" / "report.md").read_text(encoding="utf-8")


def test_different_settings_are_refused_unless_forced(tmp_path: Path) -> None:
    model = CountingModel()
    _run(tmp_path, model, presets=["baseline"], limit=1)
    with pytest.raises(EvalError, match="different settings"):
        _run(tmp_path, model, presets=["baseline"], limit=1, overrides={"retrieval.k": 4})
    summary = _run(tmp_path, model, presets=["baseline"], limit=1, overrides={"retrieval.k": 4}, force=True)
    assert summary["new_records"] == {"baseline": 1}
    assert json.loads((tmp_path / "out" / "run.json").read_text())["overrides"] == {"retrieval.k": 4}


def test_report_files_plots_and_acceptance_table(tmp_path: Path) -> None:
    summary = _run(tmp_path, CountingModel())
    out = tmp_path / "out"
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| preset | check | value | baseline | ratio / Δ | target | result |" in report
    assert re.search(r"\| A \| tokens/Q \|.*\| (met|not met) \|", report)
    assert re.search(r"\| peer \| wrong-on-answerable \|.*\| (met|not met) \|", report)
    assert "## Five worst questions per preset" in report and "q5" in report
    for name in ("pareto.png", "bar_f1_mean.png", "bar_tokens_mean.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    metrics = _metrics(tmp_path)
    assert set(metrics["presets"]) == {"baseline", "A", "peer"} and metrics["presets"]["baseline"]["questions"] == 5
    assert [c["check"] for c in metrics["acceptance"]["A"]][:3] == ["tokens/Q", "F1", "wrong-on-answerable"]
    assert [(e["a"], e["b"]) for e in metrics["paired"]] == [("baseline", "A"), ("baseline", "peer"), ("A", "peer")]
    assert "## Paired differences (b − a, 95% interval)" in report and "too few questions" in report
    assert (out / "risk_coverage.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(summary["files"]["plots"]) >= 3


def test_bad_dataset_is_one_data_error(tmp_path: Path) -> None:
    bad = [ITEMS[0], ITEMS[0]]
    with pytest.raises(EvalDataError, match="duplicate") as info:
        run_eval(_dataset(tmp_path, bad), presets=["baseline"], out_dir=tmp_path / "o", progress=False)
    assert info.value.exit_code == 65 and "toy.jsonl" in info.value.one_line()


def test_limit_larger_than_the_set_runs_the_set(tmp_path: Path) -> None:
    summary = _run(tmp_path, CountingModel(), presets=["baseline"], limit=1000)
    assert summary["questions"] == 5 and summary["new_records"] == {"baseline": 5}


# --- parts of the harness -------------------------------------------------------------------------


def test_llm_cache_round_trip_keeps_usage_and_logprobs(tmp_path: Path) -> None:
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration

    from anchorgate.eval.llm_cache import SqliteJsonCache

    cache = SqliteJsonCache(tmp_path / "c.sqlite", namespace="m1")
    usage = {"input_tokens": 120, "output_tokens": 7, "total_tokens": 127}
    reply = AIMessage(content="Paris [1].", usage_metadata=usage,
                      response_metadata={"finish_reason": "stop", "logprobs": [[-0.1, -2.5]]})  # fmt: skip
    cache.update("prompt", "llm", [ChatGeneration(message=reply)])
    assert cache.lookup("prompt", "other-llm") is None
    assert SqliteJsonCache(tmp_path / "c.sqlite", namespace="m2").lookup("prompt", "llm") is None
    hit = SqliteJsonCache(tmp_path / "c.sqlite", namespace="m1").lookup("prompt", "llm")
    assert hit is not None and isinstance(hit[0], ChatGeneration)
    message = hit[0].message
    assert message.content == "Paris [1]." and message.usage_metadata == usage  # type: ignore[attr-defined]
    assert message.response_metadata["logprobs"] == [[-0.1, -2.5]]
    assert cache.stats() == {"hits": 0, "misses": 1, "writes": 1} and len(cache) == 1


def test_cached_model_reports_the_original_usage(tmp_path: Path) -> None:
    from langchain_core.messages import HumanMessage

    from anchorgate.eval.llm_cache import SqliteJsonCache

    counter = CountingModel()
    cached = counter.model.model_copy(update={"cache": SqliteJsonCache(tmp_path / "c.sqlite")})
    first = cached.invoke([HumanMessage("Question: What do owls hunt at night?")], max_tokens=50)
    second = cached.invoke([HumanMessage("Question: What do owls hunt at night?")], max_tokens=50)
    assert counter.calls == 1 and second.content == first.content
    assert second.usage_metadata["input_tokens"] == first.usage_metadata["input_tokens"] > 0  # type: ignore[index]
    counter_calls = counter.calls
    cached.invoke([HumanMessage("Question: What do owls hunt at night?")], max_tokens=51)  # other parameters
    assert counter.calls == counter_calls + 1


async def test_peer_counts_tokens_with_tiktoken_when_the_model_reports_none(tmp_path: Path) -> None:
    from anchorgate.eval.peer import ask_peer
    from anchorgate.tools.text.tokens import count_tokens

    model = ScriptedChatModel(script=["Owls hunt mice [1]."], report_usage=False)
    embeddings = BagOfWordsEmbeddings(64)
    passages = [Passage(**OWLS), Passage(**TEA)]
    index = build_or_load(passages, embeddings, "bow64", ChunkingSettings(120, 20), tmp_path / "i", progress=False)
    answer = await ask_peer("What do owls hunt?", Services(index, embeddings, model, "toy"), Config())
    call = answer["telemetry"]["calls"][0]
    assert call["source"] == "tiktoken" and call["completion"] == count_tokens("Owls hunt mice [1].")
    assert call["prompt"] == count_tokens(model.prompts[0]) and answer["tokens"]["total"] == sum(
        (call["prompt"], call["completion"]))  # fmt: skip
    assert "<documents>" in model.prompts[0] and "I don't know" in model.prompts[0]
    assert answer["context"][0]["title"] == "Owls" and answer["decision"] == "STOP"


def test_results_without_run_json_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "baseline.jsonl").write_text('{"id": "q1"}\n', encoding="utf-8")
    with pytest.raises(EvalError, match="no run.json"):
        _run(tmp_path, CountingModel(), presets=["baseline"], limit=1)


def test_judge_accuracy_on_halueval(tmp_path: Path) -> None:
    from anchorgate.eval.judge_check import judge_accuracy

    path = tmp_path / "qa_toy_data.json"
    rows = [{"knowledge": "Owls hunt mice at night.", "question": "What do owls hunt?", "right_answer": "Mice",
             "hallucinated_answer": "Bamboo"},
            {"knowledge": "Tea comes from Camellia sinensis.", "question": "Where does tea come from?",
             "right_answer": "Camellia sinensis", "hallucinated_answer": "Oak trees"}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def verdict(prompt: str) -> str:
        if "Answer: Bamboo" in prompt:
            return "UNSUPPORTED"
        if "Answer: Oak trees" in prompt:
            return "SUPPORTED" if "one word only" in prompt else "hmm"
        return "SUPPORTED"

    model = ScriptedChatModel(script=verdict, report_usage=True)
    # grounding check off: every answer goes to the LLM judge (its re-ask loop is what this tests)
    result = judge_accuracy(path, None, "local", overrides={"judge.grounding_min": 0.0}, model=model, llm_cache="")
    assert result["items"] == 2 and result["accept_right_rate"] == 1.0
    assert result["reject_hallucinated_rate"] == 0.5 and result["accuracy"] == 0.75
    assert result["labels"]["hallucinated"] == {"UNSUPPORTED": 1, "SUPPORTED": 1}
    assert len(model.prompts) == 5 and result["tokens"]["prompt"] > 0  # one re-ask for the unparseable reply


def test_yes_no_judge_accuracy_uses_the_yes_probability(tmp_path: Path) -> None:
    from anchorgate.eval.judge_check import judge_accuracy

    path = tmp_path / "qa_toy_data.json"
    row = {"knowledge": "Owls hunt mice at night.", "question": "What do owls hunt?", "right_answer": "Mice",
           "hallucinated_answer": "Bamboo"}  # fmt: skip
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")

    def candidates(prompt: str) -> list[tuple[str, float]]:
        p_yes = 0.35 if "Answer: Mice" in prompt else 0.1  # greedy says NO to both
        return [("NO", math.log(1 - p_yes)), ("YES", math.log(p_yes))]

    model = ScriptedChatModel(script=lambda prompt: "NO", first_tokens=candidates)
    overrides = {"judge.style": "yes_no", "judge.grounding_min": 0.0}  # the LLM judge alone
    result = judge_accuracy(path, None, "local", overrides=overrides, model=model, llm_cache="")
    assert result["accuracy"] == 1.0 and result["labels"]["right"] == {"SUPPORTED": 1}
    assert result["confidence_auc"] == 1.0 and result["per_item"][0]["right_confidence"] == 0.35
    assert all("YES or NO" in p for p in model.prompts) and len(model.prompts) == 2


def test_cli_bad_dataset_is_one_line_exit_65(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from anchorgate.eval.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "answers": ["x"]}\n', encoding="utf-8")
    assert main(["eval", "--dataset", str(bad), "--format", "jsonl", "--out", str(tmp_path / "o")]) == 65
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "bad.jsonl" in err and "line 1" in err and "question" in err
    assert len(err.splitlines()) == 1
    assert main(["eval", "--dataset", str(bad), "--format", "nosuch", "--out", str(tmp_path / "o")]) == 65
    assert "unknown dataset format" in capsys.readouterr().err
    dup = _dataset(tmp_path, [ITEMS[0], ITEMS[1], ITEMS[0]])
    assert main(["eval", "--dataset", str(dup), "--out", str(tmp_path / "o")]) == 65
    err = capsys.readouterr().err
    assert "duplicate" in err and "'q1'" in err and "line 3" in err
    assert main(["eval", "--dataset", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]) == 66
    # the dataset is validated first: a bad one is 65 whatever else is wrong; a good one meets the preset check
    assert main(["eval", "--dataset", str(bad), "--presets", "baseline,Z", "--out", str(tmp_path / "o")]) == 65
    good = _dataset(tmp_path)
    assert main(["eval", "--dataset", str(good), "--presets", "baseline,Z", "--out", str(tmp_path / "o")]) == 78
    assert "unknown preset(s) 'Z'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # nothing was written for a run that could not start


def test_cli_runs_and_prints_a_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import anchorgate.eval.runner as runner
    from anchorgate.eval.cli import main

    monkeypatch.setattr(runner, "default_services_factory", _factory(CountingModel(), tmp_path / "idx"))
    argv = ["eval", "--dataset", str(_dataset(tmp_path)), "--presets", "baseline,peer", "--limit", "99",
            "--out", str(tmp_path / "o"), "--no-progress", "--llm-cache", str(tmp_path / "c.sqlite"),
            "--set", "retrieval.k=4"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "5 questions" in out and "baseline: right" in out and "peer: right" in out and "report.md" in out
    assert main([*argv[:-2], "--set", "retrieval.k=5"]) == 78  # another run's folder
    assert "different settings" in capsys.readouterr().err


def test_a_pooled_corpus_is_indexed_once_and_items_without_passages_share_the_configured_corpus(
    tmp_path: Path,
) -> None:
    model = CountingModel()
    build = _factory(model, tmp_path / "idx")
    seen: list[tuple[str, int]] = []

    def counting(passages: Sequence[Passage], config: Config, name: str) -> Services:
        seen.append((name, len(passages)))
        return build(passages or [Passage(**OWLS)], config, name)

    corpus = tmp_path / "pool_corpus.jsonl"
    corpus.write_text("".join(json.dumps(p) + "\n" for p in (OWLS, TEA, AO)), encoding="utf-8")
    bare = [{k: v for k, v in item.items() if k not in {"passages", "gold_passage_ids"}} for item in ITEMS]
    common = {"presets": ["baseline", "peer"], "progress": False, "llm_cache": "", "services_factory": counting}
    run_eval(_dataset(tmp_path, bare), corpus_path=corpus, out_dir=tmp_path / "pooled", **common)
    assert seen == [("toy", 3)]  # one index over the pool for 5 questions x 2 presets
    assert len(read_records(tmp_path / "pooled" / "peer.jsonl")) == 5
    seen.clear()
    run_eval(_dataset(tmp_path, bare), out_dir=tmp_path / "bare", **common)
    assert seen == [("pydoc", 0)]  # no passages, no pool: the configured corpus, built once


def test_the_judge_check_rejects_an_ungrounded_answer_without_a_call(tmp_path: Path) -> None:
    from anchorgate.eval.judge_check import judge_accuracy

    path = tmp_path / "qa_toy_data.json"
    row = {"knowledge": "Owls hunt mice at night.", "question": "What do owls hunt?", "right_answer": "Mice",
           "hallucinated_answer": "Bamboo shoots"}  # fmt: skip
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    model = ScriptedChatModel(script=lambda prompt: "SUPPORTED", report_usage=True)
    result = judge_accuracy(path, None, "local", model=model, llm_cache="")  # the check is on by default
    item = result["per_item"][0]
    assert (item["right"], item["hallucinated"]) == ("SUPPORTED", "UNSUPPORTED") and result["accuracy"] == 1.0
    assert (item["right_grounding"], item["hallucinated_grounding"]) == (1.0, 0.0)
    assert len(model.prompts) == 1 and "Answer: Mice" in model.prompts[0]  # the ungrounded answer cost no call
    off = judge_accuracy(path, None, "local", overrides={"judge.grounding_min": 0.0},
                         model=ScriptedChatModel(script=lambda p: "SUPPORTED"), llm_cache="")  # fmt: skip
    assert off["per_item"][0]["hallucinated"] == "SUPPORTED"  # 0 leaves every answer to the LLM


def _keys(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "keys.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


KEYS = [
    {"id": "q1", "type": "short", "answers": ["mice"], "min_items": 1},
    {"id": "q2", "type": "long", "answers": ["leaves", "Camellia|tea plant"], "min_items": 2},
    {"id": "q3", "type": "short", "answers": ["Federer"], "min_items": 1},
    {"id": "q5", "type": "list", "answers": ["China", "Japan"], "min_items": 2},
]


def test_answer_keys_decide_correctness_and_are_recorded(tmp_path: Path) -> None:
    summary = _run(tmp_path, CountingModel(), presets=["baseline"], answer_keys=_keys(tmp_path, KEYS))
    records = read_records(tmp_path / "out" / "baseline.jsonl")
    assert {q: records[q]["scored_by"] for q in records} == {
        "q1": "answer_key", "q2": "answer_key", "q3": "answer_key", "q4": "none", "q5": "answer_key"}  # fmt: skip
    assert [records[q]["crag_score"] for q in ("q1", "q2", "q3", "q4", "q5")] == [1, 1, 1, 0, -1]  # Mars is wrong
    metrics = _metrics(tmp_path)
    assert metrics["scoring"]["answer_keys"] == str(tmp_path / "keys.jsonl") and summary["questions"] == 5
    assert (metrics["presets"]["baseline"]["right"], metrics["presets"]["baseline"]["wrong"]) == (3, 1)


def test_keys_that_do_not_fit_the_dataset_stop_the_run_before_any_question(tmp_path: Path) -> None:
    model = CountingModel()
    with pytest.raises(EvalDataError, match=r"no answer key for 1 question\(s\) of the dataset: q5") as info:
        _run(tmp_path, model, presets=["baseline"], answer_keys=_keys(tmp_path, KEYS[:3]))
    assert info.value.exit_code == 65 and model.calls == 0
    stray = [*KEYS, {"id": "q9", "type": "short", "answers": ["x"]}]
    with pytest.raises(EvalDataError, match=r"are not questions of the dataset: q9"):
        _run(tmp_path, model, presets=["baseline"], answer_keys=_keys(tmp_path, stray))
    with pytest.raises(EvalInputError, match="no such file") as missing:
        _run(tmp_path, model, presets=["baseline"], answer_keys=tmp_path / "nope.jsonl")
    assert missing.value.exit_code == 66 and model.calls == 0


def test_a_record_that_cannot_be_read_is_counted_and_named_never_dropped_silently(tmp_path: Path) -> None:
    path = _dataset(tmp_path, ITEMS[:2])
    path.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    model = CountingModel()
    summary = run_eval(path, presets=["baseline"], out_dir=tmp_path / "out", progress=False, llm_cache="",
                       services_factory=_factory(model, tmp_path / "idx"))  # fmt: skip
    assert summary["questions"] == 2 and [e["where"] for e in summary["data_issues"]["skipped"]] == [
        f"{path}, line 3"]  # fmt: skip
    assert _metrics(tmp_path)["data_issues"]["skipped"][0]["reason"].startswith("invalid JSON")
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## Dataset records skipped or repaired" in report and "1 record(s) skipped" in report
    printed = _summary_lines(summary)
    assert "warning: 1 dataset record(s) skipped (not asked), the first at" in printed and "line 3" in printed
    unreadable = r"1 record\(s\) of the dataset cannot be read, the first at .*line 3"
    with pytest.raises(EvalDataError, match=unreadable) as info:
        run_eval(path, presets=["baseline"], out_dir=tmp_path / "strict", progress=False, llm_cache="",
                 services_factory=_factory(model, tmp_path / "idx"), strict=True)  # fmt: skip
    assert info.value.exit_code == 65 and not (tmp_path / "strict").exists()

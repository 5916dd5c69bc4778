#!/usr/bin/env bash
# The evaluation runs reported in docs/benchmark-log.md ("Evaluation harness" section), in the order run.
# Every run is resumable and its LLM replies are cached, so re-running finished runs takes seconds.
# These are the 0.5B runs (then `local`, now `local-0.5b`) of issues 5–11; their folders record the
# code of that time. To repeat them on today's code, give a new folder: bash bench/eval_suite.sh runs/eval_0p5b
# Issue 12's runs on the 1.5B default: bench/eval_suite_1p5b.sh.
# Usage: bash bench/eval_suite.sh [OUT_ROOT]   (default bench/results/eval)
set -euo pipefail
cd "$(dirname "$0")/.."
AG=.venv/bin/anchorgate
DATA=${ANCHORGATE_DATASETS:-../shared/datasets}
OUT=${1:-bench/results/eval}
PRESETS=baseline,A,B,peer

$AG eval --llm local-0.5b --dataset "$DATA/crag_sample" --presets $PRESETS --out "$OUT/crag_sample"
$AG eval --llm local-0.5b --dataset "$DATA/clapnq" --limit 80 --presets $PRESETS --out "$OUT/clapnq"  # 40 answerable + 40 unanswerable
$AG eval --llm local-0.5b --dataset "$DATA/hotpotqa_sample" --limit 50 --presets $PRESETS --out "$OUT/hotpotqa"  # pooled 994 passages
$AG eval --llm local-0.5b --dataset "$DATA/nomiracl" --language en --limit 60 --presets $PRESETS --out "$OUT/nomiracl_en"  # 30 + 30
$AG eval --llm local-0.5b --dataset "$DATA/nomiracl" --language id --limit 60 --presets $PRESETS --out "$OUT/nomiracl_id"  # 30 + 30
$AG eval --llm local-0.5b --dataset "$DATA/nq_open_oracle" --limit 50 --presets $PRESETS --out "$OUT/nq_open_oracle"  # pooled gold passages
# Preset C (A + pairwise LLM reranker, ~2x A's time) where time allowed: the three smaller sets.
$AG eval --llm local-0.5b --dataset "$DATA/crag_sample" --presets C --out "$OUT/crag_sample"
$AG eval --llm local-0.5b --dataset "$DATA/hotpotqa_sample" --limit 50 --presets C --out "$OUT/hotpotqa"
$AG eval --llm local-0.5b --dataset "$DATA/clapnq" --limit 80 --presets C --out "$OUT/clapnq"
$AG eval --llm local-0.5b --dataset "$DATA/halueval_qa" --judge-check --limit 100 --out "$OUT/halueval_judge_100_verdict"
$AG eval --llm local-0.5b --dataset "$DATA/halueval_qa" --judge-check --limit 100 --set judge.style=yes_no \
    --out "$OUT/halueval_judge_100_yes_no"  # preset B's judge

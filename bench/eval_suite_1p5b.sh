#!/usr/bin/env bash
# Issue 12's re-measurement on the default model (Qwen2.5-Coder-1.5B, `--llm local`), as run on
# 2026-11-24, sized to about 3 hours on 2 busy cores (the 1.5B takes ~2x the 0.5B's time per
# prompt). Which rows of each set have informed a setting or rule since: bench/splits.json (by now
# all of these rows). Resumable (a larger --limit extends a folder); LLM replies
# cached. Not run by this suite: CRAG, NoMIRACL, presets B, C and peer on the 1.5B.
# Usage: bash bench/eval_suite_1p5b.sh [OUT_ROOT]   (default bench/results/eval_1p5b)
set -euo pipefail
cd "$(dirname "$0")/.."
AG=.venv/bin/anchorgate
DATA=${ANCHORGATE_DATASETS:-../shared/datasets}
OUT=${1:-bench/results/eval_1p5b}

$AG eval --dataset "$DATA/clapnq" --limit 40 --presets A,baseline --out "$OUT/clapnq" --no-progress  # 20 + 20
$AG eval --dataset "$DATA/hotpotqa_sample" --limit 30 --presets A,baseline --out "$OUT/hotpotqa" --no-progress
# The 0.5B on the same code: the side-by-side table and A's latency against baseline's
$AG eval --llm local-0.5b --dataset "$DATA/clapnq" --limit 20 --presets A,baseline --out "$OUT/clapnq_0p5b" --no-progress
$AG eval --dataset "$DATA/halueval_qa" --judge-check --limit 30 --set judge.style=quote --set judge.accept_p=0.5 \
    --out "$OUT/halueval_judge_30_quote" --no-progress
$AG eval --dataset "$DATA/nq_open_oracle" --limit 10 --presets A,baseline --out "$OUT/nq_open_oracle" --no-progress
# Preset A's answers to the 45 demo-corpus questions (bench/demo_questions.jsonl)
.venv/bin/python bench/demo_answers.py

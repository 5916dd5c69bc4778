#!/usr/bin/env bash
# Issue 12's re-measurement on the default model (Qwen2.5-Coder-1.5B, `--llm local`), in the order
# run. Each set's first half is where settings were chosen, the second half is held out
# (`bench/heldout_split.py --tune N`). Resumable; LLM replies cached.
# Usage: bash bench/eval_suite_1p5b.sh [OUT_ROOT] [LLM]   (defaults bench/results/eval_1p5b, local)
set -euo pipefail
cd "$(dirname "$0")/.."
AG=.venv/bin/anchorgate
DATA=${ANCHORGATE_DATASETS:-../shared/datasets}
OUT=${1:-bench/results/eval_1p5b}
LLM=${2:-local}

$AG eval --llm "$LLM" --dataset "$DATA/clapnq" --limit 80 --presets A,baseline --out "$OUT/clapnq" --no-progress
$AG eval --llm "$LLM" --dataset "$DATA/hotpotqa_sample" --limit 50 --presets A,baseline --out "$OUT/hotpotqa" --no-progress
$AG eval --llm "$LLM" --dataset "$DATA/nq_open_oracle" --limit 50 --presets A,baseline --out "$OUT/nq_open_oracle" --no-progress
$AG eval --llm "$LLM" --dataset "$DATA/crag_sample" --presets A,baseline --out "$OUT/crag_sample" --no-progress

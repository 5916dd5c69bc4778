#!/usr/bin/env bash
# Baseline, A and B on English rows whose answers never informed a setting, word list or rule
# (bench/splits.json), the newest rows of BENCHMARKS.md's table: ClapNQ 281-400, NQ-open 161-200,
# NoMIRACL-en 61-100. The default model; resumable (a killed run goes on where it stopped, and a
# re-run scores the stored records again with the current scorer, without a model call).
# Usage: bash bench/eval_held_out.sh [OUT_ROOT]   (default bench/results/eval_1p5b_2026-11-27_held_out_rows)
# Then: .venv/bin/python bench/results_table.py --write
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${ANCHORGATE_DATASETS:-../shared/datasets}
OUT=${1:-bench/results/eval_1p5b_2026-11-27_held_out_rows}
E=".venv/bin/anchorgate eval --no-llm-cache --no-progress --presets baseline,A,B"
$E --dataset "$DATA/clapnq" --skip 280 --limit 340 --out "$OUT/clapnq281_340"
$E --dataset "$DATA/nq_open_oracle" --skip 160 --limit 200 --out "$OUT/nq161_200"
$E --dataset "$DATA/clapnq" --skip 340 --limit 400 --out "$OUT/clapnq341_400"
$E --dataset "$DATA/nomiracl" --language en --skip 60 --limit 100 --out "$OUT/nomiracl_en61_100"

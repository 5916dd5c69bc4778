#!/bin/bash
# Evaluation queue of 2026-11-26, answers from an unlinked passage (run from the repository root, one run at a time).
set -u
E=".venv/bin/anchorgate eval --no-llm-cache --no-progress"
O=bench/results/eval_1p5b_2026-11-26_unlinked_passage
N=../shared/datasets/nomiracl
H=../shared/datasets/hotpotqa_sample
$E --dataset $N --language id --skip 30 --limit 70 --presets A --out $O/nomiracl_id31_70_A > $O/nomiracl_id31_70_A.log 2>&1
$E --dataset $N --language id --skip 30 --limit 70 --presets baseline --out $O/nomiracl_id31_70_baseline > $O/nomiracl_id31_70_baseline.log 2>&1
$E --dataset $H --skip 50 --limit 70 --presets A --out $O/hotpot51_70_A > $O/hotpot51_70_A.log 2>&1
$E --dataset $H --skip 50 --limit 70 --presets baseline --out $O/hotpot51_70_baseline > $O/hotpot51_70_baseline.log 2>&1             
$E --dataset $H --limit 50 --presets B --out $O/hotpot50_B > $O/hotpot50_B.log 2>&1

#!/bin/bash
# Second queue of this folder: the held-out FacQA questions first (run from the repository root).
set -u
while pgrep -f "anchorgate eval" > /dev/null; do sleep 10; done  # queue.sh's last run
E=".venv/bin/anchorgate eval --no-llm-cache --no-progress"
O=bench/results/eval_1p5b_2026-11-26_unlinked_passage
F=../shared/datasets/indonlu_facqa
H=../shared/datasets/hotpotqa_sample
$E --dataset $F --skip 250 --limit 311 --presets A --out $O/facqa251_311_A > $O/facqa251_311_A.log 2>&1
$E --dataset $F --skip 250 --limit 311 --presets baseline --out $O/facqa251_311_baseline > $O/facqa251_311_baseline.log 2>&1
$E --dataset $H --skip 50 --limit 70 --presets A --out $O/hotpot51_70_A > $O/hotpot51_70_A.log 2>&1
$E --dataset $H --skip 50 --limit 70 --presets baseline --out $O/hotpot51_70_baseline > $O/hotpot51_70_baseline.log 2>&1
$E --dataset $H --limit 50 --presets B --out $O/hotpot50_B > $O/hotpot50_B.log 2>&1

#!/bin/bash
# 2026-11-27: the free-style fallback measured on ClapNQ rows never evaluated before
# (221-280). B with free_style_fallback=true against baseline (the setting cannot change baseline's
# answers: it acts on quoted drafts, and baseline writes free ones), then B as shipped (the fallback off,
# its default) on the same rows.
# Run from a worktree of commit 2882c2f through a path shim (/tmp/shim-2882c2f).
set -u
cd /tmp
D=/work/shared/datasets
O=/work/main/bench/results/eval_1p5b_2026-11-27_long_form_gold
E="env PYTHONPATH=/tmp/shim-2882c2f /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress"
$E --presets baseline,B --set free_style_fallback=true --dataset $D/clapnq --skip 220 --limit 280 --out $O/clapnq221_280_fallback > $O/clapnq221_280_fallback.log 2>&1
$E --presets B --dataset $D/clapnq --skip 220 --limit 280 --out $O/clapnq221_280_B_shipped > $O/clapnq221_280_B_shipped.log 2>&1
# then B with the fallback on sets earlier rules were tuned on (NQ-open 41-70, HotpotQA 51-70)
E="$E --presets B --set free_style_fallback=true"
$E --dataset $D/nq_open_oracle --skip 40 --limit 70 --out $O/nq41_70_B_fallback > $O/nq41_70_B_fallback.log 2>&1
$E --dataset $D/hotpotqa_sample --skip 50 --limit 70 --out $O/hotpot51_70_B_fallback > $O/hotpot51_70_B_fallback.log 2>&1

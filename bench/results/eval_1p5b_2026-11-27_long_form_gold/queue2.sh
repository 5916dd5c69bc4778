#!/bin/bash
# Seventeenth session: the free-style fallback measured on ClapNQ rows no session has evaluated
# (221-280). B with free_style_fallback=true against baseline (the setting cannot change baseline's
# answers: it acts on quoted drafts, and baseline writes free ones), then B as shipped (the fallback off,
# its default) on the same rows.
# Run from a worktree of commit 2882c2f through a path shim (/tmp/shim-s17fb).
set -u
cd /tmp
D=/work/shared/datasets
O=/work/main/bench/results/eval_1p5b_s17
E="env PYTHONPATH=/tmp/shim-s17fb /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress"
$E --presets baseline,B --set free_style_fallback=true --dataset $D/clapnq --skip 220 --limit 280 --out $O/clapnq221_280_fallback > $O/clapnq221_280_fallback.log 2>&1
$E --presets B --dataset $D/clapnq --skip 220 --limit 280 --out $O/clapnq221_280_B_shipped > $O/clapnq221_280_B_shipped.log 2>&1
# then B with the fallback on the tune sets of earlier sessions (NQ-open 41-70, HotpotQA 51-70)
E="$E --presets B --set free_style_fallback=true"
$E --dataset $D/nq_open_oracle --skip 40 --limit 70 --out $O/nq41_70_B_fallback > $O/nq41_70_B_fallback.log 2>&1
$E --dataset $D/hotpotqa_sample --skip 50 --limit 70 --out $O/hotpot51_70_B_fallback > $O/hotpot51_70_B_fallback.log 2>&1

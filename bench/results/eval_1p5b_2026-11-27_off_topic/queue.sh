#!/bin/bash
# 2026-11-27: baseline against B as shipped (commit 7b94811) on questions never evaluated before: HotpotQA 71-100, NQ-open 101-160, ClapNQ 81-140. Run from a worktree of that commit
# through a path shim (/tmp/shim-eval), so main's tree can change while it runs.
set -u
cd /tmp
D=/work/shared/datasets
O=/work/main/bench/results/eval_1p5b_2026-11-27_off_topic
E="env PYTHONPATH=/tmp/shim-eval /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress --presets baseline,B"
$E --dataset $D/hotpotqa_sample --skip 70 --limit 100 --out $O/hotpot71_100 > $O/hotpot71_100.log 2>&1
$E --dataset $D/nq_open_oracle --skip 100 --limit 160 --out $O/nq101_160 > $O/nq101_160.log 2>&1
$E --dataset $D/clapnq --skip 80 --limit 140 --out $O/clapnq81_140 > $O/clapnq81_140.log 2>&1

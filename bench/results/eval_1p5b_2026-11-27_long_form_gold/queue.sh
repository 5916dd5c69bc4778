#!/bin/bash
# 2026-11-27: baseline against B as shipped (commit c359c36) on ClapNQ rows never evaluated before
# (141-220 of the interleaved answerable/unanswerable file). Run from a worktree of that
# commit through a path shim (/tmp/shim-c359c36), so main's tree can change while it runs.
set -u
cd /tmp
D=/work/shared/datasets
O=/work/main/bench/results/eval_1p5b_2026-11-27_long_form_gold
E="env PYTHONPATH=/tmp/shim-c359c36 /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress --presets baseline,B"
$E --dataset $D/clapnq --skip 140 --limit 220 --out $O/clapnq141_220 > $O/clapnq141_220.log 2>&1

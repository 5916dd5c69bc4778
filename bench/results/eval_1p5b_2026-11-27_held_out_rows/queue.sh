#!/bin/bash
# Baseline, A and B as shipped at commit 850ad39 on English rows no setting was chosen on
# (bench/splits.json): ClapNQ 281-340, NQ-open 161-200. Run from a worktree of that commit through a
# path shim (/tmp/shim-850ad39), so the product is that commit's; the records are scored again by the
# current scorer when the same command is re-run from main (a resumed run rescores, no model call).
set -u
cd /tmp
D=/work/shared/datasets
O=/work/main/bench/results/eval_1p5b_2026-11-27_held_out_rows
E="env PYTHONPATH=/tmp/shim-850ad39 /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress --presets baseline,A,B"
$E --dataset $D/clapnq --skip 280 --limit 340 --out $O/clapnq281_340 > $O/clapnq281_340.log 2>&1
$E --dataset $D/nq_open_oracle --skip 160 --limit 200 --out $O/nq161_200 > $O/nq161_200.log 2>&1

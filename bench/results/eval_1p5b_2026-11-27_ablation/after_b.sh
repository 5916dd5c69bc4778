#!/bin/bash
# Preset B after the removals (product at 0e9a2d3) on NQ-open 161-200, fresh calls, against B at 850ad39.
set -u
cd /tmp
O=/work/main/bench/results/eval_1p5b_2026-11-27_ablation
env PYTHONPATH=/tmp/shim-final /work/main/.venv/bin/python -m anchorgate eval --no-progress --presets B --no-llm-cache --dataset /work/shared/datasets/nq_open_oracle --skip 160 --limit 200 --out $O/nq161_200_B_after_removals > $O/nq161_200_B_after_removals.log 2>&1
echo done

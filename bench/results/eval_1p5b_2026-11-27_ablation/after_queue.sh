#!/bin/bash
# Preset A after the removals (product at 0e9a2d3) on the ablation's rows, through a copy of the
# ablation's LLM reply cache: answers the removals did not touch are replayed, the rest asked.
set -u
cd /tmp
O=/work/main/bench/results/eval_1p5b_2026-11-27_ablation
D=/work/shared/datasets
E="env PYTHONPATH=/tmp/shim-final /work/main/.venv/bin/python -m anchorgate eval --no-progress --presets A --llm-cache /tmp/after-cache.sqlite"
$E --dataset $D/nq_open_oracle --skip 200 --limit 250 --out $O/nq_open201_250/after_removals > $O/nq_open201_250/after_removals.log 2>&1
$E --dataset $D/nomiracl --language id --skip 70 --limit 110 --out $O/nomiracl_id71_110/after_removals > $O/nomiracl_id71_110/after_removals.log 2>&1
$E --dataset $D/clapnq --skip 280 --limit 330 --out $O/clapnq281_330/after_removals > $O/clapnq281_330/after_removals.log 2>&1
$E --dataset $D/nomiracl --language en --skip 60 --limit 100 --out $O/nomiracl_en61_100/after_removals > $O/nomiracl_en61_100/after_removals.log 2>&1
$E --dataset $D/nomiracl --language id --skip 110 --limit 190 --out $O/nomiracl_id111_190/after_removals > $O/nomiracl_id111_190/after_removals.log 2>&1
echo done

#!/bin/bash
# After queue.sh: the same presets and commit on rows whose answers never informed anything
# (bench/splits.json, kind "outputs"): ClapNQ 341-400, NoMIRACL-en 61-100. COVID-QA 1-30 was stopped
# before its first answer, to leave the cores to the test suite; no record of it was kept.
set -u
while pgrep -f "$(dirname "$0")/queue.sh" > /dev/null; do sleep 20; done
cd /tmp
D=/work/shared/datasets
O=/work/main/bench/results/eval_1p5b_2026-11-27_held_out_rows
E="env PYTHONPATH=/tmp/shim-850ad39 /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress --presets baseline,A,B"
$E --dataset $D/clapnq --skip 340 --limit 400 --out $O/clapnq341_400 > $O/clapnq341_400.log 2>&1
$E --dataset $D/nomiracl --language en --skip 60 --limit 100 --out $O/nomiracl_en61_100 > $O/nomiracl_en61_100.log 2>&1
$E --dataset $D/covid_qa --limit 30 --out $O/covidqa1_30 > $O/covidqa1_30.log 2>&1

#!/bin/bash
# A as shipped (second reading withdrawing on weak e5 evidence) on NoMIRACL-id 31-70 (held out), then B
cd /work/main
R=bench/results/eval_1p5b_2026-11-27_second_reading_cap
.venv/bin/anchorgate eval --dataset ../shared/datasets/nomiracl --language id --skip 30 --limit 70 --presets A --no-llm-cache --no-progress --out $R/nomiracl_id31_70_A > $R/nomiracl_id31_70_A.log 2>&1
.venv/bin/anchorgate eval --dataset ../shared/datasets/nomiracl --language id --skip 30 --limit 70 --presets B --no-llm-cache --no-progress --out $R/nomiracl_id31_70_B > $R/nomiracl_id31_70_B.log 2>&1

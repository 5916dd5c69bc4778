#!/bin/bash
# A with the second reading measured (record mode), tune split first
cd /work/main
while pgrep -f "anchorgate eval" >/dev/null; do sleep 10; done
R=bench/results/eval_1p5b_2026-11-26_second_reading
.venv/bin/anchorgate eval --dataset ../shared/datasets/nomiracl --language id --limit 30 --presets A --set second_reading=record --no-llm-cache --no-progress --out $R/nomiracl_id1_30_A_sr > $R/nomiracl_id1_30_A_sr.log 2>&1

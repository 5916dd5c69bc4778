#!/bin/bash
# held out: NoMIRACL-id 31-70 with the second reading measured (record mode); waits for queue.sh
cd /work/main
sleep 20
while pgrep -f "anchorgate eval" >/dev/null; do sleep 10; done
R=bench/results/eval_1p5b_2026-11-26_second_reading
.venv/bin/anchorgate eval --dataset ../shared/datasets/nomiracl --language id --skip 30 --limit 70 --presets A --set second_reading=record --no-llm-cache --no-progress --out $R/nomiracl_id31_70_A_sr > $R/nomiracl_id31_70_A_sr.log 2>&1

#!/bin/bash
# B with the second reading withdrawing (weak evidence only) on ClapNQ 41-80 (held out); waits for queue2.sh
cd /work/main
R=bench/results/eval_1p5b_s14
sleep 5
while pgrep -f "eval_1p5b_s14/queue2.sh" >/dev/null; do sleep 10; done
.venv/bin/anchorgate eval --dataset ../shared/datasets/clapnq --skip 40 --limit 80 --presets B --set second_reading=withdraw --set second_reading_max_relevance=0.5 --no-llm-cache --no-progress --out $R/clapnq41_80_B_sr > $R/clapnq41_80_B_sr.log 2>&1

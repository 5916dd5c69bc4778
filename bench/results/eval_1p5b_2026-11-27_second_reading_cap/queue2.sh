#!/bin/bash
# English multi-hop, held out: HotpotQA 51-70 with the second reading measured; waits for queue.sh
cd /work/main
R=bench/results/eval_1p5b_2026-11-27_second_reading_cap
while pgrep -f "eval_1p5b_2026-11-27_second_reading_cap/queue.sh" >/dev/null; do sleep 10; done
.venv/bin/anchorgate eval --dataset ../shared/datasets/hotpotqa_sample --skip 50 --limit 70 --presets A --set second_reading=record --no-llm-cache --no-progress --out $R/hotpot51_70_A_sr > $R/hotpot51_70_A_sr.log 2>&1

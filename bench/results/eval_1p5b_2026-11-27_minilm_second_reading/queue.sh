#!/bin/bash
# 2026-11-27: B with the second reading paid for on MiniLM indexes too
# (second_reading_below_relevance=1, the cap chosen on HotpotQA 51-70 with A:
# bench/results/eval_1p5b_2026-11-27_second_reading_cap/hotpot51_70_A_sr),
# on the sets where B still had one more wrong answer than baseline (NQ-open 41-70, CRAG 10),
# then ClapNQ 1-80 and HotpotQA 51-70. Baselines: bench/results/eval_1p5b_2026-11-26_guess_answers (same model, machine).
set -u
cd /work/main
while pgrep -f "anchorgate eval" > /dev/null; do sleep 10; done
E=".venv/bin/anchorgate eval --no-llm-cache --no-progress --presets B --set second_reading_below_relevance=1"
O=bench/results/eval_1p5b_2026-11-27_minilm_second_reading
$E --dataset ../shared/datasets/nq_open_oracle --skip 40 --limit 70 --out $O/nq41_70_B_sr > $O/nq41_70_B_sr.log 2>&1
$E --dataset ../shared/datasets/crag_sample --limit 10 --out $O/crag10_B_sr > $O/crag10_B_sr.log 2>&1
$E --dataset ../shared/datasets/hotpotqa_sample --skip 50 --limit 70 --out $O/hotpot51_70_B_sr > $O/hotpot51_70_B_sr.log 2>&1
$E --dataset ../shared/datasets/clapnq --limit 80 --out $O/clapnq80_B_sr > $O/clapnq80_B_sr.log 2>&1

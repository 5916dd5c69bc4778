#!/bin/bash
# Second queue of 2026-11-26 (guessed answers, bare quotes), with the bare-quote rule and the guessed-answer rule (6574b54):
# B against baseline (same machine and build) on the sets where issue 13's "fewer wrong than baseline"
# was missed, then on held-out HotpotQA and NQ-open questions (run from the repository root).
# crag10_B_bare (queue.sh's first line, running when this was started) has the bare-quote rule only.
set -u
while pgrep -f "anchorgate eval" > /dev/null; do sleep 10; done
E=".venv/bin/anchorgate eval --no-llm-cache --no-progress"
O=bench/results/eval_1p5b_2026-11-26_guess_answers
C=../shared/datasets/crag_sample
Q=../shared/datasets/clapnq
H=../shared/datasets/hotpotqa_sample
N=../shared/datasets/nq_open_oracle
$E --dataset $C --limit 10 --presets B --out $O/crag10_B > $O/crag10_B.log 2>&1
$E --dataset $Q --limit 80 --presets B --out $O/clapnq80_B > $O/clapnq80_B.log 2>&1
$E --dataset $Q --limit 80 --presets baseline --out $O/clapnq80_baseline > $O/clapnq80_baseline.log 2>&1
$E --dataset $H --skip 50 --limit 70 --presets B --out $O/hotpot51_70_B > $O/hotpot51_70_B.log 2>&1
$E --dataset $N --skip 40 --limit 70 --presets baseline,B --out $O/nq41_70 > $O/nq41_70.log 2>&1

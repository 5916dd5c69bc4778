#!/bin/bash
# First queue of 2026-11-26 (guessed answers, bare quotes): B against baseline, same machine and build, on the two sets
# where issue 13's "fewer wrong than baseline" was still missed (run from the repository root).
# crag10 (baseline and B, HEAD before the bare-quote rule) ran first, from an earlier version of this
# queue; B is run again here with the rule.
set -u
while pgrep -f "anchorgate eval" > /dev/null; do sleep 10; done
E=".venv/bin/anchorgate eval --no-llm-cache --no-progress"
O=bench/results/eval_1p5b_2026-11-26_guess_answers
C=../shared/datasets/crag_sample
Q=../shared/datasets/clapnq
$E --dataset $C --limit 10 --presets B --out $O/crag10_B_bare > $O/crag10_B_bare.log 2>&1
$E --dataset $Q --limit 80 --presets B --out $O/clapnq80_B > $O/clapnq80_B.log 2>&1
$E --dataset $Q --limit 80 --presets baseline --out $O/clapnq80_baseline > $O/clapnq80_baseline.log 2>&1

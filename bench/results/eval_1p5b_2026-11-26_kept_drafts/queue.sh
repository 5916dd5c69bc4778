#!/usr/bin/env bash
# Evaluation queue of 2026-11-26, one run at a time (2 cores): preset A as shipped after the two
# answer-stage changes (drafts kept when the context is unchanged, quotes matched to their whole
# sentence), against the stored baseline records.
set -u
cd "$(dirname "$0")/../../.."
R=bench/results/eval_1p5b_2026-11-26_kept_drafts
D=../shared/datasets
while pgrep -f "facqa151_250_baseline" >/dev/null; do sleep 10; done
run() { local name=$1; shift; .venv/bin/anchorgate eval --no-progress --presets A "$@" --out $R/$name > $R/$name.log 2>&1; }
run facqa151_250_A --dataset $D/indonlu_facqa --skip 150 --limit 250
run facqa61_150_A --dataset $D/indonlu_facqa --skip 60 --limit 150
run clapnq80_A --dataset $D/clapnq --limit 80

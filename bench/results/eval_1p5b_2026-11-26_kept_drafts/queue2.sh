#!/usr/bin/env bash
# The rest of this folder's queue (queue.sh ran FacQA 151-250 and 61-150, then ClapNQ 80):
# NQ-open and HotpotQA held-out slices for A, then baseline on FacQA 61-150 on this machine, so
# that split compares A and baseline from one llama.cpp build.
set -u
cd "$(dirname "$0")/../../.."
R=bench/results/eval_1p5b_2026-11-26_kept_drafts
D=../shared/datasets
while pgrep -f "clapnq80_A" >/dev/null; do sleep 10; done
run() { local name=$1 presets=$2; shift 2; .venv/bin/anchorgate eval --no-progress --presets "$presets" "$@" --out $R/$name > $R/$name.log 2>&1; }
run nq41_100_A A --dataset $D/nq_open_oracle --skip 40 --limit 100
run facqa61_150_baseline baseline --dataset $D/indonlu_facqa --skip 60 --limit 150
run hotpot31_50_A A --dataset $D/hotpotqa_sample --skip 30 --limit 50

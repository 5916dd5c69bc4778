#!/bin/bash
# 2026-11-27: the chunker fix (branch chunk-initials, through the path shim as chunkfix.sh) with
# B as shipped on NQ-open 41-70 (its baseline is in nq41_70_chunkfix), then baseline and B on HotpotQA 51-70.
set -u
cd /tmp
E="env PYTHONPATH=/tmp/shim /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress"
O=/work/main/bench/results/eval_1p5b_2026-11-27_minilm_second_reading
$E --presets B --dataset /work/shared/datasets/nq_open_oracle --skip 40 --limit 70 --out $O/nq41_70_chunkfix_B > $O/nq41_70_chunkfix_B.log 2>&1
$E --presets baseline,B --dataset /work/shared/datasets/hotpotqa_sample --skip 50 --limit 70 --out $O/hotpot51_70_chunkfix > $O/hotpot51_70_chunkfix.log 2>&1

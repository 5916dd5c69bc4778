#!/bin/bash
# 2026-11-27: B with off-topic answers withdrawn (commit of worktree /work/wt-eval2, through the
# path shim /tmp/shim-eval2) on NQ-open 41-70, where B on the new chunks answered
# "Neil Diamond" out of a sentence about a song. Compare with eval_1p5b_2026-11-27_minilm_second_reading/nq41_70_chunkfix_B.
# Waits for queue.sh's evaluations to finish.
set -u
cd /tmp
while pgrep -f "shim-eval " > /dev/null || pgrep -f "queue.sh" > /dev/null; do sleep 15; done
O=/work/main/bench/results/eval_1p5b_2026-11-27_off_topic
env PYTHONPATH=/tmp/shim-eval2 /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress \
  --presets B --dataset /work/shared/datasets/nq_open_oracle --skip 40 --limit 70 \
  --out $O/nq41_70_B_offtopic > $O/nq41_70_B_offtopic.log 2>&1

#!/bin/bash
# 2026-11-27: the chunker fix (branch chunk-initials: no chunk break after an initial or a title),
# run from its worktree through a path shim, beside queue.sh: baseline and B (second reading paid on
# MiniLM too, as in queue.sh) on NQ-open 41-70, to compare with eval_1p5b_2026-11-26_guess_answers/nq41_70 (old chunks).
set -u
cd /tmp
PYTHONPATH=/tmp/shim /work/main/.venv/bin/python -m anchorgate eval --no-llm-cache --no-progress \
  --presets baseline,B --set second_reading_below_relevance=1 \
  --dataset /work/shared/datasets/nq_open_oracle --skip 40 --limit 70 \
  --out /work/main/bench/results/eval_1p5b_2026-11-27_minilm_second_reading/nq41_70_chunkfix > /work/main/bench/results/eval_1p5b_2026-11-27_minilm_second_reading/nq41_70_chunkfix.log 2>&1

#!/bin/bash
# second reading measured (record mode) on FacQA 251-311 (held out) then ClapNQ 41-80 (English, held out)
cd /work/main
R=bench/results/eval_1p5b_2026-11-27_second_reading_cap
.venv/bin/anchorgate eval --dataset ../shared/datasets/indonlu_facqa --skip 250 --limit 311 --presets A --set second_reading=record --no-llm-cache --no-progress --out $R/facqa251_311_A_sr > $R/facqa251_311_A_sr.log 2>&1
.venv/bin/anchorgate eval --dataset ../shared/datasets/clapnq --skip 40 --limit 80 --presets A --set second_reading=record --no-llm-cache --no-progress --out $R/clapnq41_80_A_sr > $R/clapnq41_80_A_sr.log 2>&1

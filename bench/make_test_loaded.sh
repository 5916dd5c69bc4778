#!/bin/bash
# `make test` beside a CPU hog, several runs in a row, each on a fresh clone of HEAD the way CI runs
# it (../shared/tools/fresh-check). Issue 14's target: green 3 runs in a row on a busy machine.
# One JSON line per run goes to the output file, so a run cut short still leaves the finished ones.
#
#   bash bench/make_test_loaded.sh                         # 3 runs, 1 hog, bench/results/make_test_loaded.jsonl
#   RUNS=1 HOGS=2 OUT=/tmp/x.jsonl bash bench/make_test_loaded.sh
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
hogs="${HOGS:-1}"
out="${OUT:-bench/results/make_test_loaded.jsonl}"
commit=$(git rev-parse --short HEAD)
pids=()
stop_hogs() { if ((${#pids[@]})); then kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null; fi; pids=(); }
trap stop_hogs EXIT
for run in $(seq "$runs"); do
  for _ in $(seq "$hogs"); do
    python3 -c "while True: pass" &
    pids+=("$!")
  done
  log=$(mktemp /tmp/make_test_loaded.XXXX.log)
  started=$(date +%s)
  ../shared/tools/fresh-check >"$log" 2>&1
  status=$?
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  stop_hogs
  summary=$(grep -E '^[0-9]+ (passed|failed)|passed|failed' "$log" | grep -E ' in [0-9.]+s' | tail -2 | tr '\n' ' ' | tr -d '"=')
  printf '{"run": %d, "commit": "%s", "date": "%s", "hogs": %d, "cores": %d, "exit": %d, "seconds": %d, "load_at_end": "%s", "pytest": "%s", "log": "%s"}\n' \
    "$run" "$commit" "$(date -u +%FT%TZ)" "$hogs" "$(nproc)" "$status" "$(( $(date +%s) - started ))" "$load" "$summary" "$log" >>"$out"
  tail -1 "$out"
  if ((status != 0)); then exit "$status"; fi
done

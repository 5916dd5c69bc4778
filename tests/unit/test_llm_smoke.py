"""`anchorgate prepare` runs each model in a child process: a llama.cpp that dies on this CPU is one
`error:` line with what to do (exit 69), not a bare "Segmentation fault" at the first question."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from anchorgate.tools.errors import EX_UNAVAILABLE, ModelUnavailableError
from anchorgate.tools.llm.smoke import check_model_runs, smoke_command

MODEL = Path("/models/qwen.gguf")


def _child(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_child_killed_by_a_signal_names_the_signal_and_the_rebuild() -> None:
    segfault = _child("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    with pytest.raises(ModelUnavailableError) as caught:
        check_model_runs(MODEL, segfault)
    assert caught.value.exit_code == EX_UNAVAILABLE == 69
    line = caught.value.one_line()
    assert "crashed (SIGSEGV) running qwen.gguf" in line and "CMAKE_ARGS" in line and "\n" not in line


def test_a_child_that_fails_reports_its_last_line() -> None:
    failing = _child("import sys; print('loading', file=sys.stderr); sys.exit('unknown model architecture: xyz')")
    with pytest.raises(ModelUnavailableError, match="failed to run qwen.gguf: unknown model architecture: xyz"):
        check_model_runs(MODEL, failing)


def test_a_child_that_hangs_is_stopped_at_the_timeout() -> None:
    with pytest.raises(ModelUnavailableError, match="did not finish 4 tokens of qwen.gguf in 1 s"):
        check_model_runs(MODEL, _child("import time; time.sleep(30)"), timeout_s=1.0)


def test_a_clean_exit_passes_and_the_real_command_runs_this_python_on_the_model() -> None:
    check_model_runs(MODEL, _child("pass"))
    command = smoke_command(MODEL)
    assert command[0] == sys.executable and command[-1] == str(MODEL) and "create_completion" in command[2]

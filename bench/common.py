"""Shared helpers for benchmark scripts: machine description, percentiles, result files."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("ANCHORGATE_DATASETS", REPO.parent / "shared" / "datasets"))
RESULTS = REPO / "bench" / "results"


def machine() -> dict[str, Any]:
    """CPU model, cores, memory and Python: what a reader needs to compare numbers."""
    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = subprocess.run(["free", "-g"], capture_output=True, text=True, check=False).stdout.split("\n")[1:2]
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory[0].split()[1] if memory else "?",
        "python": platform.python_version(),
        "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
    }


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0–100) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] if 0 < q < 100 else max(values)


def write_result(name: str, payload: dict[str, Any]) -> Path:
    """bench/results/<name>.json with the machine attached."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps({"machine": machine(), **payload}, indent=2), encoding="utf-8")
    return path

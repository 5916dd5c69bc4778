"""Where anchorgate keeps its cache (assembled model, indexes, checkpoints, eval caches).

Resolution order: an explicit per-run value, then $ANCHORGATE_CACHE, then ~/.cache/anchorgate.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root(explicit: str = "") -> Path:
    """The cache folder, created if needed."""
    root = Path(explicit or os.environ.get("ANCHORGATE_CACHE") or Path.home() / ".cache" / "anchorgate")
    root = root.expanduser()
    root.mkdir(parents=True, exist_ok=True)
    return root

"""Where anchorgate keeps its cache (assembled model, indexes, checkpoints, eval caches).

Resolution order: an explicit per-run value, then $ANCHORGATE_CACHE, then ~/.cache/anchorgate.
"""

from __future__ import annotations

import os
from pathlib import Path

from anchorgate.tools.errors import CacheWriteError


def cache_root(explicit: str = "") -> Path:
    """The cache folder, created if needed; one that cannot be created is a `CacheWriteError` (exit 73)."""
    root = Path(explicit or os.environ.get("ANCHORGATE_CACHE") or Path.home() / ".cache" / "anchorgate")
    root = root.expanduser()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a parent that is a file, no permission, a read-only file system
        reason = exc.strerror or str(exc)
        if isinstance(exc, FileExistsError | NotADirectoryError):  # mkdir's words for "a file is in the way"
            reason = "a file stands where a folder should be"
        raise CacheWriteError(
            f"cannot create the cache folder {root}: {reason}",
            "set ANCHORGATE_CACHE (or --set cache_dir) to a writable folder",
        ) from exc
    return root

"""anchorgate: budget-aware, anchor-based, multi-agent retrieval-augmented question answering.

The public API is imported lazily, so `import anchorgate.graph.config` stays cheap.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Config", "aask", "ask", "astream", "load_preset", "preset_names", "resolve_config"]
__version__ = "0.1.0"

_EXPORTS = {
    "aask": "anchorgate.api",
    "ask": "anchorgate.api",
    "astream": "anchorgate.api",
    "resolve_config": "anchorgate.api",
    "Config": "anchorgate.graph.config",
    "load_preset": "anchorgate.graph.presets",
    "preset_names": "anchorgate.graph.presets",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'anchorgate' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_EXPORTS[name]), name)

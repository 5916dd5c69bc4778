"""anchorgate: budget-aware, anchor-based, multi-agent retrieval-augmented question answering."""

from anchorgate.api import aask, ask, resolve_config
from anchorgate.graph.config import Config
from anchorgate.graph.presets import load_preset, preset_names

__all__ = ["Config", "aask", "ask", "load_preset", "preset_names", "resolve_config"]
__version__ = "0.1.0"

"""Resource settings checked for reachability before a run is stored: cheap, nothing loaded or indexed.

`Config.validate` checks what a value is (type, range, shape); this checks what it points at, for
an entry point that stores a run to start later (the Studio server's runs, crons and assistants),
where a run that cannot reach its model or corpus would otherwise be stored and fail as
"An internal error occurred", again at every firing of a cron:
  * llm: a spec `load_chat_model` takes, with its GGUF file or client package present;
  * corpus: `pydoc`, or a path that exists and can be listed or read;
  * cache_dir: empty ($ANCHORGATE_CACHE), or a folder that exists or can be made (no file in the way).
`checkpoint_db` is not among them here: a Studio run is checkpointed by the server's own store.
Each problem is a ConfigError naming the setting, so every entry point answers it as a bad setting.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from anchorgate.graph.bounds import shown
from anchorgate.graph.config import Config
from anchorgate.tools.corpus.load import check_corpus_readable
from anchorgate.tools.errors import AnchorgateError, ConfigError
from anchorgate.tools.llm.chat_models import check_model_spec


def check_reachable(config: Config) -> None:
    """Raise ConfigError for the first resource setting of `config` that cannot be reached."""
    _as_setting("llm.model", config.llm.model, lambda: check_model_spec(config.llm.model))
    _as_setting("resources.corpus", config.resources.corpus, lambda: check_corpus_readable(config.resources.corpus))
    _as_setting("resources.cache_dir", config.resources.cache_dir, lambda: check_cache_dir(config.resources.cache_dir))


def check_cache_dir(cache_dir: str) -> None:
    """A cache folder that exists, or whose nearest existing parent is a folder (it can be made there)."""
    if not cache_dir:
        return
    path = Path(cache_dir).expanduser()
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        where = "it is a file" if existing == path else f"{existing} is a file"
        raise ConfigError(f"cache folder {path} cannot be made: {where}", "name a folder")


def _as_setting(name: str, value: str, check: Callable[[], None]) -> None:
    """Run `check`; its error becomes a ConfigError that names the setting and the value first."""
    try:
        check()
    except AnchorgateError as exc:
        raise ConfigError(f"{name}={shown(value)} cannot be used: {exc.message}", exc.hint) from exc

"""User-facing errors: one line saying what went wrong and what to do, plus an exit code.

The CLI prints `error: <message> (<hint>)` and exits with `exit_code`; nothing else reaches the
user as a traceback. Library callers can catch `AnchorgateError`.
"""

from __future__ import annotations

# Exit codes follow sysexits.h where one fits, so scripts can tell causes apart.
EX_USAGE = 64  # bad question, bad option value
EX_DATAERR = 65  # a dataset or corpus file in the wrong format
EX_NOINPUT = 66  # a path that does not exist or cannot be read
EX_UNAVAILABLE = 69  # a model that cannot be loaded
EX_SOFTWARE = 70  # an internal error (a bug): reported, never hidden
EX_CANTCREAT = 73  # cannot write the index/cache
EX_CONFIG = 78  # an invalid configuration value


class AnchorgateError(Exception):
    """An error the user can act on."""

    exit_code = EX_SOFTWARE

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """`message (hint)` on one line, for the CLI."""
        text = f"{self.message} ({self.hint})" if self.hint else self.message
        return " ".join(text.split())


class InvalidQuestionError(AnchorgateError, ValueError):
    """An empty, whitespace-only or over-long question (a ValueError, so servers report its message)."""

    exit_code = EX_USAGE


class InvalidThreadIdError(AnchorgateError, ValueError):
    """A checkpoint thread id that is empty or not text (an explicit "" must not become a random thread)."""

    exit_code = EX_USAGE


class ConfigError(AnchorgateError, ValueError):
    """A configuration key or value that does not exist or does not parse (a ValueError, see above)."""

    exit_code = EX_CONFIG


class CorpusError(AnchorgateError):
    """A corpus path that is missing, unreadable or holds nothing indexable."""

    exit_code = EX_NOINPUT


class IndexCorruptError(AnchorgateError):
    """A persisted index whose files are damaged or inconsistent."""

    exit_code = EX_DATAERR


class IndexWriteError(AnchorgateError):
    """The index could not be written to its cache directory."""

    exit_code = EX_CANTCREAT


class CacheWriteError(AnchorgateError):
    """The cache folder ($ANCHORGATE_CACHE or cache_dir) cannot be created."""

    exit_code = EX_CANTCREAT


class ModelUnavailableError(AnchorgateError):
    """A chat or embedding model that is missing, corrupted or cannot be loaded."""

    exit_code = EX_UNAVAILABLE


class CheckpointStoreError(AnchorgateError):
    """The checkpoint store (a PostgreSQL server) cannot be reached or set up."""

    exit_code = EX_UNAVAILABLE


class ThreadNotFoundError(AnchorgateError):
    """A checkpoint thread or checkpoint id that does not exist."""

    exit_code = EX_NOINPUT


class LLMFaultError(AnchorgateError):
    """An LLM call of a run failed (server down, rate limited, timed out, malformed reply): no answer was made."""

    exit_code = EX_UNAVAILABLE


# Reliability of the checkpoint store (issue 14).
EX_TEMPFAIL = 75  # a thread another run is writing: try again when it has finished


class CheckpointCorruptError(AnchorgateError):
    """The SQLite checkpoint file is damaged (truncated, overwritten, not a database); `path` names it."""

    exit_code = EX_DATAERR  # like a corrupted index: the file is readable, its content is not valid

    def __init__(self, message: str, hint: str = "", path: str = "") -> None:
        super().__init__(message, hint)
        self.path = path


class CheckpointWriteError(AnchorgateError):
    """A file of the checkpoint store (the database beside it, a thread lock, a moved-aside copy) cannot be written."""

    exit_code = EX_CANTCREAT


class ThreadBusyError(AnchorgateError):
    """Another run (in this or another process) is writing the thread: one thread, one writer."""

    exit_code = EX_TEMPFAIL

"""Evaluation errors: one line for the user and a sysexits-style exit code (see tools/errors.py)."""

from __future__ import annotations

from anchorgate.tools.errors import EX_CANTCREAT, EX_CONFIG, EX_DATAERR, EX_NOINPUT, EX_USAGE, AnchorgateError


class EvalError(AnchorgateError):
    """An evaluation that cannot run as asked (e.g. an output folder from a different run)."""

    exit_code = EX_CONFIG


class EvalUsageError(EvalError):
    """An option value that cannot work (`--limit 0`)."""

    exit_code = EX_USAGE


class EvalDataError(EvalError):
    """A dataset in the wrong format: missing fields, duplicate ids, unknown format."""

    exit_code = EX_DATAERR


class EvalInputError(EvalError):
    """A dataset or corpus path that does not exist."""

    exit_code = EX_NOINPUT


class EvalOutputError(EvalError):
    """An output folder that cannot be created or written (`--out` names a file, no permission)."""

    exit_code = EX_CANTCREAT

"""The black-box probe's CLI cases: the checkpoint store and cache, thread ids, faults on resume, file modes.

Real runs over the toy index and a scripted model (tests/unit/test_threads.py). Tests run as root,
which writes anywhere whatever the permission bits say, so an unwritable place is made two ways
that hold for root too: a file standing where a folder should be, and a monkeypatched
PermissionError where the code creates a folder.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anchorgate.api import aask
from anchorgate.cli import printable, run
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.errors import EX_CANTCREAT, EX_UNAVAILABLE, EX_USAGE, InvalidThreadIdError
from anchorgate.tools.index.build import build_or_load
from tests.fakes import BagOfWordsEmbeddings, ScriptedChatModel
from tests.unit.test_threads import _model, _overrides

QUESTION = "What do owls hunt?"


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run(args)
    out, err = capsys.readouterr()
    return code, out, err


def _sets(overrides: dict[str, Any], **extra: str) -> list[str]:
    sets = ["--set", f"resources.services_id={overrides['resources.services_id']}"]
    for key, value in extra.items():
        sets += ["--set", f"{key}={value}"]
    return sets


def _one_error_line(err: str, *parts: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for part in parts:
        assert part in lines[0], err
    assert "Traceback" not in err and "internal error" not in err


# --- the checkpoint store and the cache -------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["ask", QUESTION], ["ask", QUESTION, "--thread", "t1"], ["history", "t1"], ["resume", "t1"],
     ["replay", "t1", "--checkpoint", "c1"], ["reset-checkpoints"]],
)  # fmt: skip
def test_a_checkpoint_db_that_is_a_folder_is_one_error_line_exit_73(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path, _model())
    folder = tmp_path / "a-folder"
    folder.mkdir()
    code, out, err = _cli([*command, *_sets(overrides, **{"resources.checkpoint_db": str(folder)})], capsys)
    assert code == EX_CANTCREAT == 73 and out == ""
    _one_error_line(err, f"checkpoint_db {folder} is a folder, not a SQLite file", f"{folder}/checkpoints.sqlite")
    assert list(tmp_path.iterdir()).count(tmp_path / "a-folder.locks") == 0  # refused before any lock was taken


def test_no_aiosqlite_traceback_follows_the_error_in_a_real_process(tmp_path: Path) -> None:
    """aiosqlite's worker thread printed "Event loop is closed" after a failed connect; only in a real process."""
    folder = tmp_path / "a-folder"
    folder.mkdir()
    for db in (folder, Path("/proc/self/store.sqlite")):  # a folder; a place no one can create a file, root neither
        done = subprocess.run(
            [sys.executable, "-m", "anchorgate", "history", "t1", "--set", f"resources.checkpoint_db={db}"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 73, done.stderr
        _one_error_line(done.stderr, str(db))


@pytest.fixture
def cache_under_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$ANCHORGATE_CACHE below a regular file: no one can create it, root neither."""
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    cache = tmp_path / "a-file" / "cache"
    monkeypatch.setenv("ANCHORGATE_CACHE", str(cache))
    return cache


def test_an_uncreatable_cache_is_exit_73_where_a_thread_is_named(
    tmp_path: Path, cache_under_a_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path, _model())
    for command in (["ask", QUESTION, "--thread", "t1"], ["history", "t1"], ["resume", "t1"]):
        code, out, err = _cli([*command, *_sets(overrides)], capsys)
        assert code == 73 and out == "", command
        _one_error_line(err, f"cannot create the cache folder {cache_under_a_file}", "set ANCHORGATE_CACHE")


def test_ask_without_a_thread_answers_with_a_warning_when_the_cache_cannot_hold_a_store(
    tmp_path: Path, cache_under_a_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As with a damaged store: the answer needs no store, so it is given, with a warning that it is not saved."""
    overrides = _overrides(tmp_path, _model())
    code, out, err = _cli(["ask", QUESTION, *_sets(overrides)], capsys)
    assert code == 0 and out.startswith("Owls hunt mice at night [1].")
    assert err.startswith("warning: no checkpoint store: cannot create the cache folder") and err.count("\n") == 1
    assert "answering without checkpoints" in err


def _deny_mkdir(monkeypatch: pytest.MonkeyPatch, below: Path) -> None:
    """Creating any folder below `below` raises PermissionError (what a non-root user gets in a read-only folder)."""
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        if self != below and below in self.parents and not self.exists():
            raise PermissionError(13, "Permission denied", str(self))
        real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)


def test_an_unwritable_checkpoint_folder_is_exit_73_with_a_thread_and_a_warning_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path, _model())
    locked = tmp_path / "locked"
    locked.mkdir()
    _deny_mkdir(monkeypatch, locked)
    db = locked / "stores" / "c.sqlite"
    code, out, err = _cli(
        ["ask", QUESTION, "--thread", "t1", *_sets(overrides, **{"resources.checkpoint_db": str(db)})], capsys
    )
    assert code == 73 and out == ""
    _one_error_line(err, f"cannot write the checkpoint store {db}: Permission denied")
    code, out, err = _cli(["ask", QUESTION, *_sets(overrides, **{"resources.checkpoint_db": str(db)})], capsys)
    assert code == 0 and out.startswith("Owls hunt mice at night [1].")
    assert err.startswith(f"warning: cannot write the checkpoint store {db}: Permission denied; answering without")


def test_a_store_sqlite_cannot_open_is_exit_73_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    overrides = _overrides(tmp_path, _model())
    real_connect = sqlite3.connect

    def connect(database: Any, *args: Any, **kwargs: Any) -> Any:
        if str(database).endswith("refused.sqlite"):
            raise sqlite3.OperationalError("unable to open database file")  # SQLITE_CANTOPEN, e.g. no permission
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
    db = tmp_path / "refused.sqlite"
    code, out, err = _cli(["history", "t1", *_sets(overrides, **{"resources.checkpoint_db": str(db)})], capsys)
    assert code == 73 and out == ""
    _one_error_line(err, f"cannot write the checkpoint store {db}: unable to open database file")


# --- thread ids ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("thread", ["", "   ", "\t"])
@pytest.mark.parametrize("command", ["ask", "history", "resume"])
def test_a_blank_thread_id_is_a_usage_error_not_a_random_thread(
    tmp_path: Path, thread: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path, _model())
    args = ["ask", QUESTION, "--thread", thread] if command == "ask" else [command, thread]
    code, out, err = _cli([*args, *_sets(overrides, **{"resources.checkpoint_db": str(tmp_path / "c.sqlite")})], capsys)
    assert code == EX_USAGE == 64 and out == ""
    _one_error_line(err, "error: the thread id '", "' is blank")  # one_line() folds the blanks themselves
    assert not (tmp_path / "c.sqlite").exists()  # no run was started, no store written


async def test_the_api_refuses_a_blank_or_unencodable_thread_id(tmp_path: Path) -> None:
    overrides = _overrides(tmp_path, _model())
    for thread in ("", " ", "t\udcff"):
        with pytest.raises(InvalidThreadIdError):
            await aask(QUESTION, overrides=overrides, thread_id=thread)


def test_a_control_character_in_a_thread_id_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path, _model())
    thread = "t\x1b[31mred\n"
    code, out, _ = _cli(
        [
            "ask",
            QUESTION,
            "--thread",
            thread,
            *_sets(overrides, **{"resources.checkpoint_db": str(tmp_path / "c.sqlite")}),
        ],
        capsys,
    )
    assert code == 0 and "\x1b" not in out
    assert out.rstrip("\n").endswith("· thread t\\x1b[31mred\\n")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("t1", "t1"),
        ("é-ü 線程", "é-ü 線程"),
        ("a\x1bb", "a\\x1bb"),
        ("a\tb\rc", "a\\tb\\rc"),
        ("x\u2028\x7f", "x\\u2028\\x7f"),
    ],
)
def test_printable_escapes_only_what_a_terminal_would_act_on(text: str, shown: str) -> None:
    assert printable(text) == shown


# --- an LLM fault found by resume -----------------------------------------------------------------------


def _timing_out_model() -> ScriptedChatModel:
    def reply(prompt: str) -> str:
        raise TimeoutError("no reply within 5 s")

    return ScriptedChatModel(script=reply)


@pytest.mark.parametrize("as_json", [False, True])
def test_resume_of_a_run_that_ended_on_an_llm_fault_is_exit_69_as_ask(
    tmp_path: Path, as_json: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path, _timing_out_model())
    sets = _sets(overrides, **{"resources.checkpoint_db": str(tmp_path / "c.sqlite")})
    json_flag = ["--json"] if as_json else []
    code, _, asked = _cli(["ask", QUESTION, "--thread", "t4", *json_flag, *sets], capsys)
    assert code == EX_UNAVAILABLE == 69 and "ABSTAIN_LLM_TIMEOUT" in asked
    code, out, err = _cli(["resume", "t4", *json_flag, *sets], capsys)
    assert code == 69, out  # was exit 0 with "I don't know": the fault read as an abstention
    assert err == asked  # the same one line as ask's
    _one_error_line(err, "the LLM did not reply in time", "ABSTAIN_LLM_TIMEOUT")
    assert ('"reason": "ABSTAIN_LLM_TIMEOUT"' in out) if as_json else out == ""


# --- file modes under umask 000 ---------------------------------------------------------------------------


@pytest.fixture
def umask_000() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in [root, *root.rglob("*")]}


def test_files_anchorgate_writes_are_not_group_or_world_writable_under_umask_000(
    tmp_path: Path, umask_000: None, capsys: pytest.CaptureFixture[str]
) -> None:
    overrides = _overrides(tmp_path / "toy", _model())
    out_dir = tmp_path / "written"
    db = out_dir / "store" / "c.sqlite"
    assert run(["ask", QUESTION, "--thread", "u1", *_sets(overrides, **{"resources.checkpoint_db": str(db)})]) == 0

    def index_and_report(_args: Any) -> int:  # an index and a report written by the code the commands use
        passages = [Passage("owls", "Owls", "Owls hunt mice at night.")]
        build_or_load(
            passages, BagOfWordsEmbeddings(32), "bow", ChunkingSettings(64, 8), out_dir / "idx", progress=False
        )
        (out_dir / "report.md").write_text("# report\n", encoding="utf-8")
        return 0

    assert run(["config"], handler_hook=index_and_report) == 0
    modes = _modes(out_dir)
    assert any(name.endswith("c.sqlite") for name in modes) and any(name.endswith(".faiss") for name in modes)
    too_wide = {name: oct(mode) for name, mode in modes.items() if mode & 0o022}
    assert too_wide == {}
    assert modes["report.md"] == 0o644 and modes["idx"] == 0o755


def test_a_stricter_umask_is_kept(umask_000: None) -> None:
    os.umask(0o077)
    assert run(["config"], handler_hook=lambda _args: 0) == 0
    assert os.umask(0o077) == 0o077

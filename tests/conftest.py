"""Shared fixtures. `postgres_server`: a real PostgreSQL (Debian's `postgresql` package) started for the
test session in a temporary directory on a free local port, and removed at the end. Tests that need it
skip with a message where the server binaries are absent (`make system-deps` installs them)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run by default, so that CI's verdict on a commit does not
# depend on luck; `HYPOTHESIS_PROFILE=explore` draws fresh ones to hunt for new failures (random
# drawing found the house a hotel sale took from a shortage auction, M.BUILD.6).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_bin() -> Path | None:
    env = os.environ.get("TABLESIDE_PG_BIN")
    if env and (Path(env) / "initdb").exists():
        return Path(env)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@dataclass(frozen=True)
class PostgresServer:
    host: str
    port: int
    user: str

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{self.user}@{self.host}:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh, empty database on this server; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(host=self.host, port=self.port, user=self.user, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found: apt install postgresql "
                    "(or `make system-deps`), or set TABLESIDE_PG_BIN")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install 'psycopg[binary]')")
    # PostgreSQL refuses to run as root: as root, run it as the `postgres` system user.
    as_user: list[str] = []
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            pytest.skip("running as root without runuser: can't start PostgreSQL as another user")
        try:
            import pwd

            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no `postgres` user to run the server as")
        as_user = [runuser, "-u", "postgres", "--"]
    root = Path(tempfile.mkdtemp(prefix="tableside-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if as_user:
        os.chown(root, owner.pw_uid, owner.pw_gid)
        os.chown(sock, owner.pw_uid, owner.pw_gid)
    port = free_port()
    user = "tableside"

    def run(*cmd: str) -> None:
        proc = subprocess.run([*as_user, *cmd], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")

    run(str(bindir / "initdb"), "-D", str(data), "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync")
    opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
    run(str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "-t", "60", "start")
    try:
        yield PostgresServer(host="127.0.0.1", port=port, user=user)
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)

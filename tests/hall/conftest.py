"""Fixtures for the hall tests: a fake time source, table services on SQLite, and a private PostgreSQL
server that a test may stop and start (the disconnection test)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.clock import ClockConfig
from hardware import store
from hardware.service import TableService
from tests.conftest import _pg_bin, free_port

PIN = "246810"


class FakeTime:
    """A time source the test moves by hand (epoch-like seconds)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


def make_table(tmp: Path, table_id: str = "t1", *, clock: ClockConfig | None = None, now: Any = None,
               players: tuple[str, ...] = ("Ann", "Bob", "Cy", "Di"), seed: int = 3,
               url: str | None = None, **kw: Any) -> TableService:
    db = store.open_store(url or store.sqlite_url(tmp / f"{table_id}.sqlite"))
    return TableService(db, table_id=table_id, name=f"Table {table_id}", clerk_pin=PIN, players=players,
                        seed=seed, clock=clock, now=now, **kw)


class PrivatePostgres:
    """A PostgreSQL server of the test's own (a private data directory and port) that it may stop and
    start mid-game: `pg_ctl stop -m fast` / `pg_ctl start`."""

    def __init__(self) -> None:
        bindir = _pg_bin()
        if bindir is None:
            pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
        self.bindir = bindir
        self.as_user: list[str] = []
        owner = None
        if os.geteuid() == 0:
            import pwd

            runuser = shutil.which("runuser")
            if runuser is None:
                pytest.skip("running as root without runuser")
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no `postgres` user")
            self.as_user = [runuser, "-u", "postgres", "--"]
        self.root = Path(tempfile.mkdtemp(prefix="tableside-hallpg-"))
        self.data, sock = self.root / "data", self.root / "sock"
        sock.mkdir()
        if owner is not None:
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            os.chown(sock, owner.pw_uid, owner.pw_gid)
        self.port = free_port()
        self.user = "tableside"
        self.opts = (f"-p {self.port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off "
                     "-c max_connections=200")
        self._run(str(bindir / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8",
                  "--no-sync")
        self.start()

    def _run(self, *cmd: str) -> None:
        proc = subprocess.run([*self.as_user, *cmd], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")

    def start(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", self.opts, "-l",
                  str(self.root / "log"), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{database}"

    def close(self) -> None:
        subprocess.run([*self.as_user, str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                        "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed")
    pg = PrivatePostgres()
    try:
        yield pg
    finally:
        pg.close()

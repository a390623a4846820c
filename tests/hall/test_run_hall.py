"""End to end with the command line: a table unit (`tableside run --hall-db URL --clock ... --round ...`) on
its own SQLite store replicating to a real PostgreSQL server, and the hall server (`tableside run --mirror
URL`) showing it: a roll and a referee call at the unit reach the hall's /api/hall."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from hardware.service import wait_until
from tests.service.test_run_cli import ROOT, Running

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


class Hall:
    def __init__(self, url: str, *extra: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tableside", "run", "--mirror", url, "--port", "0", *extra],
                                     cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.proc.stdout is not None
        lines = []
        for line in self.proc.stdout:
            lines.append(line)
            m = re.search(r"serving (http://[\d.]+:\d+)/", line)
            if m:
                self.base = m.group(1)
                return
        raise AssertionError("hall did not start:\n" + "".join(lines))

    def rows(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.base + "/api/hall", timeout=10) as r:
            return {t["id"]: t for t in json.loads(r.read())["tables"]}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.communicate(timeout=30)


def test_unit_replicates_to_the_hall_server_and_the_hall_shows_it(tmp_path: Path, postgres_server: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    url = postgres_server.create_database()
    monkeypatch.setenv("TABLESIDE_SECRET_KEY", "test-" + "x" * 40)
    unit = Running("--port", "0", "--data-dir", str(tmp_path / "unit"), "--source", "none", "--table", "pi-3",
                   "--name", "Table 3", "--players", "Ann,Bob,Cy", "--seed", "9", "--clock", "monopoly:60",
                   "--round", "R2", "--hall-db", url)
    hall = Hall(url, "--organiser-pin", "424242")
    try:
        assert wait_until(lambda: "pi-3" in hall.rows(), 20.0)
        status, body = unit.post("/api/tables/pi-3/commands", {"type": "roll", "dice": [2, 3]}, pin=unit.pin)
        assert status == 200
        seq = body["state"]["table"]["seq"]
        status, _ = unit.post("/api/tables/pi-3/clock", {"type": "start"}, pin=unit.pin)
        assert status == 200
        status, _ = unit.post("/api/tables/pi-3/clock", {"type": "pause"}, pin=unit.pin)
        assert status == 200
        t0 = time.monotonic()
        assert wait_until(lambda: hall.rows()["pi-3"]["alerts"] == ["referee_called"], 10.0)
        row = hall.rows()["pi-3"]
        assert row["seq"] == seq and row["round"] == "R2" and row["clock"]["phase"] == "paused"
        print(f"\nunit -> PostgreSQL -> hall: referee call visible after {time.monotonic() - t0:.2f} s")
        with urllib.request.urlopen(hall.base + "/", timeout=10) as r:
            assert b"Table 3" in r.read()
        # The organiser runs the tournament on the hall server, with the PIN it was started with.
        req = urllib.request.Request(hall.base + "/api/events", data=json.dumps(
            {"name": "Hall Cup", "game": "monopoly", "players": "A,B,C"}).encode(),
            headers={"Content-Type": "application/json", "X-Organiser-Pin": "424242"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 201
    finally:
        hall.stop()
        out = unit.stop()
    assert "replicating to the hall" in out

"""`tableside run` as a user runs it: a subprocess serving with waitress on a free port, hit with urllib;
stopped with SIGTERM and started again on the same store; then `tableside export` and `tableside import`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from hardware.service import wait_until

ROOT = Path(__file__).resolve().parents[2]


def tableside(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tableside", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


class Running:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tableside", "run", *args], cwd=ROOT, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: list[str] = []
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError("tableside run exited:\n" + "".join(self.lines))
            self.lines.append(line)
            m = re.search(r"serving (http://[\d.]+:\d+)/", line)
            if m:
                self.base = m.group(1)
                break
        else:
            raise AssertionError("no 'serving' line:\n" + "".join(self.lines))
        self.pin = next(re.search(r"clerk PIN (\d+)", ln).group(1)  # type: ignore[union-attr]
                        for ln in self.lines if "clerk PIN" in ln)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=10) as r:
            return json.loads(r.read()) if "json" in r.headers.get("Content-Type", "") else r.read()

    def post(self, path: str, body: Any, pin: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if pin is not None:
            headers["X-Clerk-Pin"] = pin
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(), headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=30)
        self.lines.append(out)
        return "".join(self.lines)


@pytest.mark.slow
def test_tableside_run_serves_plays_stops_and_resumes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    args = ("--port", "0", "--data-dir", str(data), "--reader", "sim-truth", "--source", "sim:5")
    run = Running(*args)
    try:
        # The simulated camera's throws go through the whole pipeline and reach the API.
        t0 = time.monotonic()
        assert wait_until(lambda: (run.get("/api/tables")[0]["last_roll"] or {}).get("applied") is True, 60)
        first_applied_s = time.monotonic() - t0
        tables = run.get("/api/tables")
        assert tables[0]["id"] == "demo" and tables[0]["camera"]["ok"] is True
        state = run.get("/api/tables/demo/state")
        assert state["table"]["seq"] >= 3 and len(state["players"]) == 4
        roll = state["table"]["last_roll"] or tables[0]["last_roll"]
        jpeg = run.get(roll["image"])
        assert jpeg[:2] == b"\xff\xd8"

        # Live push: the stream's first message arrives at once, with the state.
        with urllib.request.urlopen(run.base + "/api/tables/demo/stream", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("text/event-stream")
            head = [r.readline().decode() for _ in range(3)]
        assert head[1].strip() == "event: update"
        assert json.loads(head[2].removeprefix("data: "))["state"]["table"]["id"] == "demo"

        # Live clients each hold a server thread: 12 open streams and the API still answers, each stream
        # gets the next commit.
        streams = [urllib.request.urlopen(run.base + "/api/tables/demo/stream", timeout=10) for _ in range(12)]
        try:
            for st in streams:
                assert st.readline().startswith(b"id: ")
            t1 = time.monotonic()
            assert run.get("/api/tables")[0]["id"] == "demo"
            api_with_streams_s = time.monotonic() - t1
            for st in streams:
                while not st.readline().startswith(b"data: "):
                    pass  # the first (hello) message
                while not st.readline().startswith(b"data: "):
                    pass  # a later one: the camera's next throw reached every client
        finally:
            for st in streams:
                st.close()

        # The demo's events can be tried out: it made an organiser PIN and printed it.
        org = next(re.search(r"organiser PIN (\d{6}) ", ln) for ln in run.lines if "organiser PIN" in ln)
        assert org is not None
        req = urllib.request.Request(run.base + "/api/events", data=json.dumps(
            {"name": "Demo Cup", "game": "monopoly", "players": "A,B,C"}).encode(),
            headers={"Content-Type": "application/json", "X-Organiser-Pin": org.group(1)})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 201

        # Bad input: one-line JSON errors, nothing stored.
        seq = run.get("/api/tables/demo/state")["table"]["seq"]
        events_before = run.get(f"/api/tables/demo/events?after={seq}")
        assert run.post("/api/tables/demo/commands", {"type": "roll"})[0] == 401
        code, body = run.post("/api/tables/demo/commands", {"type": "roll", "dice": [9, 9]}, run.pin)
        assert code == 400 and "\n" not in body["message"]
        code, body = run.post("/api/tables/demo/commands", {"type": "bid", "player": "Nobody", "amount": 10},
                              run.pin)
        assert code in (400, 409) and "\n" not in body["message"]
        assert run.get(f"/api/tables/demo/events?after={seq}")[:len(events_before)] == events_before
        time.sleep(1.0)
    finally:
        out = run.stop()
    assert run.proc.returncode == 0, out
    assert "tableside: stopped" in out
    stored = int(re.findall(r"\[demo #(\d+) ", out)[-1]) if re.findall(r"\[demo #(\d+) ", out) else 0

    # Restarted on the same store: the game carries on from the last stored event.
    again = Running(*args)
    try:
        m = re.search(r"game (\d+) at event (\d+)", "".join(again.lines))
        assert m is not None and m.group(1) == "1" and int(m.group(2)) >= stored
        assert again.pin == run.pin  # the table keeps its clerk PIN
        assert again.get("/api/tables/demo/state")["table"]["seq"] >= int(m.group(2))
    finally:
        again.stop()
    print(f"\nfirst applied camera roll {first_applied_s:.1f} s after the server was up; API answered in "
          f"{api_with_streams_s * 1000:.0f} ms with 12 streams open; "
          f"resumed at event {m.group(2)}")

    # Export (JSON and CSV) and import: the record replays into an equal game.
    out_json, out_csv = tmp_path / "g.json", tmp_path / "g.csv"
    assert tableside("export", "1", "--data-dir", str(data), "-o", str(out_json)).returncode == 0
    assert tableside("export", "1", "--data-dir", str(data), "--format", "csv", "-o", str(out_csv)).returncode == 0
    record = json.loads(out_json.read_text())
    assert record["format"] == "tableside-game" and record["game"]["players"] == ["Aiko", "Ben", "Chie", "Dan"]
    assert [e["seq"] for e in record["events"]] == list(range(1, len(record["events"]) + 1))
    fresh = tmp_path / "fresh"
    for f in (out_json, out_csv):
        p = tableside("import", str(f), "--data-dir", str(fresh))
        assert p.returncode == 0, p.stderr
    listing = tableside("export", "--data-dir", str(fresh)).stdout.splitlines()
    assert len(listing) == 2 and all(f"{len(record['events'])} events" in ln for ln in listing)
    back = json.loads(tableside("export", "2", "--data-dir", str(fresh)).stdout)
    assert [e["payload"] for e in back["events"]] == [e["payload"] for e in record["events"]]
    assert [e["source"] for e in back["events"]] == [e["source"] for e in record["events"]]

    # A record that does not replay is refused with one line, and nothing is stored.
    broken = dict(record, events=record["events"][:1] + record["events"][2:])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(broken))
    p = tableside("import", str(bad), "--data-dir", str(fresh))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "numbered" in p.stderr
    assert len(tableside("export", "--data-dir", str(fresh)).stdout.splitlines()) == 2


def test_a_taken_port_is_one_line_and_touches_no_store(tmp_path: Path) -> None:
    """A second `tableside run` on the port of the first (or anything else listening there) stops before it opens
    the store: one line naming the port, exit 2, no database made."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        p = tableside("run", "--port", str(port), "--data-dir", str(tmp_path / "second"))
    assert p.returncode == 2 and p.stderr.strip() == (
        f"tableside run: port {port} on 127.0.0.1 is in use (another tableside run?): stop it or give --port")
    assert p.stdout == "" and not (tmp_path / "second").exists()


def test_run_refuses_bad_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tableside("run", "--source", "webcam:0", "--reader", "sim-truth", "--data-dir", str(tmp_path))
    assert p.returncode == 2 and "sim-truth" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    monkeypatch.setenv("TABLESIDE_SECRET_KEY", "x" * 40)  # a real table's source: past the key check
    for spec, why in ((f"video:{tmp_path / 'nope.mp4'}", "no video file at"), (f"folder:{tmp_path / 'nope'}",
                                                                                 "no folder at")):
        p = tableside("run", "--source", spec, "--port", "0", "--data-dir", str(tmp_path / "d"))
        assert p.returncode == 2 and why in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert not (tmp_path / "d").exists()
    p = tableside("run", "--organiser-pin", " ", "--data-dir", str(tmp_path))
    assert p.returncode == 2 and "--organiser-pin" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = subprocess.run([sys.executable, "-m", "tableside", "run", "--source", "bogus:1", "--data-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "TABLESIDE_SECRET_KEY": "x" * 32})
    assert p.returncode == 2 and "unknown source" in p.stderr
    # A real table (not the demo) needs a secret key for clerk sessions: refused before anything is written.
    env = {k: v for k, v in os.environ.items() if k != "TABLESIDE_SECRET_KEY"}
    p = subprocess.run([sys.executable, "-m", "tableside", "run", "--source", "none", "--data-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert p.returncode == 2 and "TABLESIDE_SECRET_KEY" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "tableside.db").exists()

"""The hall over HTTP: /api/hall rows with clock, round and alerts; the referee's clock API behind the clerk
PIN with rule refusals as 409; the hall-wide SSE stream pushing one table's row when it changes."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from engine.clock import catan_config, monopoly_config
from hardware.service import TableRegistry
from tests.hall.conftest import PIN, FakeTime, make_table
from tests.web.conftest import LiveServer
from web import create_app


@pytest.fixture
def hall_app(tmp_path: Path, fake_time: FakeTime) -> Iterator[Flask]:
    reg = TableRegistry([
        make_table(tmp_path, "m1", clock=monopoly_config(90), now=fake_time, round_label="R1"),
        make_table(tmp_path, "c1", clock=catan_config(("Ann", "Bob", "Cy")), now=fake_time,
                   players=("Ann", "Bob", "Cy"), round_label="R1"),
        make_table(tmp_path, "x1"),
    ])
    yield create_app({"TESTING": True, "SECRET_KEY": "test"}, registry=reg)
    reg.stop()


def rows(client: Any) -> dict[str, dict[str, Any]]:
    data = client.get("/api/hall").get_json()
    assert isinstance(data["now"], float)
    return {r["id"]: r for r in data["tables"]}


def test_hall_rows_and_the_referee_clock_api(hall_app: Flask, fake_time: FakeTime) -> None:
    c = hall_app.test_client()
    r = rows(c)
    assert r["m1"]["round"] == "R1" and r["m1"]["clock"]["phase"] == "not_started"
    assert r["x1"]["clock"] is None and r["x1"]["alerts"] == []
    assert c.post("/api/tables/m1/clock", json={"type": "start"}).status_code == 401
    assert c.post("/api/tables/m1/clock", json={"type": "start"}, headers={"X-Clerk-Pin": "0"}).status_code == 403
    pin = {"X-Clerk-Pin": PIN}
    resp = c.post("/api/tables/m1/clock", json={"type": "start"}, headers=pin)
    assert resp.status_code == 200 and resp.get_json()["clock"]["phase"] == "play"
    resp = c.post("/api/tables/m1/clock", json={"type": "adjust", "seconds": 60}, headers=pin)
    assert resp.status_code == 409 and resp.get_json()["rule"] == "M.END.2"
    assert c.post("/api/tables/m1/clock", json={"type": "nope"}, headers=pin).status_code == 400
    assert c.post("/api/tables/x1/clock", json={"type": "start"}, headers=pin).status_code == 400
    c.post("/api/tables/m1/clock", json={"type": "pause"}, headers=pin)
    assert rows(c)["m1"]["alerts"] == ["referee_called"]
    c.post("/api/tables/m1/clock", json={"type": "resume"}, headers=pin)
    c.post("/api/tables/c1/clock", json={"type": "start"}, headers=pin)
    fake_time.advance(61)
    assert "placement_overdue" in rows(c)["c1"]["alerts"]
    resp = c.post("/api/tables/c1/clock", json={"type": "placement_done", "player": "Cy"}, headers=pin)
    assert resp.status_code == 409 and resp.get_json()["rule"] == "C.TIME.1"
    fake_time.advance(90 * 60)
    hall_app.extensions["tableside"].get("m1").tick()
    r = rows(c)["m1"]
    assert "time_up" in r["alerts"] and r["ending"] is not None  # M.END.2: the end signal was given
    page = c.get("/").get_data(as_text=True)
    assert "clock.js" in page and "R1" in page


def _read_event(f: Any) -> tuple[str, dict[str, Any]]:
    event, data = "", ""
    while True:
        line = f.readline().decode()
        if line.startswith("event: "):
            event = line[7:].strip()
        elif line.startswith("data: "):
            data = line[6:].strip()
        elif line == "\n" and data:
            return event, json.loads(data)


def test_hall_stream_pushes_a_table_row(hall_app: Flask) -> None:
    with LiveServer(hall_app) as srv:
        sock = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        sock.sendall(b"GET /api/hall/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        f = sock.makefile("rb")
        while f.readline() not in (b"\r\n", b""):
            pass
        event, msg = _read_event(f)
        assert event == "hall" and {t["id"] for t in msg["tables"]} == {"m1", "c1", "x1"}
        svc = hall_app.extensions["tableside"].get("x1")
        svc.submit({"type": "roll", "dice": [2, 3]})
        while True:
            event, msg = _read_event(f)
            if event == "table" and msg["row"]["id"] == "x1":
                break
        assert msg["row"]["seq"] == svc.seq
        sock.close()


def test_a_camera_that_is_there_but_not_read_is_told_from_a_lost_one() -> None:
    """The hall card's camera alert: lost (no frames) or not read (frames of another shape than the
    calibration's: someone must click the corners, not look for a cable)."""
    from hardware.hall import hall_row
    from hardware.tablecamera import MISFIT

    def alerts(camera: dict[str, Any]) -> list[str]:
        return list(hall_row({"table": {"camera": camera}}, table_id="t", name="T")["alerts"])

    assert alerts({"source": "picamera:0", "ok": True, "message": "reading"}) == []
    assert alerts({"source": "picamera:0", "ok": False, "message": "camera picamera:0 lost"}) == ["camera_lost"]
    assert alerts({"source": "picamera:0", "ok": False,
                   "message": f"{MISFIT}: the calibration is for 1280x720 frames"}) == ["camera_not_read"]
    assert alerts({"source": "none", "ok": False, "message": "no camera"}) == []
    # told by its kind (hardware/tablecamera.py CameraStatus), whatever the message's words
    assert alerts({"source": "picamera:0", "ok": False, "message": "…", "kind": "misfit"}) == ["camera_not_read"]
    assert alerts({"source": "picamera:0", "ok": False, "message": "…", "kind": "lost"}) == ["camera_lost"]

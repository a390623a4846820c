"""The table service on a real SQLite file: the camera path (simulated camera, watcher, engine, store,
subscribers), what is never applied, and bad input through the service and through the HTTP API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

import engine
from hardware import store
from hardware.autoclerk import auto_decision
from hardware.service import TableService, wait_until
from hardware.simcam import SimulatedCamera
from web import create_app


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Engine]:
    eng = store.open_store(store.sqlite_url(tmp_path / "t.db"))
    yield eng
    eng.dispose()


def _rows(svc: TableService) -> list[dict[str, Any]]:
    return svc.events()


def test_camera_throws_become_rolls_and_void_throws(db: Engine, tmp_path: Path) -> None:
    cam = SimulatedCamera(seed=21, script=["ok", "off_board", "cocked", "ok", "ok"], hands=False)
    svc = TableService(db, table_id="cam", seed=2, source=cam, reader="sim-truth", image_dir=tmp_path / "img",
                       auto_clerk=True, auto_clerk_delay_s=0.0)
    sub = svc.subscribe()
    svc.start()
    try:
        assert wait_until(lambda: not svc.camera_status()["ok"] and "end of stream" in
                          svc.camera_status()["message"], timeout=120)
        assert svc.camera_status()["kind"] == "ended"
    finally:
        svc.stop()
    with store.session_scope(db) as s:
        rolls = store.list_rolls(s, game_id=svc.game_id)
    truth = cam.throws
    assert [r.verdict for r in rolls] == [t.verdict.value for t in truth] == ["ok", "reroll", "unreadable", "ok", "ok"]
    events = _rows(svc)
    rolled = [e["payload"]["dice"] for e in events if e["type"] == "dice_rolled"]
    assert rolled == [list(t.values) for t in truth if t.kind == "ok"]  # every ok throw applied, in order
    voided = [e for e in events if e["type"] == "throw_voided"]
    assert [v["payload"]["reason"] for v in voided] == ["reroll: off the board", "unreadable: cocked"]
    assert all(e["source"] == "camera" for e in voided)
    for r in rolls:
        assert r.applied == (r.verdict == "ok")
        assert r.image_path and Path(r.image_path).read_bytes()[:2] == b"\xff\xd8"  # a JPEG on disk
    # Announced: one "roll" message per throw reached the subscriber.
    kinds = []
    while (m := sub.get(timeout=0.01)) is not None:
        kinds.append(m["kind"])
    assert kinds.count("roll") == len(truth)
    assert svc.last_roll() is not None and svc.last_roll()["n"] == len(truth)


def test_a_roll_while_a_decision_is_pending_is_stored_not_applied(db: Engine) -> None:
    svc = TableService(db, table_id="p", players=["A", "B"], seed=1)
    svc.submit({"type": "roll", "dice": [1, 2]})  # A lands on Baltic Avenue: buy or decline?
    assert svc.state().head is not None
    seq, state = svc.seq, svc.state().to_json()
    sub = svc.subscribe()
    roll = svc.record_throw(verdict="ok", reason="", dice=[{"value": 4}, {"value": 4}])
    assert roll["applied"] is False and roll["outcome"].startswith("not applied:")
    assert svc.seq == seq and svc.state().to_json() == state
    msg = sub.get(timeout=1)
    assert msg is not None and msg["kind"] == "roll" and msg["events"] == [] and msg["roll"]["n"] == roll["n"]


def test_reroll_and_unreadable_are_never_applied(db: Engine) -> None:
    svc = TableService(db, table_id="v", players=["A", "B"], seed=1)
    before = svc.state()
    for verdict, reason in (("reroll", "off the board"), ("unreadable", "stacked"), ("ok", "")):
        dice = [{"value": 5}, {"value": 5}] if verdict != "ok" else [{"value": 6}]  # ok with one die: void too
        roll = svc.record_throw(verdict=verdict, reason=reason, dice=dice)
        assert roll["applied"] is False
    after = svc.state()
    assert [p.to_json() for p in after.players] == [p.to_json() for p in before.players]
    assert after.turn == before.turn
    assert [e["type"] for e in svc.events(after=1)] == ["command", "throw_voided"] * 3


MALFORMED: list[Any] = [
    [1, 2],
    "roll",
    {},
    {"type": "fly"},
    {"type": "roll"},
    {"type": "roll", "dice": "34"},
    {"type": "roll", "dice": [7, 1]},
    {"type": "roll", "dice": [1, 2, 3]},
    {"type": "roll", "dice": [1, 2], "colour": "red"},
    {"type": "bid", "player": "A", "amount": "lots"},
]
OUT_OF_TURN: list[dict[str, Any]] = [
    {"type": "roll", "dice": [1, 2], "player": "B"},
    {"type": "end_turn"},
    {"type": "buy"},
    {"type": "bid", "player": "A", "amount": 10},
    {"type": "pay_jail_fine"},
]


def test_bad_commands_through_the_service_leave_the_log_unchanged(db: Engine) -> None:
    svc = TableService(db, table_id="bad", players=["A", "B"], seed=1)
    seq, state, rows = svc.seq, svc.state().to_json(), _rows(svc)
    for command in MALFORMED:
        with pytest.raises(engine.InvalidCommand) as info:
            svc.submit(command)
        assert "\n" not in str(info.value) and str(info.value)
    for command in OUT_OF_TURN:
        with pytest.raises(engine.IllegalCommand) as ill:
            svc.submit(command)
        assert ill.value.rule and "\n" not in str(ill.value)
    assert svc.seq == seq and svc.state().to_json() == state and _rows(svc) == rows


@pytest.fixture
def client(db: Engine) -> Any:
    svc = TableService(db, table_id="web", players=["A", "B"], seed=1, clerk_pin="4321")
    from hardware.service import TableRegistry

    app = create_app({"TESTING": True}, registry=TableRegistry([svc]))
    return app.test_client(), svc


def test_bad_commands_through_http_are_one_line_json_errors(client: Any) -> None:
    c, _svc = client
    pin = {"X-Clerk-Pin": "4321"}
    before = c.get("/api/tables/web/events").get_json()
    for command in MALFORMED:
        r = c.post("/api/tables/web/commands", json=command, headers=pin)
        assert r.status_code == 400, (command, r.get_json())
        body = r.get_json()
        assert body["error"] == "invalid" and body["rule"] is None and "\n" not in body["message"]
    for command in OUT_OF_TURN:
        r = c.post("/api/tables/web/commands", json=command, headers=pin)
        assert r.status_code == 409, (command, r.get_json())
        body = r.get_json()
        assert body["error"] == "illegal" and body["rule"] and body["message"].startswith(body["rule"])
    r = c.post("/api/tables/web/commands", data="{not json", headers={**pin, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"] == "invalid"
    assert c.get("/api/tables/web/events").get_json() == before


def test_writes_need_the_clerk_pin(client: Any) -> None:
    c, svc = client
    roll = {"type": "roll", "dice": [3, 4]}
    assert c.post("/api/tables/web/commands", json=roll).status_code == 401
    assert c.post("/api/tables/web/commands", json=roll, headers={"X-Clerk-Pin": "0000"}).status_code == 403
    assert c.post("/api/tables/nope/commands", json=roll, headers={"X-Clerk-Pin": "4321"}).status_code == 403
    r = c.post("/api/tables/web/commands", json=roll, headers={"X-Clerk-Pin": "4321"})
    assert r.status_code == 200
    body = r.get_json()
    assert body["events"][0]["type"] == "command" and body["events"][0]["source"] == "clerk"
    assert body["state"]["table"]["seq"] == svc.seq == body["events"][-1]["seq"]
    assert body["state"]["table"]["last_roll"]["dice"] == [{"value": 3}, {"value": 4}]


def test_read_endpoints(client: Any) -> None:
    c, svc = client
    tables = c.get("/api/tables").get_json()
    assert [t["id"] for t in tables] == ["web"] and tables[0]["camera"]["ok"] is False
    state = c.get("/api/tables/web/state").get_json()
    assert state["players"][0]["name"] == "A" and state["table"]["seq"] == svc.seq
    assert set(state["table"]) >= {"id", "name", "seq", "camera", "last_roll"}
    svc.submit({"type": "roll", "dice": [1, 2]})
    events = c.get(f"/api/tables/web/events?after={state['table']['seq']}").get_json()
    assert events[0]["seq"] == state["table"]["seq"] + 1
    assert {"seq", "type", "payload", "source", "time", "text"} <= set(events[0])
    assert any(e["text"] == "A rolled 1+2" for e in events)
    assert c.get("/api/tables/zzz/state").status_code == 404
    assert c.get("/api/tables/web/events?after=x").status_code == 400
    assert c.get("/api/tables/web/rolls/99.jpg").status_code == 404


def test_stream_pushes_each_commit(client: Any) -> None:
    c, svc = client
    r = c.get("/api/tables/web/stream", buffered=False)
    it = r.response
    first = next(iter(it))
    text = first.decode() if isinstance(first, bytes) else first
    assert text.startswith("id: ") and "event: update" in text
    svc.submit({"type": "roll", "dice": [1, 2]})
    chunk = next(iter(it))
    chunk = chunk.decode() if isinstance(chunk, bytes) else chunk
    message = json.loads(chunk.split("data: ", 1)[1])
    # A typed roll is announced as a roll (it also enters the roll log), with its events.
    assert message["kind"] == "roll" and message["events"][-1]["seq"] == svc.seq == message["seq"]
    assert message["roll"]["source"] == "clerk" and message["state"]["table"]["seq"] == svc.seq
    r.close()
    assert wait_until(lambda: svc.subscriber_count == 0, timeout=2)


def test_auto_decision_answers_only_what_the_camera_cannot(db: Engine) -> None:
    svc = TableService(db, table_id="auto", players=["A", "B"], seed=1)
    assert auto_decision(svc.state()) is None  # a roll is awaited
    svc.submit({"type": "roll", "dice": [1, 2]})
    assert auto_decision(svc.state()) in ({"type": "buy"}, {"type": "decline"})


def test_real_reader_reads_the_simulated_camera_through_the_service(db: Engine, tmp_path: Path) -> None:
    """The demo's path with the product's reader: it is bound to the camera's calibration, and no wrong
    roll is ever applied (a throw it can't read is voided, never guessed)."""
    script = ["ok", "ok", "cocked", "ok", "ok", "off_board", "ok", "ok"]
    cam = SimulatedCamera(seed=5, script=script, hands=False)
    svc = TableService(db, table_id="real", seed=2, source=cam, reader="real", image_dir=tmp_path / "img",
                       auto_clerk=True, auto_clerk_delay_s=0.0)
    svc.start()
    try:
        assert wait_until(lambda: not svc.camera_status()["ok"] and "end of stream" in
                          svc.camera_status()["message"], timeout=180)
    finally:
        svc.stop()
    assert svc.calibration is not None
    with store.session_scope(db) as s:
        rolls = store.list_rolls(s, game_id=svc.game_id)
    assert len(rolls) == len(cam.throws)  # one record per throw, whatever the verdict
    applied = 0
    for roll, truth in zip(rolls, cam.throws, strict=True):
        if roll.verdict == "ok":
            assert truth.kind == "ok", (truth, roll.dice)
            assert sorted(d["value"] for d in roll.dice) == sorted(truth.values)  # which die is "first" is moot
            applied += roll.applied
    assert applied >= 4, [(r.verdict, r.reason) for r in rolls]


def test_a_stopping_table_ends_a_waiting_stream_at_once(db: Engine) -> None:
    """A reader blocked between pings (an open page's event stream) returns when the table stops, rather
    than at its timeout: a server shutting down is not held up by every open page."""
    import threading
    import time

    svc = TableService(db, table_id="s", players=["A", "B"], seed=1)
    sub = svc.subscribe()
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(sub.get(timeout=30)))
    reader.start()
    time.sleep(0.1)  # the reader is waiting in get()
    t0 = time.monotonic()
    svc.stop()
    reader.join(5)
    assert not reader.is_alive() and time.monotonic() - t0 < 5
    assert got == [None] and sub.closed and svc.subscriber_count == 0


def test_a_calibration_for_frames_of_another_shape_is_not_read_with(db: Engine, tmp_path: Path) -> None:
    """A calibration made on 16:9 stills, the camera giving 4:3 frames: scaled, it would put the board where
    it is not, so the camera reads nothing and says why, while its preview stays; the board's corners
    clicked on that preview make a calibration of the frames' own shape, and throws are read again."""
    from calibration.fit import from_corners
    from hardware.tablecamera import MISFIT

    cam = SimulatedCamera(seed=9, hands=False)  # an endless programme of throws
    wide = from_corners([(100.0, 40.0), (1180.0, 40.0), (1180.0, 680.0), (100.0, 680.0)], (1280, 720),
                        board_mm=cam.board_mm, die_mm=cam.die_mm)
    svc = TableService(db, table_id="shape", seed=2, source=cam, reader="sim-truth", calibration=wide,
                       image_dir=tmp_path / "img")
    svc.start()
    try:
        assert wait_until(lambda: svc.camera_status()["message"].startswith(MISFIT), timeout=60)
        status = svc.camera_status()
        assert not status["ok"] and "1280x720" in status["message"] and "640x480" in status["message"]
        # the kind and the cause, for the pages to say it in their reader's language (web/i18n.py CAMERA_JA)
        assert status["kind"] == "misfit" and "1280x720" in status["detail"] and MISFIT not in status["detail"]
        assert svc.latest_frame_jpeg() is not None and status["throws"] == 0
        cal = svc.set_corners(cam.board_corners_px().tolist())
        assert cal["image_size"] == [640, 480]
        assert wait_until(lambda: svc.camera_status()["ok"] and svc.camera_status()["throws"] >= 1, timeout=120)
    finally:
        svc.stop()


def test_corners_clicked_since_the_calibration_file_win_at_start_up(db: Engine, tmp_path: Path) -> None:
    """A unit started with --calibration FILE, corners then clicked in the clerk's console: restarted with the
    same file (a reboot), it reads with the clicked calibration, which is newer than the file; a file written
    after the clicks (calibrated again) wins over them, and is stored as the table's latest."""
    from datetime import UTC, datetime, timedelta

    def run(made: datetime) -> TableService:
        cam = SimulatedCamera(seed=3, script=["ok"], hands=False)
        svc = TableService(db, table_id="boot", seed=2, source=cam, reader="sim-truth", image_dir=tmp_path / "img",
                           calibration=file_cal, calibration_made=made)
        svc.start()
        assert wait_until(lambda: "end of stream" in svc.camera_status()["message"], timeout=60)
        return svc

    file_cal = SimulatedCamera(seed=3, script=["ok"], hands=False).calibration()
    written = datetime.now(UTC) - timedelta(hours=1)
    first = run(written)
    clicked = first.set_corners([(120.0, 40.0), (520.0, 40.0), (520.0, 440.0), (120.0, 440.0)])
    first.stop()
    again = run(written)
    again.stop()
    assert again.calibration is not None and again.calibration.to_json() == clicked
    later = run(datetime.now(UTC) + timedelta(seconds=1))
    later.stop()
    assert later.calibration == file_cal
    with store.session_scope(db) as s:
        latest = store.latest_calibration(s, table_id="boot")
        assert latest is not None and latest.data == file_cal.to_json()

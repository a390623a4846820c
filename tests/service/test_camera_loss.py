"""A camera that fails mid-game: the service keeps serving (real waitress, real HTTP), reports the loss,
takes the clerk's typed rolls meanwhile, and reads the camera's throws again once it is back."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from hardware import store
from hardware.autoclerk import auto_decision
from hardware.service import TableRegistry, TableService, wait_until
from hardware.simcam import SimulatedCamera
from hardware.sources import SourceError, SourceLost
from tests.web.conftest import LiveServer
from vision.watcher import Frame
from web import create_app


class FlakySource:
    """The simulated camera behind a switch: while `gone` is set, reads fail as a lost camera does and
    reopening fails too. Frames are paced a little so the test can act between throws."""

    def __init__(self, cam: SimulatedCamera, pace_s: float = 0.002) -> None:
        self.cam = cam
        self.source = cam  # lets the service find the simulator for the sim-truth reader
        self.name = "flaky-sim"
        self.gone = threading.Event()
        self.pace_s = pace_s
        self.opens = 0

    def open(self) -> None:
        if self.gone.is_set():
            raise SourceError("flaky-sim: no camera on the bus")
        self.opens += 1
        self.cam.open()

    def read(self) -> Frame | None:
        if self.gone.is_set():
            raise SourceLost("flaky-sim: cable pulled")
        time.sleep(self.pace_s)
        return self.cam.read()

    def close(self) -> None:
        pass  # the simulator keeps its place in the programme, as the table keeps its dice

    def calibration(self) -> Any:
        return self.cam.calibration()


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def post(url: str, body: dict[str, Any], pin: str) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Clerk-Pin": pin})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_camera_loss_keeps_the_table_playing(tmp_path: Path) -> None:
    db = store.open_store(store.sqlite_url(tmp_path / "loss.db"))
    cam = SimulatedCamera(seed=8, script=["ok"] * 40, hands=False)
    source = FlakySource(cam)
    svc = TableService(db, table_id="loss", players=["A", "B"], seed=3, clerk_pin="2468", source=source,
                       reader="sim-truth", auto_clerk=True, auto_clerk_delay_s=0.0)
    app = create_app({"TESTING": True}, registry=TableRegistry([svc]))
    # LiveServer stops waitress's loop before closing its sockets: closed under a running select(), they
    # raised "Bad file descriptor" in the server's thread at this test's end now and then.
    with LiveServer(app) as live:
        base = f"{live.url}/api/tables/loss"
        svc.start()
        try:
            assert wait_until(lambda: _camera_rolls(db, svc, applied=True) >= 2, 60)

            source.gone.set()
            assert wait_until(lambda: not get(base + "/state")["table"]["camera"]["ok"], 10)
            status = get(base + "/state")["table"]["camera"]
            assert "lost" in status["message"] and "by hand" in status["message"]
            assert status["kind"] == "lost" and status["detail"] and status["detail"] in status["message"]
            camera_rolls = _camera_rolls(db, svc)

            # Meanwhile the clerk types the rolls: answer any decision first (the automatic clerk does), then roll.
            assert wait_until(lambda: auto_decision(svc.state()) is None, 10)
            seq = svc.seq
            code, body = post(base + "/commands", {"type": "roll", "dice": [2, 3]}, "2468")
            assert code == 200, body
            assert body["state"]["table"]["last_roll"]["source"] == "clerk"
            assert body["events"][0]["seq"] == seq + 1
            time.sleep(0.5)
            assert _camera_rolls(db, svc) == camera_rolls  # nothing read

            source.gone.clear()
            assert wait_until(lambda: get(base + "/state")["table"]["camera"]["ok"], 10)
            status = get(base + "/state")["table"]["camera"]
            assert "back" in status["message"] and status["kind"] == "back" and not status["detail"]
            assert wait_until(lambda: _camera_rolls(db, svc, applied=True) >= camera_rolls + 2, 60), \
                "camera throws are read again after it came back"
            assert source.opens >= 2
            events = get(base + "/events")
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
            assert {"camera", "clerk", "system"} <= {e["source"] for e in events}
        finally:
            svc.stop()
    db.dispose()


def _camera_rolls(db: Any, svc: TableService, *, applied: bool = False) -> int:
    with store.session_scope(db) as s:
        rolls = store.list_rolls(s, game_id=svc.game_id)
    return sum(1 for r in rolls if r.source == "camera" and (r.applied or not applied))

"""Corner-click calibration through the API: four corners become a stored calibration the service reads
with; bad corners and a table with no picture yet are refused with one-line JSON errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from flask import Flask
from flask.testing import FlaskClient

from calibration.model import Calibration
from hardware import store
from hardware.service import TableService
from tests.web.conftest import clerk_headers
from vision.watcher import Frame

CORNERS = [[600, 40], [40, 60], [60, 420], [620, 440]]  # any order; the service orders them


def _give_picture(service: TableService, w: int = 640, h: int = 480) -> None:
    service._frame = Frame(image=np.zeros((h, w, 3), np.uint8), t=0.0)


def test_no_picture_yet_is_refused(client: FlaskClient) -> None:
    r = client.post("/api/tables/t1/calibration", json={"corners": CORNERS}, headers=clerk_headers())
    assert r.status_code == 409
    assert "no camera picture" in r.get_json()["message"]


def test_corners_need_the_clerk(client: FlaskClient) -> None:
    assert client.post("/api/tables/t1/calibration", json={"corners": CORNERS}).status_code == 401


def test_corners_are_stored_and_used(app: Flask, client: FlaskClient) -> None:
    service: TableService = app.extensions["tableside"].get("t1")
    _give_picture(service)
    r = client.post("/api/tables/t1/calibration", json={"corners": CORNERS}, headers=clerk_headers())
    assert r.status_code == 200, r.get_json()
    cal = Calibration.from_json(r.get_json()["calibration"])
    assert cal.source == "corners" and cal.image_size == (640, 480)
    assert sorted(cal.board_polygon) == sorted((float(x), float(y)) for x, y in CORNERS)
    assert cal.die_size_px is not None and 5 < cal.die_size_px < 40
    assert service.calibration == cal
    with store.session_scope(service.db) as s:
        row = store.latest_calibration(s, table_id="t1")
        assert row is not None and row.data == cal.to_json()


def test_corner_outside_the_picture_is_refused(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    _give_picture(app.extensions["tableside"].get("t1"))
    bad = [[600, 40], [40, 60], [60, 420], [900, 440]]
    r = client.post("/api/tables/t1/calibration", json={"corners": bad}, headers=clerk_headers())
    assert r.status_code == 400
    assert "outside the 640x480 image" in r.get_json()["message"]


def test_clicking_the_corners_again_keeps_the_lens(app: Flask, client: FlaskClient) -> None:
    """A calibration that knows its camera's lens (`tableside calibrate --hfov`) keeps it when the clerk clicks
    the corners again: the same camera, and near overhead the corners cannot measure it (vision/camera.py)."""
    from calibration.fit import from_corners, with_lens

    service: TableService = app.extensions["tableside"].get("t1")
    service.calibration = with_lens(from_corners([(10.0, 10.0), (630.0, 10.0), (630.0, 470.0), (10.0, 470.0)],
                                                 (640, 480)), 62.2)
    r = client.post("/api/tables/t1/calibration", json={"corners": CORNERS}, headers=clerk_headers())
    assert r.status_code == 200, r.get_json()
    cal = Calibration.from_json(r.get_json()["calibration"])
    assert cal.focal_px == service.calibration.focal_px and cal.extra["hfov_deg"] == 62.2
    assert sorted(cal.board_polygon) == sorted((float(x), float(y)) for x, y in CORNERS)

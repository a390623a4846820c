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


def test_corners_are_clicked_on_the_cameras_frames_not_the_old_calibrations_size(app: Flask,
                                                                                 client: FlaskClient) -> None:
    """A calibration made from a 1280x960 still, the camera's frames 640x480: the corners clicked on the
    preview are in the frames' pixels, and the new calibration is for frames of that size. What the corners do
    not say (the dice's colours) stays."""
    from calibration.fit import from_corners

    service: TableService = app.extensions["tableside"].get("t1")
    big = from_corners([(20.0, 20.0), (1260.0, 20.0), (1260.0, 940.0), (20.0, 940.0)], (1280, 960))
    service.calibration = Calibration.from_json({**big.to_json(), "die_color_bgr": [40, 40, 190],
                                                 "pip_color_bgr": [245, 245, 245]})
    _give_picture(service, 640, 480)
    r = client.post("/api/tables/t1/calibration", json={"corners": CORNERS}, headers=clerk_headers())
    assert r.status_code == 200, r.get_json()
    cal = Calibration.from_json(r.get_json()["calibration"])
    assert cal.image_size == (640, 480)
    assert sorted(cal.board_polygon) == sorted((float(x), float(y)) for x, y in CORNERS)
    assert cal.die_color_bgr == (40, 40, 190) and cal.pip_color_bgr == (245, 245, 245)
    assert service.calibration == cal


def test_the_calibration_in_use_is_outlined_in_the_frames_pixels(app: Flask, client: FlaskClient) -> None:
    """The console draws where the calibration in use puts the board over the camera's preview: the outline
    comes in the frames' pixels (a calibration from a 1280x960 still, frames of 640x480: halved), and is
    the clicked corners once they are saved. The clerk's only, as the corners are."""
    from calibration.fit import from_corners

    service: TableService = app.extensions["tableside"].get("t1")
    assert client.get("/api/tables/t1/calibration").status_code == 401
    r = client.get("/api/tables/t1/calibration", headers=clerk_headers())
    assert r.status_code == 200 and r.get_json() == {"calibration": None}
    service.calibration = from_corners([(20.0, 20.0), (1260.0, 20.0), (1260.0, 940.0), (20.0, 940.0)], (1280, 960))
    _give_picture(service, 640, 480)
    out = client.get("/api/tables/t1/calibration", headers=clerk_headers()).get_json()["calibration"]
    assert out["size"] == [640, 480] and out["tray"] is None
    assert out["board"] == [[10.0, 10.0], [630.0, 10.0], [630.0, 470.0], [10.0, 470.0]]
    assert client.post("/api/tables/t1/calibration", json={"corners": CORNERS},
                       headers=clerk_headers()).status_code == 200
    out = client.get("/api/tables/t1/calibration", headers=clerk_headers()).get_json()["calibration"]
    assert sorted(map(tuple, out["board"])) == sorted((float(x), float(y)) for x, y in CORNERS)


def test_the_preview_sends_each_picture_whole_and_again_while_it_stays(app: Flask, client: FlaskClient) -> None:
    """The camera preview (MJPEG): each picture is followed by the boundary at once, so a browser shows it
    without waiting for the next picture; a picture that stays the same (a still, a paused camera) is sent
    again (MJPEG_REPEAT_S), so a page gone is noticed at that write."""
    import cv2

    from hardware.simcam import SimulatedCamera
    service: TableService = app.extensions["tableside"].get("t1")
    assert client.get("/api/tables/t1/camera.mjpg").status_code == 404  # no camera
    cam = SimulatedCamera(seed=1, hands=False)
    service.source = cam
    service._frame = Frame(image=next(iter(cam)).image, t=0.0)
    r = client.get("/api/tables/t1/camera.mjpg", buffered=False)
    try:
        assert r.status_code == 200 and r.mimetype == "multipart/x-mixed-replace"
        chunks = iter(r.response)
        assert next(chunks) == b"--frame\r\n"
        for _ in range(2):  # the picture, then the same picture again
            part = next(chunks)
            head, body = part.split(b"\r\n\r\n", 1)
            assert head.startswith(b"Content-Type: image/jpeg") and body.endswith(b"\r\n--frame\r\n")
            jpeg = body[:-len(b"\r\n--frame\r\n")]
            assert int(head.split(b"Content-Length: ")[1]) == len(jpeg)
            img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            assert img is not None and img.shape == (480, 640, 3)
    finally:
        r.close()


def test_the_board_is_found_in_the_cameras_picture(app: Flask, client: FlaskClient) -> None:
    """`POST .../calibration/find`: the board's corners found by its outline in the camera's latest frame, in
    the order the clerk clicks them, for the clerk to check and save; nothing is saved by it. Refused with
    the reason before a picture (409) and where the picture shows no board (422); clerk only."""
    from hardware.simcam import SimulatedCamera

    url = "/api/tables/t1/calibration/find"
    assert client.post(url).status_code == 401
    r = client.post(url, headers=clerk_headers())
    assert r.status_code == 409 and "no camera picture" in r.get_json()["message"]
    service: TableService = app.extensions["tableside"].get("t1")
    _give_picture(service)
    r = client.post(url, headers=clerk_headers())
    assert r.status_code == 422 and r.get_json()["error"] == "not_found"
    assert r.get_json()["message"].startswith("no board outline found: ")
    cam = SimulatedCamera(seed=4, tilt_deg=18)
    service._frame = Frame(image=cam.still([]), t=0.0)
    before = service.calibration
    r = client.post(url, headers=clerk_headers())
    assert r.status_code == 200, r.get_json()
    found = r.get_json()["corners"]
    truth = cam.board_corners_px()  # top-left, top-right, bottom-right, bottom-left
    assert np.abs(np.array(found) - truth).max() < 4.0, (found, truth.tolist())
    assert service.calibration == before
    r = client.post("/api/tables/t1/calibration", json={"corners": found}, headers=clerk_headers())
    assert r.status_code == 200 and service.calibration is not None
    assert np.allclose(service.calibration.board_polygon, found)

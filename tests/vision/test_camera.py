"""vision/camera.py: the camera recovered from a board homography predicts where a flat die's sides show."""

from __future__ import annotations

import math

import numpy as np

from vision.camera import BoardCamera


def _camera(f: float, tilt_deg: float, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """K, R, t of a pinhole camera 600 units from the board centre, looking at it, tilted about x."""
    a = math.radians(tilt_deg)
    # Looking down (camera z = -board z), then tilted.
    rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    rot = rx @ np.diag([1.0, -1.0, -1.0])
    centre = np.array([0.0, 600.0 * math.sin(a), 600.0 * math.cos(a)])
    t = -rot @ centre
    k = np.array([[f, 0, size[0] / 2], [0, f, size[1] / 2], [0, 0, 1.0]])
    return k, rot, t


def _project(k: np.ndarray, rot: np.ndarray, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    q = (p @ rot.T + t) @ k.T
    return np.asarray(q[:, :2] / q[:, 2:3])


def test_down_vector_matches_the_true_camera() -> None:
    size = (640, 480)
    k, rot, t = _camera(700.0, 20.0, size)
    board_to_image = k @ np.stack([rot[:, 0], rot[:, 1], t], axis=1)
    d = 16.0  # die height, board units
    top_c = _project(k, rot, t, np.array([[0.0, 0.0, d], [d / 2, 0.0, d], [-d / 2, 0.0, d]]))
    die_px = float(np.linalg.norm(top_c[1] - top_c[2]))
    cam = BoardCamera(np.linalg.inv(board_to_image), size, die_px)
    for x, y in [(0.0, 0.0), (-150.0, 100.0), (120.0, -90.0)]:
        top, bottom = _project(k, rot, t, np.array([[x, y, d], [x, y, 0.0]]))
        got = np.array(cam.down((float(top[0]), float(top[1]))))
        want = bottom - top
        # The die height comes from the calibrated size at the frame centre: a few per cent off.
        assert np.linalg.norm(got - want) <= 0.1 * np.linalg.norm(want) + 0.3, (got, want)


def test_overhead_camera_shows_no_sides_at_the_centre() -> None:
    size = (640, 480)
    k, rot, t = _camera(700.0, 0.0, size)
    cam = BoardCamera(np.linalg.inv(k @ np.stack([rot[:, 0], rot[:, 1], t], axis=1)), size, 20.0)
    dx, dy = cam.down((320.0, 240.0))
    assert math.hypot(dx, dy) < 0.5

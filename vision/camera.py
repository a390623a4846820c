"""Where a die's sides show in the image, from the calibration's board homography (pure numpy).

A die lying flat shows its top face and, because the camera is not exactly overhead, slivers of the side
faces that look away from the camera: the die's vertical edges all point (in the image) towards the
vertical vanishing point, and how long they look depends on the die's height and the camera's distance.
Both follow from the board homography once the camera's focal length is known, and that follows from the
homography too (a pinhole camera with square pixels and the principal point at the frame centre: the
board's two axes must come out perpendicular and equally long). A die that shows a side face where a flat
die cannot (or much wider than a flat die can) is leaning: cocked.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from calibration.model import Calibration, focal_from_hfov

F64 = NDArray[np.float64]


# A camera's horizontal field of view (degrees) where nothing says otherwise: the Raspberry Pi Camera
# Module 2's, the product's camera (webcams and phones: 60-78).
ASSUMED_HFOV = 62.2


def assumed_focal(width: int) -> float:
    """The focal length in pixels of a frame `width` pixels wide taken through a lens of ASSUMED_HFOV."""
    return focal_from_hfov(width, ASSUMED_HFOV)


def _centred(hb: F64, cx: float, cy: float) -> F64:
    a = hb.copy()
    a[0] -= cx * a[2]
    a[1] -= cy * a[2]
    return a


def measured_focal(board_to_image: F64, cx: float, cy: float) -> float | None:
    """The focal length (pixels) of a pinhole camera with square pixels and its principal point at (cx, cy)
    that sees the board plane through `board_to_image`, or None where the homography cannot tell: the board's
    two axes must come out perpendicular, else (where that says nothing) equally long."""
    return _focal(_centred(board_to_image, cx, cy))


def _focal(a: F64) -> float | None:
    """measured_focal of a board -> image map already centred on the principal point."""
    a1, a2 = a[:, 0], a[:, 1]
    f2 = -(a1[0] * a2[0] + a1[1] * a2[1]) / (a1[2] * a2[2]) if abs(a1[2] * a2[2]) > 1e-18 else -1.0
    if not f2 > 0:
        den = a1[2] ** 2 - a2[2] ** 2
        f2 = (a2[0] ** 2 + a2[1] ** 2 - a1[0] ** 2 - a1[1] ** 2) / den if abs(den) > 1e-18 else -1.0
    return math.sqrt(f2) if f2 > 0 else None


class BoardCamera:
    """A pinhole camera posed over the board plane, recovered from an image -> board homography."""

    def __init__(self, image_to_board: F64, frame_wh: tuple[int, int], die_px: float,
                 die_at: tuple[float, float] | None = None, focal_px: float | None = None) -> None:
        """`die_px`: a die's top-face side in pixels where it was measured, `die_at` (default: centre).
        `focal_px`: the lens's focal length in pixels of `frame_wh`, where it is known; else it is measured
        from the homography where the board's perspective tells it, else a usual camera's (ASSUMED_HFOV).
        The lens known wins: near overhead the perspective is a pixel or two over the whole board, and with
        the four calibrated corners off by one pixel the simulated camera's 1,032 px measured 530 (the
        assumed lens) to 23,000 at 0 degrees and 360 to 1,700 at 35 (10th to 90th percentile, 30 throws).

        Straight overhead the board's image has no perspective to measure the focal length by, but the lens
        still has one: a flat die away from the frame's centre shows the sides that face it. Taken as
        unmeasurable (a very long lens, no sides), those sides were a leaning die's (the simulated camera
        overhead: two plain throws of 80 refused as cocked)."""
        hb = np.asarray(np.linalg.inv(image_to_board), np.float64)  # board (x, y, 1) -> image, up to scale
        cx, cy = 0.5 * frame_wh[0], 0.5 * frame_wh[1]
        a = _centred(hb, cx, cy)
        f = focal_px or _focal(a) or assumed_focal(frame_wh[0])
        kinv = np.array([[1 / f, 0, 0], [0, 1 / f, 0], [0, 0, 1.0]])
        r1, r2, t = (kinv @ a[:, i] for i in range(3))
        lam = 1.0 / float(np.linalg.norm(r1))
        r1, r2, t = r1 * lam, r2 * lam, t * lam
        if t[2] < 0:  # the board lies in front of the camera
            r1, r2, t = -r1, -r2, -t
        r3 = np.cross(r1, r2)
        rot = np.stack([r1, r2, r3], axis=1)
        centre = -rot.T @ t
        up = 1.0 if centre[2] > 0 else -1.0  # board z towards the camera
        self._k = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])
        self._rt = (rot, t)
        self._up = up
        self._h = np.asarray(image_to_board, np.float64)
        # The same maps as plain floats for the per-point steps below: a read asks about a few dozen points,
        # three rounds each, and numpy's call overhead on 1x3 arrays was over a millisecond of a read.
        self._hp = tuple(tuple(float(v) for v in row) for row in self._h)
        self._pp = (f, cx, cy, tuple(tuple(float(v) for v in row) for row in rot), tuple(float(v) for v in t))
        # The die's height in board units: its calibrated side where it was measured, times the local
        # board units per pixel there (the top face is a little nearer the camera: a few per cent more).
        self.die_height = die_px * self._scale(die_at if die_at is not None else (cx, cy))

    def _scale(self, xy: tuple[float, float]) -> float:
        p0, p1, p2 = (self.board_point(x, y) for x, y in (xy, (xy[0] + 1.0, xy[1]), (xy[0], xy[1] + 1.0)))
        ux, uy, vx, vy = p1[0] - p0[0], p1[1] - p0[1], p2[0] - p0[0], p2[1] - p0[1]
        return math.sqrt(abs(ux * vy - uy * vx))  # area of the unit pixel on the board

    def board_point(self, x: float, y: float) -> tuple[float, float]:
        """Image point -> board plane."""
        (a, b, c), (d, e, g), (m, n, o) = self._hp
        q = m * x + n * y + o
        return (a * x + b * y + c) / q, (d * x + e * y + g) / q

    def _image_pt(self, x: float, y: float, z: float) -> tuple[float, float]:
        """Board point at height z (board units) -> image pixels (project, for one point)."""
        f, cx, cy, r, t = self._pp
        z *= self._up
        px = r[0][0] * x + r[0][1] * y + r[0][2] * z + t[0]
        py = r[1][0] * x + r[1][1] * y + r[1][2] * z + t[1]
        pz = r[2][0] * x + r[2][1] * y + r[2][2] * z + t[2]
        return f * px / pz + cx, f * py / pz + cy

    def project(self, pts: F64) -> F64:
        """Board points (N, 3): x, y and height above the board, in board units -> image pixels."""
        rot, t = self._rt
        p = np.asarray(pts, np.float64).copy()
        p[:, 2] *= self._up
        cam = p @ rot.T + t
        img = cam @ self._k.T
        return np.asarray(img[:, :2] / img[:, 2:3], np.float64)

    def _under(self, top_xy: tuple[float, float]) -> tuple[float, float]:
        """The board point under a flat die's top face seen at `top_xy`."""
        # The top face lies a die above the board; its image point over the board plane is off by the
        # parallax, so step a few times: find where the top is, then the board point under it.
        seen = self.board_point(float(top_xy[0]), float(top_xy[1]))
        x, y = seen
        d = self.die_height
        for _ in range(3):
            top = self.board_point(*self._image_pt(x, y, d))
            x, y = x + seen[0] - top[0], y + seen[1] - top[1]
        return x, y

    def down(self, top_xy: tuple[float, float]) -> tuple[float, float]:
        """Image vector from a flat die's top-face centre to its bottom-face centre (the sides' extent)."""
        x, y = self._under(top_xy)
        top, bottom = self._image_pt(x, y, self.die_height), self._image_pt(x, y, 0.0)
        return bottom[0] - top[0], bottom[1] - top[1]

    def level(self, top_xy: tuple[float, float]) -> F64:
        """The 2x2 map taking image offsets on a flat die's top face at `top_xy` to the face seen from
        straight above (determinant 1: it undoes the perspective's squash and shear, not the scale).

        A flat die's pip grid seen obliquely is squashed along the line of sight; a leaning die's is
        squashed further, across its tilt. Measured after this map, only the lean is left."""
        x, y = self._under(top_xy)
        d, e = self.die_height, 0.05 * self.die_height
        a0, a1, a2 = self._image_pt(x, y, d), self._image_pt(x + e, y, d), self._image_pt(x, y + e, d)
        # board step -> image step, [[j00, j01], [j10, j11]]; its inverse scaled to determinant 1
        j00, j01 = (a1[0] - a0[0]) / e, (a2[0] - a0[0]) / e
        j10, j11 = (a1[1] - a0[1]) / e, (a2[1] - a0[1]) / e
        det = j00 * j11 - j01 * j10
        k = math.copysign(1.0, det) / math.sqrt(abs(det))
        return np.array([[j11 * k, -j01 * k], [-j10 * k, j00 * k]], np.float64)


def camera_of(calibration: Calibration, frame_wh: tuple[int, int], die: float) -> BoardCamera:
    """The board camera of a calibration with a homography, for frames of `frame_wh` with dice of `die` px."""
    assert calibration.homography is not None
    # (As tuples: a calibration built by hand may hold lists, which the cache cannot key on.)
    return board_camera(tuple(tuple(r) for r in calibration.homography), tuple(calibration.image_size),
                        tuple(tuple(p) for p in calibration.board_polygon), frame_wh, die, calibration.focal_px)


@lru_cache(maxsize=8)
def board_camera(homography: tuple[tuple[float, float, float], ...], cal_wh: tuple[int, int],
                 board_polygon: tuple[tuple[float, float], ...], frame_wh: tuple[int, int], die: float,
                 focal_px: float | None = None) -> BoardCamera:
    """The camera posed over the board, for frames of `frame_wh` (a table's frames all share one: kept).
    `focal_px`: the lens's focal length in the calibration's pixels, where the calibration knows it."""
    (cw, ch), (w, h) = cal_wh, frame_wh
    # The homography is for the calibration's frame size: rescale this frame's pixels to it first.
    to_cal = np.diag([cw / w if cw else 1.0, ch / h if ch else 1.0, 1.0])
    board = np.array(board_polygon, np.float64) * np.array([w / cw if cw else 1.0, h / ch if ch else 1.0])
    # The calibrated die size is the one at the board's centre (calibration.model).
    centre = (float(board[:, 0].mean()), float(board[:, 1].mean()))
    return BoardCamera(np.array(homography, np.float64) @ to_cal, (w, h), die, centre,
                       focal_px * w / cw if focal_px and cw else None)

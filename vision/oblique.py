"""A camera that looks at the board from the side: its frame is read as if seen from straight above.

The reader's passes look for square top faces: a 3x3 grid of pips, its empty cells, a lattice over the face,
a rim at the face's size (vision/darkpips.py), die-sized bodies (vision/bodies.py). Seen from the side, a flat
die's top face is squashed along the line of sight (to cos 40 = 0.77 with the camera 40 degrees off
vertical) and its side face facing the camera shows as large as half the top face or more. Those checks then
refuse flat dice (the simulated camera tilted 40 degrees: 13 of 15 plain throws refused calibrated), and at
50 degrees a side face's lone pip was read as a die of its own (a wrong `ok`).

With the board's homography the camera is known (vision/camera.py), so the plane in which the dice's top
faces lie (one die above the board) can be mapped to a view from straight above: a homography of that plane,
at READ_DIE pixels a die. Read there, every flat die's top face is a square of one known size wherever it
lies on the board; what stays of the slant is the side faces, drawn longer the further the view is from
vertical, and a flat die's side faces show only away from the point under the camera, as `down` says (taken
from the camera, through the map). The dice found are mapped back to the frame's pixels.

Only frames whose view is far from vertical are read so (RECTIFY_BELOW): near overhead, the reader reads the
frame as taken, as it was developed and measured.

Pure: arrays and values in, values out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.model import Calibration
from vision.camera import BoardCamera
from vision.change import Box
from vision.reading import DiceReading, Die
from vision.scale import READ_DIE

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# A flat die's top face at the board's centre squashed under this (its short side over its long one, as the
# camera sees it) has the frame read rectified: about 26 degrees off vertical. The simulated camera (18
# degrees, 0.95) and the development photos are read as taken.
RECTIFY_BELOW = 0.9
# The rectified view covers the board (or tray) and this many dice around it, so that a die off the board
# near it is still seen (and refused as off the board); a die further out is not seen at all.
MARGIN_DICE = 3.0
# ... and at most this many pixels a side (a view nearly along the board would map the far side very large).
MAX_SIDE = 1600


class Levels(Protocol):
    def level(self, top_xy: tuple[float, float]) -> F64: ...


def squash_at(cam: Levels, xy: tuple[float, float]) -> float:
    """How squashed a flat die's top face at image point `xy` looks: its short side over its long one."""
    s = np.linalg.svd(cam.level(xy), compute_uv=False)
    return float(s[1] / s[0])


@dataclass(frozen=True)
class Rectified:
    """A view from straight above of the plane of the dice's top faces, and the maps to and from it."""

    to_work: F64  # frame pixels -> work pixels (3x3)
    size: tuple[int, int]  # the work frame's width and height
    calibration: Calibration  # the table's calibration in work pixels (no homography: `camera` stands in)
    camera: WarpedCamera

    def work(self, frame: U8) -> U8:
        return np.asarray(cv2.warpPerspective(frame, self.to_work, self.size, flags=cv2.INTER_LINEAR,
                                              borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)

    def work_within(self, frame: U8, boxes: Sequence[Box], pad: float) -> U8:
        """`frame` in work pixels within each of `boxes` (work pixels) grown by `pad` pixels, black (not known)
        elsewhere: the table before a throw read only where it changed, at the cost of those pixels (the whole
        warp is 2.7 ms of a 15 ms read, 40 degrees off vertical)."""
        w, h = self.size
        out = np.zeros((h, w, 3), np.uint8)
        for bx0, by0, bx1, by1 in boxes:
            x0, y0 = max(0, int(bx0 - pad)), max(0, int(by0 - pad))
            x1, y1 = min(w, int(bx1 + pad) + 1), min(h, int(by1 + pad) + 1)
            if x1 > x0 and y1 > y0:
                shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]]) @ self.to_work
                out[y0:y1, x0:x1] = cv2.warpPerspective(frame, shift, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                                        borderMode=cv2.BORDER_REPLICATE)
        return out

    def boxes(self, boxes: Sequence[Box]) -> tuple[Box, ...]:
        """Boxes of the frame in work pixels (each box's corners mapped, and the box around them), clipped;
        boxes wholly outside the work frame are left out."""
        w, h = self.size
        out: list[Box] = []
        for x0, y0, x1, y1 in boxes:
            pts = mapped(self.to_work, np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64))
            bx0, by0 = max(0, int(np.floor(pts[:, 0].min()))), max(0, int(np.floor(pts[:, 1].min())))
            bx1, by1 = min(w, int(np.ceil(pts[:, 0].max()))), min(h, int(np.ceil(pts[:, 1].max())))
            if bx1 > bx0 and by1 > by0:
                out.append((bx0, by0, bx1, by1))
        return tuple(out)

    def restored(self, reading: DiceReading) -> DiceReading:
        """A reading of the work frame in the frame's own pixels."""
        return mapped_back(reading, self.camera.back)


class WarpedCamera:
    """The board camera's `down` and `level` asked about points of the work frame."""

    def __init__(self, cam: BoardCamera, to_work: F64) -> None:
        self.cam, self.to_work, self.back = cam, to_work, inverse(to_work)

    def down(self, xy: tuple[float, float]) -> tuple[float, float]:
        """Work-frame vector from a flat die's top-face centre at `xy` to its bottom-face centre."""
        (tx, ty), = mapped(self.back, np.array([xy], np.float64))
        dx, dy = self.cam.down((float(tx), float(ty)))
        (bx, by), = mapped(self.to_work, np.array([(tx + dx, ty + dy)], np.float64))
        return float(bx - xy[0]), float(by - xy[1])

    def level(self, xy: tuple[float, float]) -> F64:
        """The 2x2 map from work-frame offsets on a flat die's top face at `xy` to the face seen from above
        (determinant 1): the frame's own map after the work frame's back to the frame."""
        (tx, ty), = mapped(self.back, np.array([xy], np.float64))
        m = np.asarray(self.cam.level((float(tx), float(ty))) @ _jacobian(self.back, xy), np.float64)
        det = float(np.linalg.det(m))
        return np.asarray(m * (math.copysign(1.0, det) / math.sqrt(abs(det))), np.float64)


def rectified(calibration: Calibration, cam: BoardCamera, frame_wh: tuple[int, int]) -> Rectified | None:
    """The view from above to read a frame of `frame_wh` in, or None where the camera looks nearly straight
    down at the board's centre (RECTIFY_BELOW) and the frame is read as taken."""
    cw, ch = calibration.image_size
    sx, sy = (frame_wh[0] / cw if cw else 1.0), (frame_wh[1] / ch if ch else 1.0)

    def in_frame(poly: Sequence[tuple[float, float]]) -> Poly:
        return tuple((float(x) * sx, float(y) * sy) for x, y in poly)

    board = in_frame(calibration.board_polygon)
    centre = (sum(x for x, _ in board) / len(board), sum(y for _, y in board) / len(board))
    if squash_at(cam, centre) >= RECTIFY_BELOW:
        return None
    tray = in_frame(calibration.tray_polygon) if calibration.tray_polygon else None
    return _rectified(cam, frame_wh, board, tray, calibration.die_color_bgr, calibration.pip_color_bgr,
                      calibration.source)


Poly = tuple[tuple[float, float], ...]
BGR = tuple[int, int, int]


@lru_cache(maxsize=8)
def _rectified(cam: BoardCamera, frame_wh: tuple[int, int], board: Poly, tray: Poly | None, die_bgr: BGR | None,
               pip_bgr: BGR | None, source: str) -> Rectified:
    """(Polygons in the frame's pixels; the camera is the reader's, one per calibration and frame size.)"""
    w, h = frame_wh
    # Board units (the homography's) at the dice's top faces -> frame pixels, and its inverse.
    d = cam.die_height
    unit = np.array([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)], np.float64)
    corners = np.array([cam.board_point(x, y) for x, y in board], np.float64)  # board units
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    src = lo + unit * (hi - lo)
    top_img = cam.project(np.column_stack([src, np.full(4, d)]))
    board_to_img = np.asarray(cv2.getPerspectiveTransform(src.astype(np.float32), top_img.astype(np.float32)),
                              np.float64)
    margin = MARGIN_DICE * d
    x0, y0 = (float(v) for v in lo - margin)
    x1, y1 = (float(v) for v in hi + margin)
    # Only as far as the frame sees (the part of the plane behind the camera's view is not in the frame).
    frame_corners = np.array([(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)], np.float64)
    seen = mapped(inverse(board_to_img), frame_corners)
    if np.all(np.isfinite(seen)):
        x0, y0 = max(x0, float(seen[:, 0].min())), max(y0, float(seen[:, 1].min()))
        x1, y1 = min(x1, float(seen[:, 0].max())), min(y1, float(seen[:, 1].max()))
    # Work pixels per board unit: a die READ_DIE across, within MAX_SIDE.
    scale = min(READ_DIE / d, MAX_SIDE / max(x1 - x0, y1 - y0, 1e-9))
    to_board = np.array([[1 / scale, 0.0, x0], [0.0, 1 / scale, y0], [0.0, 0.0, 1.0]])
    to_work = inverse(board_to_img @ to_board)
    size = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))

    def in_work(poly: Poly) -> Poly:
        return tuple((float(x), float(y)) for x, y in mapped(to_work, np.array(poly, np.float64)))

    work_cal = Calibration(image_size=size, board_polygon=in_work(board),
                           tray_polygon=in_work(tray) if tray else None, homography=None,
                           die_size_px=d * scale, die_color_bgr=die_bgr, pip_color_bgr=pip_bgr, source=source)
    return Rectified(to_work, size, work_cal, WarpedCamera(cam, to_work))


def mapped_back(reading: DiceReading, back: F64) -> DiceReading:
    """A reading of a work frame in the frame's own pixels, `back` the homography from the work frame's pixels
    to the frame's (a die's size as the frame shows its area)."""
    def one(d: Die) -> Die:
        (cx, cy), = mapped(back, np.array([d.center], np.float64))
        corners = tuple((float(x), float(y)) for x, y in mapped(back, np.array(d.corners, np.float64))) \
            if d.corners else ()
        return replace(d, center=(float(cx), float(cy)), size=d.size * linear_scale(back, d.center),
                       corners=corners)

    return replace(reading, dice=tuple(one(d) for d in reading.dice))


def inverse(m: F64) -> F64:
    return np.asarray(np.linalg.inv(m), np.float64)


def mapped(m: F64, pts: F64) -> F64:
    """Points (N, 2) mapped by the homography `m`."""
    return np.asarray(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), m), np.float64).reshape(-1, 2)


def _jacobian(m: F64, xy: tuple[float, float]) -> F64:
    """The 2x2 derivative of the homography `m` at `xy`."""
    x, y = xy
    q = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    u = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / q
    v = (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / q
    return np.array([[(m[0, 0] - u * m[2, 0]) / q, (m[0, 1] - u * m[2, 1]) / q],
                     [(m[1, 0] - v * m[2, 0]) / q, (m[1, 1] - v * m[2, 1]) / q]], np.float64)


def linear_scale(m: F64, xy: tuple[float, float]) -> float:
    return math.sqrt(abs(float(np.linalg.det(_jacobian(m, xy)))))

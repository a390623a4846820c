"""A face the pips-first passes read (vision/darkpips.py), and the camera's view at a point of the frame.

Pure values; shared by the passes and their lean checks (vision/lean.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.rim import CLEAR

F64 = NDArray[np.float64]

# A face's side over its pitch g: the outer pips of standard dice sit ~0.27 of the side from the centre
# (3.7 g), the simulated camera's at 0.25 (4.0 g).
SIDE_PER_G = 3.85

Down = Callable[[tuple[float, float]], tuple[float, float]]
Level = Callable[[tuple[float, float]], F64]


@dataclass(frozen=True)
class LightFace:
    """One face read (value) or refused (value None, reason) in frame pixels."""

    value: int | None
    centre: tuple[float, float]
    g: float  # pitch, pixels
    theta: float  # grid orientation, radians
    confidence: float
    reason: str
    pips: tuple[tuple[float, float], ...]

    @property
    def side(self) -> float:
        return SIDE_PER_G * self.g


def clear_points(f: LightFace) -> F64:
    """The face's points between its pip cells (rim.CLEAR), in frame pixels."""
    cth, sth = np.cos(f.theta), np.sin(f.theta)
    return np.asarray(np.array(f.centre) + (CLEAR * f.g) @ np.array([[cth, sth], [-sth, cth]]), np.float64)


def square_corners(centre: tuple[float, float], side: float, turn: float) -> F64:
    """The corners (frame pixels, in order round it) of a square face of `side` at `centre`, turned by `turn`."""
    c, s = math.cos(turn), math.sin(turn)
    return np.asarray(np.array(centre) + (0.5 * side) * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) @ np.array(
        [[c, s], [-s, c]]), np.float64)


def outside(pts: F64, hull: F64) -> F64:
    """Each point's distance (pixels) outside the convex polygon `hull` (0 inside it)."""
    a = hull
    e = np.concatenate([hull[1:], hull[:1]]) - a  # (m, 2) edges
    rel = pts[:, None, :] - a[None, :, :]  # (n, m, 2)
    along = rel[..., 0] * e[None, :, 0] + rel[..., 1] * e[None, :, 1]  # ((rel * e).sum(axis=2), elementwise)
    t = np.clip(along / np.maximum((e * e).sum(axis=1), 1e-12)[None], 0.0, 1.0)
    d = np.hypot(rel[..., 0] - t * e[None, :, 0], rel[..., 1] - t * e[None, :, 1]).min(axis=1)
    cross = e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]
    inside = (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)
    return np.asarray(np.where(inside, 0.0, d), np.float64)

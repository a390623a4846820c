"""A face the pips-first passes read (vision/darkpips.py), and the camera's view at a point of the frame.

Pure values; shared by the passes and their lean checks (vision/lean.py).
"""

from __future__ import annotations

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

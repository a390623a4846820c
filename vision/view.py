"""A photo taken at a slant, without a calibration: its dice's own pips say how the view squashes the table.

The reader looks for square top faces with round pips (vision/darkpips.py: a 3x3 grid, its skew at most
MAX_SKEW; vision/pipshape.py: pips no more squashed than 0.8). A phone held over a table at 35 degrees from
vertical squashes every flat die's top face, and every pip on it, to about cos 35 = 0.82 along the line of
sight; at 45 degrees to 0.71. Those checks then refuse flat dice as leaning ones, and grids too squashed are
not proposed at all: the Byler photos seen so (tests/vision/camera_looks.py, "seen at 35 / 45 degrees")
read 72.6% / 38.8% of their dice, against 91.8% as taken. Calibrated, the camera is known and the frame is
read from above (vision/oblique.py); a photo has no calibration.

A leaning die's face is squashed too, but its own way; a view squashes every die on the table the same way
(nearly: the far side more than the near one). So where the pips of three dice or more (vision/pipshape.py
pip_moments, dark pips on a light face or light pips on a dark one) agree on a shared squash along a shared
direction, and that direction is the frame's vertical (a camera pitched towards the table), that is taken
for the view's: the frame is stretched back along it (an affine map, so each die keeps its size across the
line of sight) and read again. The second read is taken only where it reads more dice, every die the first
read having the same value there (see reread): it must explain the first read, not overrule it.

Dice leaning alike look like a view to their pips. Two dice never make one (a throw of two stays as read), a
die with round pips does not bear one out (a leaning die beside flat ones stays refused), and dice squashed
across the frame lean alike rather than show a view; three dice or more leaning alike up and down the frame
are still taken for one (docs/vision.md, Known limits).

Pure: arrays and values in, values out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.oblique import MAX_SIDE, RECTIFY_BELOW, inverse, mapped, mapped_back
from vision.pipshape import LIGHT, pip_moments, squash_of
from vision.reading import DiceReading, Die, UnsureDie, Verdict

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# A die's pips count towards the view only where this many or more were measured: a lone pip's shape is a
# chip's or a glare's as much as the view's.
MIN_PIPS = 2
# ... and only dice squashed no further than this: a face seen at over 60 degrees is not read at all, and
# the flat coloured dice of the Byler photos measure down to 0.15 where glare or marbling joins a pip
# (vision/pipshape.py).
LEAST_SQUASH = 0.5
# Dice whose squash runs along directions this far apart (degrees) do not agree on a view.
AXIS_TOLERANCE = 20.0
# ... and a view's squash runs within this many degrees of the frame's vertical (see view_of).
PITCH_TOLERANCE = 30.0
# At least this many dice must agree, and at least half of those measured.
MIN_DICE = 3
# The pips are looked for over this many die sides around a die's centre (vision/pipshape.py takes those in
# the middle 0.8 of it): a die the first read refused was placed and sized by whatever it saw, and on a
# squashed face that is often a few pixels off and a fifth small.
WINDOW = 1.5


@dataclass(frozen=True)
class View:
    """How the camera squashes the table: flat dice's pips `squash` as wide as long, along the image
    direction `axis` (radians), as `dice` dice agree."""

    squash: float
    axis: float
    dice: int


def view_of(frame: U8, dice: Sequence[Die]) -> View | None:
    """The view the pips of `dice` (dice read or found in `frame`) agree on, or None where fewer than
    MIN_DICE (or fewer than half of those measured) agree, or they agree on a direction other than the
    frame's vertical (PITCH_TOLERANCE). A die found with no pips seen (UnsureDie) says nothing of it."""
    dice = [d for d in dice if not isinstance(d, UnsureDie)]
    if len(dice) < MIN_DICE:
        return None  # (too few to agree, whatever their pips: not measured)
    sizes = [d.size for d in dice if d.size]
    unit = float(np.median(sizes)) if sizes else 0.0
    shapes: list[F64] = []
    seen: list[Die] = []
    for d in dice:
        side = WINDOW * max(d.size, unit)
        if side <= 0 or any(math.dist(d.center, e.center) < max(d.size, e.size, unit) for e in seen):
            continue  # a die found twice (a side face cut off as a die of its own) has one view of its pips
        seen.append(d)
        m = pip_moments(frame, d.center, side, 0.0)
        if m.body < LIGHT:
            m = pip_moments(frame, d.center, side, 0.0, light=True)
        if m.count >= MIN_PIPS:
            shapes.append(m.shape)
    if len(shapes) < MIN_DICE:
        return None
    squash = np.array([squash_of(s) for s in shapes])
    axis = np.array([_minor_axis(s) for s in shapes])
    # The shared direction: the mean of the doubled angles (an axis is a direction up to a half turn), each
    # die weighted by how squashed it is (a round pip's axis is noise).
    mean = 0.5 * float(np.angle(np.sum((1.0 - squash) * np.exp(2j * axis))))
    off = np.abs((axis - mean + 0.5 * np.pi) % np.pi - 0.5 * np.pi)
    # A die whose pips are round (RECTIFY_BELOW or rounder) does not bear a view out: a leaning die beside a
    # flat one must not pass for a view that squashes both.
    agree = (off < np.radians(AXIS_TOLERANCE)) & (squash >= LEAST_SQUASH) & (squash < RECTIFY_BELOW)
    n = int(agree.sum())
    if n < MIN_DICE or 2 * n < len(shapes):
        return None
    shared = np.mean([s for s, a in zip(shapes, agree, strict=True) if a], axis=0)
    view = View(squash_of(shared), _minor_axis(shared), n)
    # A camera held over a table is pitched towards it, not rolled: the line of sight runs up the frame, and
    # the view squashes along the frame's vertical. Dice that agree on another direction lean alike.
    if abs(math.cos(view.axis)) > math.sin(math.radians(PITCH_TOLERANCE)):
        return None
    return view


def _minor_axis(shape: F64) -> float:
    """The direction (radians) of a pip shape's minor axis: the direction it is squashed along."""
    _, vecs = np.linalg.eigh(shape)
    return float(math.atan2(vecs[1, 0], vecs[0, 0]))


def stretch(view: View, w: int, h: int) -> tuple[F64, tuple[int, int]]:
    """The map (3x3) from a frame of w x h to one with `view`'s squash undone (stretched by 1 / squash along
    its axis, within MAX_SIDE a side), and that frame's size."""
    u = np.array([math.cos(view.axis), math.sin(view.axis)])
    a = np.eye(3)
    a[:2, :2] += (1.0 / view.squash - 1.0) * np.outer(u, u)
    corners = mapped(a, np.array([(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)], np.float64))
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    k = min(1.0, MAX_SIDE / float(max(hi - lo)))
    to_work = np.array([[k, 0.0, -k * lo[0]], [0.0, k, -k * lo[1]], [0.0, 0.0, 1.0]]) @ a
    size = (max(1, math.ceil(k * (hi[0] - lo[0]))), max(1, math.ceil(k * (hi[1] - lo[1]))))
    return np.asarray(to_work, np.float64), size


def restored(reading: DiceReading, to_work: F64) -> DiceReading:
    """A reading of the stretched frame in the frame's own pixels (a die's size as the frame shows its area)."""
    return mapped_back(reading, inverse(to_work))


def reread(frame: U8, reading: DiceReading, read: Callable[[U8], DiceReading], min_confidence: float) -> DiceReading:
    """`reading` (of `frame`, uncalibrated), or the frame read again (`read`) with the view its dice agree on
    undone, where the throw was not read whole (`ok`) and the view squashes flat dice under RECTIFY_BELOW.

    The second read is taken only where it reads more dice with `min_confidence` than the first, and reads
    each such die of the first read with the same value where it lies (within half a side): it must account
    for what the first read found. Its own refusals (a die leaning against the view's squash, stacked dice)
    are its checks' on a frame in which flat dice look square again."""
    if reading.verdict is Verdict.OK:
        return reading
    view = view_of(frame, reading.dice)
    if view is None or view.squash >= RECTIFY_BELOW:
        return reading
    h, w = frame.shape[:2]
    to_work, size = stretch(view, w, h)
    work = np.asarray(cv2.warpAffine(frame, to_work[:2], size, flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)
    second = restored(read(work), to_work)
    first = [d for d in reading.dice if d.value is not None and d.confidence >= min_confidence]
    more = [d for d in second.dice if d.value is not None and d.confidence >= min_confidence]
    if len(more) <= len(first):
        return reading
    if not all(any(e.value == d.value and math.dist(e.center, d.center) < 0.5 * max(d.size, e.size) for e in more)
               for d in first):
        return reading
    return second

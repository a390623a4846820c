"""The scale a frame is read at: large dice are read shrunk to the size the reader works best at.

Every threshold of the reader derives from the die size, so it reads a die of any size in principle; but its
kernels grow with the die (a black-hat a pip wide, a background median three dice wide), so its time grows
with the die's area, and its passes were developed and measured on dice of 29-47 px (the Byler photos, each
photo's die as segment() measures it, 1st percentile to largest). A phone's photo of a table holds dice of
150-300 px: read as they are, a Byler photo enlarged five times (3200 px square, dice ~200 px) took 14 s and
read 14 of its 22 dice, against 21 as taken. A frame whose dice measure more than SHRINK_ABOVE is therefore
read shrunk (INTER_AREA, which averages, so nothing aliases) until a die measures READ_DIE, and the dice found
are mapped back to its pixels.

Pure: arrays and values in, values out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bodies import rough_die_size
from vision.change import Box
from vision.reading import DiceReading, Die

U8 = NDArray[np.uint8]

# The die size a shrunk frame is read at, as segment() measures a die (the root of its blob's area: about the
# die's side, as a calibration's die size is; the photos' labelled boxes, upright around dice at any angle,
# are 10-20% larger): the Byler photos' median die, 35-36 px (29-47 px from the 1st percentile to the largest,
# by rough_die_size), where the reader's figures were measured.
READ_DIE = 36.0
# Dice larger than this are read shrunk to READ_DIE: half as large again, above the largest die of the
# development photos, so that those are read as taken.
SHRINK_ABOVE = 1.5 * READ_DIE
# Without a calibration the die is measured on a copy shrunk so that a die of SHRINK_ABOVE measures this
# much: large enough for segment's measure (it keeps compact blobs of a ninth of the guessed die's area or
# more); a 640x480 frame is measured at 237x178, in 1.7 ms (vision/bodies.py, rough_die_size).
MEASURE_AT = 20.0


def frame_die(frame: U8, die: float | None) -> float | None:
    """The die size of `frame` in pixels: `die` (calibrated) where given, else measured here (None: no
    die-like blob to measure)."""
    return die if die is not None else rough_die_size(frame, SHRINK_ABOVE / MEASURE_AT)


def reading_scale(frame: U8, die: float | None) -> float:
    """The factor (at most 1) to read `frame` at, for dice of `die` pixels (None: measure them here)."""
    return scale_for(frame_die(frame, die))


def scale_for(die: float | None) -> float:
    """The factor (at most 1) to read a frame at whose dice measure `die` pixels (None: unknown)."""
    if die is None or die <= SHRINK_ABOVE:
        return 1.0
    return READ_DIE / die


def shrunk(frame: U8, scale: float) -> tuple[U8, float, float]:
    """`frame` resized by `scale`, and the factors (x, y) it was resized by after rounding to whole pixels."""
    h, w = frame.shape[:2]
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    small = np.asarray(cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA), dtype=np.uint8)
    return small, sw / w, sh / h


def shrunk_boxes(boxes: Sequence[Box], fx: float, fy: float, size: tuple[int, int]) -> tuple[Box, ...]:
    """Boxes of the full frame in the shrunk frame's pixels (`size`: its width and height), grown outward
    to whole pixels so that nothing inside a box is lost."""
    w, h = size
    return tuple((max(0, int(np.floor(x0 * fx))), max(0, int(np.floor(y0 * fy))),
                  min(w, int(np.ceil(x1 * fx))), min(h, int(np.ceil(y1 * fy)))) for x0, y0, x1, y1 in boxes)


def enlarged(reading: DiceReading, fx: float, fy: float) -> DiceReading:
    """A reading of a frame shrunk by (fx, fy), in the full frame's pixels."""
    def back(d: Die) -> Die:
        return replace(d, center=(d.center[0] / fx, d.center[1] / fy), size=d.size / (0.5 * (fx + fy)),
                       corners=tuple((x / fx, y / fy) for x, y in d.corners))

    return replace(reading, dice=tuple(back(d) for d in reading.dice))

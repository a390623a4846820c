"""The table's dice as calibration saw them: what a die of this table looks like, to pass over what is not one.

Pure: a Calibration in, a frozen value out; the test takes a frame and a place. Calibration samples the body
and pip colours from the dice of a calibration throw (calibration.fit.sample_die_appearance). With them, a
calibrated read knows two things an uncalibrated one must try out:

- which way the pips stand out: dark pips on a light die (the usual white dice) are found by the grey
  pass alone, and the passes for light pips (the inverted grey, red and green planes) and the colour
  reader's top-hat maps can find only something else;
- what colour a die's body is: a die-sized body on the board with hardly any of that colour in it (a
  board's red letters, its green squares, a black token, a hotel) is not one of this table's dice, and is
  not read (the body-first pass reads every die-sized region of the board, which is most of a read's time
  where the throw is not two plain dice).

Only calibrated reads have a look; an uncalibrated read (the Byler photos, `tableside read` without
`--calibration`) tries every plane and reads every body, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.model import Calibration

U8 = NDArray[np.uint8]

# Body and pip colours (8-bit Lab distance) must differ by this much for the look to be used. A body is the
# table's die's colour within half that distance of it, which is all the room left for the light to change
# since calibration (a lamp switched on, a cloud): under 40 levels a die could drift out of its own colour,
# and the reader goes on as uncalibrated for the colour. Sampled from single Byler dice (fit's sampler on
# 0.7 of each labelled box): white dice and their pips differ by 164 (median; 5% under 82), coloured 86,
# dark 97; the simulated camera's white dice by 210.
MIN_CONTRAST = 80.0
# The least share of a die's top face that must show the die's colour for a body to be one of this table's
# dice: a flat die shows all of it but its pips (a 6's pips are about a fifth), a leaning one most of a
# face; less than a quarter is a die mostly hidden, which the reader could not read anyway.
DIE_SHARE = 0.25


def _lab(bgr: tuple[int, int, int]) -> NDArray[np.float32]:
    px = np.array([[bgr]], np.uint8)
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0], np.float32)


@lru_cache(maxsize=16)
def _look(body_bgr: tuple[int, int, int], pip_bgr: tuple[int, int, int]) -> tuple[tuple[float, float, float],
                                                                               tuple[float, float, float]] | None:
    """DieLook.of's colours in Lab, or None when too alike (kept: every read of a table asks again)."""
    body, pips = _lab(body_bgr), _lab(pip_bgr)
    if float(np.linalg.norm(body - pips)) < MIN_CONTRAST:
        return None
    return (float(body[0]), float(body[1]), float(body[2])), (float(pips[0]), float(pips[1]), float(pips[2]))


@dataclass(frozen=True)
class DieLook:
    """The calibrated colours of a die's body and its pips, in 8-bit Lab (OpenCV's scaling)."""

    body: tuple[float, float, float]
    pips: tuple[float, float, float]

    @classmethod
    def of(cls, cal: Calibration | None) -> DieLook | None:
        """The look a calibration measured, or None where it measured none (or nothing usable)."""
        if cal is None or cal.die_color_bgr is None or cal.pip_color_bgr is None:
            return None
        # (As tuples of ints: a calibration built by hand may hold lists, which the cache cannot key on.)
        (b1, g1, r1), (b2, g2, r2) = cal.die_color_bgr, cal.pip_color_bgr
        look = _look((int(b1), int(g1), int(r1)), (int(b2), int(g2), int(r2)))
        return None if look is None else cls(*look)

    @property
    def dark_pips(self) -> bool:
        """Pips darker than the body (white dice with black pips, and the like)."""
        return self.pips[0] < self.body[0]

    def unlike(self, bgr: U8, centre: tuple[float, float], side: float, die: float) -> bool:
        """Whether the body of side `side` (pixels) at `centre` is not one of this table's dice: less than
        a quarter of a die's top face (`die` pixels a side) within it has the die's colour, taken as
        anything nearer the body's colour than halfway to the pips' (that midpoint is the only line drawn).

        Counted over the whole body, not sampled at its middle: a body's centre is off its top face where
        a shadow, a side face (a leaning die) or a second die (a stacked pair) is part of it."""
        h, w = bgr.shape[:2]
        r = max(1, round(0.5 * side))
        x, y = round(centre[0]), round(centre[1])
        x0, x1, y0, y1 = max(0, x - r), min(w, x + r + 1), max(0, y - r), min(h, y + r + 1)
        if x1 <= x0 or y1 <= y0:
            return True  # nothing of it in the frame
        patch = bgr[y0:y1, x0:x1]
        lab = np.asarray(cv2.cvtColor(np.ascontiguousarray(patch), cv2.COLOR_BGR2LAB), np.float32).reshape(-1, 3)
        body, pips = np.array(self.body, np.float32), np.array(self.pips, np.float32)
        near = np.linalg.norm(lab - body, axis=1) <= 0.5 * float(np.linalg.norm(body - pips))
        return int(np.count_nonzero(near)) < DIE_SHARE * die * die

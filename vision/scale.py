"""The scale a frame is read at: dice far from the size the reader works best at are read resized to it.

Every threshold of the reader derives from the die size, so it reads a die of any size in principle; but its
kernels grow with the die (a black-hat a pip wide, a background median three dice wide), so its time grows
with the die's area, and its passes were developed and measured on dice of 29-47 px (the Byler photos, each
photo's die as segment() measures it, 1st percentile to largest). A phone's photo of a table holds dice of
150-300 px: read as they are, a Byler photo enlarged five times (3200 px square, dice ~200 px) took 14 s and
read 14 of its 22 dice, against 21 as taken. A frame whose dice measure more than SHRINK_ABOVE is therefore
read shrunk (INTER_AREA, which averages, so nothing aliases) until a die measures READ_DIE, and the dice found
are mapped back to its pixels. A calibrated frame is read shrunk as soon as its dice are larger than READ_DIE
(CALIBRATED_SHRINK_ABOVE), where the calibration has the board's homography.

Small dice are the other way round: below the development photos' smallest, a 6's pips (3 px across, 1-2 px
apart on a 20 px face) run together under the pip finder's smoothing and its 5 px local-maximum test, which
no threshold derived from the die can undo. A frame whose dice measure under ENLARGE_BELOW is read enlarged
(bicubic) to READ_DIE; uncalibrated, only where the faces read in it as taken agree (FACE_BELOW). The Byler
photos at 0.7x (tests/vision/camera_looks.py, dice of 22-31 px) and the simulated camera at 0.62x (dice of
19 px) read more dice, and refuse the cocked throws they accepted as taken: docs/vision.md, "Small dice".

Pure: arrays and values in, values out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.bodies import close_up_die_size, far_from, rough_die_size
from vision.change import Box
from vision.darkpips import light_pass
from vision.lightface import SIDE_PER_G
from vision.reading import DiceReading, Die
from vision.spots import PIP_D_PER_G, frame_pip_d

U8 = NDArray[np.uint8]

# The die size a shrunk frame is read at, as segment() measures a die (the root of its blob's area: about the
# die's side, as a calibration's die size is; the photos' labelled boxes, upright around dice at any angle,
# are 10-20% larger): the Byler photos' median die, 35-36 px (29-47 px from the 1st percentile to the largest,
# by rough_die_size), where the reader's figures were measured.
READ_DIE = 36.0
# Dice larger than this are read shrunk to READ_DIE: half as large again, above the largest die of the
# development photos, so that those are read as taken.
SHRINK_ABOVE = 1.5 * READ_DIE
# ... but a die calibrated with the board's homography, larger than READ_DIE, is read shrunk to it. The checks only
# such a read makes (a leaning die's side faces where the camera shows them, the pips new since the table before)
# were developed on the simulated camera's 31 px dice and the Pi unit's 26 px (read enlarged to 36 px), and larger
# dice were read worse: the simulated camera's plain throws at 832x624 to 1104x828 (white dice of 40-54 px, seeds
# 0-59, where the table changed, with the table before) were right 57 / 55 / 51 / 55 of 60, and 76 of 80 at 960x720
# (47 px), refused for a side face, a slant, pips off centre or the net's doubt; read shrunk to 36 px, 60 of 60 at
# each size and 80 of 80, their cocked throws refused as before (docs/vision.md, "Calibrated dice over the working
# size, read shrunk"). A calibration with a die size and no homography makes none of those checks and reads as an
# uncalibrated frame's dice up to SHRINK_ABOVE: read shrunk, bench/refusals.py's leaning faces of 40 px (squashed
# 0.6-0.8, a board of die size only) were `ok` 86 times of 216 against 83.
CALIBRATED_SHRINK_ABOVE = READ_DIE
# Without a calibration the die is measured on a copy shrunk so that a die of SHRINK_ABOVE measures this
# much: large enough for segment's measure (it keeps compact blobs of a ninth of the guessed die's area or
# more); a 640x480 frame is measured at 237x178, in 1.7 ms (vision/bodies.py, rough_die_size).
MEASURE_AT = 20.0
# Dice measured under this are read enlarged to READ_DIE: the development photos' smallest (1st percentile).
ENLARGE_BELOW = 29.0
# ... but at most this many times (four times the pixels). A die measured in the frame under READ_DIE /
# MAX_ENLARGE (18 px, 7 px on the measuring copy) is more likely a mismeasure than a die (Byler photo 118:
# dice labelled 37 px across measured 10.5 px, whose read enlarged 3.4 times found 15 "dice" of 8): that
# frame is read as taken. A calibrated die that small is a die, and is read enlarged MAX_ENLARGE times.
MAX_ENLARGE = 2.0
# Uncalibrated, the blob measure of a frame's die is checked before the frame is enlarged, against the top
# faces the pips-first pass reads in it as taken (their pip grid gives a face's side exactly, where the blob
# can lose a white die's body to a bright sheet: the Byler photos brightened (gamma 0.6), four measured 24-28
# px with dice labelled 37-40 px; read enlarged, photo 248's 4 dice read right became 2 read wrong and 2
# values where no die is, and two other photos lost a die each). Faces whose median
# side is at least the development photos' smallest (a photo's median face: 1st percentile 19.3 px) say the
# dice are not small, and the frame is read as taken; no face read leaves the measure standing.
FACE_BELOW = 19.0


# Close-ups (a phone held over a die or two, vision/closeup.py): dice up to this share of the frame's short
# side, which rough_die_size passes over beyond bodies.MAX_DIE_SHARE, measured on a copy CLOSE_UP_AT pixels
# on its short side (a die of MAX_DIE_SHARE measures 32 px there).
CLOSE_UP_SHARE = 0.7
CLOSE_UP_AT = 128


def close_up_die(frame: U8) -> float | None:
    """The die size of `frame` in pixels taken as a close-up (vision/bodies.py close_up_die_size); None: no
    die-like blob of that size."""
    return close_up_die_size(frame, CLOSE_UP_AT, CLOSE_UP_SHARE)


def frame_die(frame: U8, die: float | None) -> float | None:
    """The die size of `frame` in pixels: `die` (calibrated) where given, else measured here (None: no
    die-like blob to measure)."""
    return die if die is not None else rough_die_size(frame, SHRINK_ABOVE / MEASURE_AT)


def reading_scale(frame: U8, die: float | None, *, camera: bool = False) -> float:
    """The factor to read `frame` at, for dice of `die` pixels (calibrated; None: measure them here); `camera`: the
    calibration has the board's homography (scale_for)."""
    return die_and_scale(frame, die, camera=camera)[1]


def die_and_scale(frame: U8, die: float | None, *, camera: bool = False) -> tuple[float | None, float]:
    """The die size of `frame` (`die` where calibrated, else measured) and the factor to read it at; `camera`: the
    calibration has the board's homography (scale_for)."""
    measured = frame_die(frame, die)
    if die is None and measured is not None and measured < READ_DIE / MAX_ENLARGE and not faces_small(frame, None):
        # Too small a measure to trust (MAX_ENLARGE), and faces of a die's size read at the frame's own
        # pip scale: a mismeasure (board lettering, a tray's pattern), not a die to set the pips' scale.
        measured = None
    scale = scale_for(measured, calibrated=die is not None, camera=camera and die is not None)
    if scale > 1.0 and die is None and not faces_small(frame, measured):
        return measured, 1.0
    return measured, scale


def uncalibrated_pip_d(measured: float | None, w: int, h: int) -> float:
    """A pip's diameter for a frame w x h without a calibration: the frame's guess (frame_pip_d), unless the
    die measured in it (a pip 0.65 of the pitch, a die 3.85 pitches, as a calibrated die sets it) lies
    further off than measures of the die are taken to be (bodies.far_from)."""
    from_frame = frame_pip_d(w, h)
    if not measured:
        return from_frame
    from_die = PIP_D_PER_G * measured / SIDE_PER_G
    return from_die if far_from(from_die, from_frame) else from_frame


def faces_small(frame: U8, measured: float | None) -> bool:
    """Whether the top faces the pips-first pass reads in `frame` as taken are smaller than the development
    photos' (FACE_BELOW), as a die `measured` under ENLARGE_BELOW says; True where no face is read."""
    h, w = frame.shape[:2]
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    found = light_pass(gray, None, frame, pip_d=uncalibrated_pip_d(measured, w, h)).faces
    sides = [f.side for f in found if f.value is not None]
    return not sides or float(np.median(sides)) < FACE_BELOW


def scale_for(die: float | None, *, calibrated: bool = False, camera: bool = False) -> float:
    """The factor to read a frame at whose dice measure `die` pixels (None: unknown): under 1 for large
    dice, over 1 for small ones (at most MAX_ENLARGE), 1 for dice of the size the reader was developed on.
    A die measured in the frame (not `calibrated`) under READ_DIE / MAX_ENLARGE is not trusted: 1. With the board's
    homography (`camera`), a calibrated die over CALIBRATED_SHRINK_ABOVE is read shrunk."""
    if die is None:
        return 1.0
    if die > (CALIBRATED_SHRINK_ABOVE if camera else SHRINK_ABOVE):
        return READ_DIE / die
    if die >= ENLARGE_BELOW:
        return 1.0
    if not calibrated and die < READ_DIE / MAX_ENLARGE:
        return 1.0
    return min(MAX_ENLARGE, READ_DIE / die)


def resized(frame: U8, scale: float) -> tuple[U8, float, float]:
    """`frame` resized by `scale`, and the factors (x, y) it was resized by after rounding to whole pixels.
    Shrunk by averaging (nothing aliases), enlarged bicubically (the Byler photos at 0.7x: 90.6% of their
    dice read bicubic against 89.5% bilinear, before the faces' check below; with it, 90.2% against 90.0%
    by Lanczos, which also refused one plain throw more of 120 on the simulated camera at 0.8x)."""
    sw, sh = resized_size(frame, scale)
    out = np.asarray(cv2.resize(frame, (sw, sh), interpolation=_how(scale)), dtype=np.uint8)
    return out, sw / frame.shape[1], sh / frame.shape[0]


def resized_size(frame: U8, scale: float) -> tuple[int, int]:
    """The (width, height) `resized` gives `frame`."""
    h, w = frame.shape[:2]
    return max(1, round(w * scale)), max(1, round(h * scale))


def _how(scale: float) -> int:
    return cv2.INTER_AREA if scale < 1.0 else cv2.INTER_CUBIC


# How far (resized pixels) a part resized on its own may reach past the box asked for, to start and end where
# the resized frame's pixel grid meets the frame's own nearly (resized_within): within 0.025 of a frame pixel
# at 48 (1280x960 enlarged 1.4 times), 0.06 at 16. Pip centres are found to the pixel, and where a saturated
# pip's top is flat a level or two moves its maximum by a pixel or more: on the simulated table drawn
# to a real board's proportions (a die a 32nd of the board, 1280x960, dice of 26 px read enlarged), seeds 21-140,
# plain throws read where the table changed were right 107 of 120 with the whole frame resized, 97 with parts
# aligned within 16 pixels, 109 within 48.
ALIGN_SLACK = 48


def resized_within(frame: U8, scale: float, boxes: Sequence[Box]) -> U8:
    """`frame` resized by `scale` as `resized` resizes it (the same size), but only within `boxes` (x0, y0, x1,
    y1 in the resized frame's pixels; black elsewhere): a read where the table changed looks nowhere else,
    and the whole of a 1920x1440 frame took 7.5 ms to shrink, the read of a throw in it 5.7 ms (2026-11-29,
    2-core EPYC).

    Each box's part of `frame` is resized on its own, from and to whole pixels, so its pixel grid may lie a
    little off the whole frame's: each part reaches past its box (by up to ALIGN_SLACK resized pixels, within
    the frame) to the edges where the two grids meet most nearly (the frame's own edges exactly; the pixels
    within a level or two of the whole frame's, 0.04 on the mean: tests/vision/test_scale.py). Near a
    part's rim a bicubic kernel reaches past what was cut: callers ask for room round what they read."""
    h, w = frame.shape[:2]
    sw, sh = resized_size(frame, scale)
    out = np.zeros((sh, sw, *frame.shape[2:]), np.uint8)
    how = _how(scale)
    for x0, y0, x1, y1 in boxes:
        xs, ys = _span(x0, x1, w, sw), _span(y0, y1, h, sh)
        if xs is None or ys is None:
            continue
        (a0, a1, u0, u1), (b0, b1, v0, v1) = xs, ys
        out[b0:b1, a0:a1] = cv2.resize(frame[v0:v1, u0:u1], (a1 - a0, b1 - b0), interpolation=how)
    return out


def _span(lo: int, hi: int, n: int, sn: int) -> tuple[int, int, int, int] | None:
    """For resized pixels [lo, hi) of a side of n frame pixels resized to sn: the resized span [a, b) around
    it (out to ALIGN_SLACK further) whose edges fall nearest whole frame pixels, and those frame pixels
    [u, v); None where the span is empty."""
    lo, hi = max(0, lo), min(sn, hi)
    if hi <= lo:
        return None
    k = np.arange(ALIGN_SLACK + 1)
    starts = np.maximum(lo - k, 0)
    ends = np.minimum(hi + k, sn)
    # (each edge's distance from a whole frame pixel, in frame pixels; ties to the nearer edge, as argmin)
    a = int(starts[np.argmin(np.abs(starts * n / sn - np.rint(starts * n / sn)))])
    b = int(ends[np.argmin(np.abs(ends * n / sn - np.rint(ends * n / sn)))])
    u, v = round(a * n / sn), round(b * n / sn)
    if v <= u:
        return None
    return a, b, u, v


def resized_boxes(boxes: Sequence[Box], fx: float, fy: float, size: tuple[int, int]) -> tuple[Box, ...]:
    """Boxes of the full frame in the resized frame's pixels (`size`: its width and height), grown outward
    to whole pixels so that nothing inside a box is lost."""
    w, h = size
    return tuple((max(0, int(np.floor(x0 * fx))), max(0, int(np.floor(y0 * fy))),
                  min(w, int(np.ceil(x1 * fx))), min(h, int(np.ceil(y1 * fy)))) for x0, y0, x1, y1 in boxes)


def restored(reading: DiceReading, fx: float, fy: float) -> DiceReading:
    """A reading of a frame resized by (fx, fy), in the frame's own pixels."""
    def back(d: Die) -> Die:
        return replace(d, center=(d.center[0] / fx, d.center[1] / fy), size=d.size / (0.5 * (fx + fy)),
                       corners=tuple((x / fx, y / fy) for x, y in d.corners))

    return replace(reading, dice=tuple(back(d) for d in reading.dice))

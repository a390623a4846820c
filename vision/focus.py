"""How soft the camera's picture is at the dice read, and whether it is too soft to tell a leaning die.

The lean checks (vision/lean.py, vision/sidepips.py) find a cocked die by its side face's pips: small, foreshortened
spots beside its top face, asked to be nearly as dark as the top face's pips and as strong to the black-hat. A soft
lens (a fixed-focus camera too near the table, a webcam's focus hunting) takes more from those narrow spots than from
the round pips of the top face, and the checks stop seeing them while the top faces still read: on the simulated
camera (seeds 0-99), calibrated and read where the table changed, a Gaussian blur of 1.5 px on its 31 px dice made
10 of 100 throws of a die leaning on a hotel `ok`s (20 of 100 at 2 px), with plain throws still read (99 and 87 of
100). So the
reader measures the blur at the dice it read, and refuses a throw whose picture is softer than the checks were shown
to hold at (docs/vision.md, "A soft picture").

The measure is the re-blur ratio (Zhuo and Sim, "Defocus map estimation from a single image", 2011): blurring an
edge of blur sigma by a known sigma_k lowers its steepest gradient by sigma / sqrt(sigma^2 + sigma_k^2), whatever the
edge's contrast. It is taken over a die's top face, where the pips' edges are the steepest thing, and reported as a
share of the die's side, since what the checks look for scales with the die.

Pure: a frame and the dice read in, a number out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading import Die

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

# The known blur added to measure the ratio (pixels).
SIGMA_K = 1.0
# The patch is first smoothed by this much (pixels; taken off the estimate after) and the ratio taken between the
# means of its STEEPEST pixels, fewer than half of one pip's edge: a single steepest pixel is the noise's or a JPEG
# block's as often as the lens's (the simulated camera's dice blurred 1.5 px measured 10% sharper with sensor noise of
# 6 grey levels, 7% with JPEG at quality 60; so, 3% and 1.5%).
SMOOTH = 0.7
STEEPEST = 8
# A face whose steepest edges climb less than this (grey levels a pixel) shows no pip's edge to measure: a die read
# from a plain body (0-2 on a rendered one), whose blur reads as anything. A grey pip of half a black one's contrast,
# blurred 3 px, climbs 8.8.
MIN_EDGE = 5.0
# The top face's disc the gradients are taken in, as a share of the die's side: its pips' edges reach 0.36 of a
# side from the centre on a 6, and the face's own edge begins at 0.5 (the rim, whose contrast with a side face or
# the board is not the lens's doing).
FACE_DISC = 0.42
# The most blur, as a share of the die's side (the frame's median over the dice read), at which the lean checks of
# white dice were shown to hold, less the measure's own spread. On the simulated camera's throws (read calibrated
# where the table changed, with the table before; a cocked throw is a die leaning on a hotel), blurred 0-2.5 px, some
# also with sensor noise of 6 grey levels or JPEG at quality 60, the least blur of a throw accepted wrongly was
# 0.0345 at 640x480 (dice of 31 px; seeds 0-99), 0.0346 at 960x720 (dice of 47 px; seeds 0-39) and 0.0385 at the Pi
# unit's view (1280x960, dice of 26 px read enlarged; seeds 0-39). One frame's measure lies within 5% of the median
# of frames blurred alike (5th percentile 0.95 of the median, or more), so the limit is 0.0345 less 5%. Sharp renders
# measure 0.015-0.023 (960x720, 640x480, the Pi's view).
MAX_BLUR = 0.033
# MAX_BLUR for dice with light pips (red and black dice with white pips), whose lean checks go by the die's colour as
# well and hold under more blur: at 640x480 (dice of 31 px) blurred round up to 2 px, none `ok` leaning. At the Pi
# unit's view (dice of 25.8 px, read enlarged) they do not: blurred 1.25-2 px (seeds 1-120, the simulated camera's die
# leaning on the hotel, read where the table changed with the table before; 2026-12-02, the fourth session), 22 red and
# 1 black throws were `ok` with the top face's value, the least blur 0.0430 of a side (red, seed 109, 1.5 px). So 0.041,
# that less 5%. Held out on seeds 121-240 (red, 1.25-2 px): 15 such, the least 0.0423, all over it.
MAX_BLUR_LIGHT_PIPS = 0.041


def _sobel(grey: F32) -> tuple[F32, F32]:
    """The x and y derivatives, grey levels a pixel (Sobel's 3x3 weighs a unit slope 8)."""
    gx = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3, scale=0.125), np.float32)
    gy = np.asarray(cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3, scale=0.125), np.float32)
    return gx, gy


# The most blur in a face's softest direction (`die_smear`), as a share of the die's side, at which the lean checks of
# white dice were shown to hold under motion. A smear (a line of `n` px, tests/vision/render.py motion_blur) softens
# the edges along it and leaves those across it sharp, and MAX_BLUR's measure, taken over the steepest edges
# whichever way they face, stays under its limit: on the simulated camera (640x480, dice of 31 px; read calibrated
# where the table changed, with the table before; seeds 1-40, a die leaning on the hotel), smears of 4-8 px at 0,
# 30, 60 and 105 degrees made 3-9 of 40 cocked throws `ok`s a look, at 4 px along 0 degrees already 3. The least
# softest-direction blur of a throw accepted wrongly was 0.0409 (4 px, 0 degrees); so 0.039, that less 5% as for
# MAX_BLUR. Sharp renders measure 0.017-0.027 (960x720, 640x480, the Pi unit's view, Japanese dice; seeds 1-40).
MAX_SMEAR = 0.039
# ... and for smaller dice, less: the least smear at which a white die leaning on the hotel was `ok` falls with the
# die's size in pixels faster than in proportion (2026-12-02, the simulated camera, read as above, seeds 1-120,
# smeared 2-6 px along six directions every 30 degrees): 0.842 px (0.0326 of a side) at the Pi unit's view (dice of
# 25.8 px, read enlarged), 1.205 px (0.0388) at 640x480 (31.0 px) and 2.246 px (0.0482) at 960x720 (46.6 px, read
# shrunk), nearly on a line of 0.067-0.069 px a pixel of die; MAX_SMEAR, one share for all, let 1 through at 640x480
# and 10 at the Pi unit's view. So the limit is that line through the first two less 5% (0.800 px at 25.8 px, 1.145
# px at 31.0 px), as a share of the die's side, and MAX_SMEAR where that is more (from 33.5 px). Held out: seeds
# 121-240 at both views (none `ok` and wrong, 2 before at the Pi's), and dice of 25.9 px at 640x480 (seeds 1-80: the
# smeared leaning throws `ok` from 0.873 px, as at the Pi unit's view: it is the die's size, not the view).
SMEAR_PX_PER_DIE_PX = 0.0658
SMEAR_PX_FROM = 13.64
# Under the Pi unit's dice the line holds (dice of 21.9 px at 640x480, seeds 1-80: leaning throws `ok` from 0.545 px,
# smeared 2 px; the line says 0.543) but falls among sharp frames' own measure (0.022-0.0285 of a side there, against
# a limit of 0.0248), so that most sharp throws would be refused as smeared. The limit stays at this die's there,
# and `tableside calibrate` warns that a smear of 2-3 px can then pass a leaning die.
SMEAR_LEAST_DIE = 25.8
# MAX_SMEAR for dice with light pips (red and black dice with white pips). Their lean checks go by the die's colour as
# well as by pips, and a round blur, which keeps the colour, takes more to defeat them (MAX_BLUR_LIGHT_PIPS); a
# smear along the right direction takes less. On the same camera and throws, smeared 3-10 px along 0-165 degrees: seeds
# 1-120 made 11 red and 1 black cocked throws `ok`s, the least softest-direction blur among them 0.0541 (a limit of
# 0.051 by the rule above); seeds 121-320, held out from that, made 39 red and no black, and at 0.051 still one (red,
# seed 248, 7 px along 15 degrees, 0.0492), so 0.047 from all 320. The Pi unit's view (1280x960, dice of 26 px read
# enlarged; seeds 1-60, 3-7 px along six directions), held out from that, made 2 red `ok`s, one at 0.0458 (seed 1, 5
# px along 150 degrees). So 0.043, that less 5%. Plain throws smeared 3 px measure up to 0.039 and read as before;
# smeared 4 px, 0.033-0.048, and about half are refused (640x480 and the Pi unit's view, seeds 1-40).
MAX_SMEAR_LIGHT_PIPS = 0.043
# Under the Pi unit's dice, dice with light pips give way to less blur too, as white dice do to less smear (2026-12-02,
# the fifth session). The simulated camera's red dice, a die leaning on the hotel, read as above with the focus checks
# off, blurred round 0.5-1.5 px and smeared 2-5 px along six directions: at 1280x720 (a webcam over a real board; dice
# of 19.35 px at die_mm 7.6, 22.45 px at 8.8, seeds 1-60), leaning throws were `ok` from a round blur of 0.679 px
# (0.0351 of a side) and 0.878 px (0.0391), against 1.109 px (0.0430) at the Pi unit's 25.8 px; smeared, from 0.704
# px (0.0364) and 0.963 px (0.0429) in the softest direction, against 1.182 px (0.0458). MAX_BLUR_LIGHT_PIPS and
# MAX_SMEAR_LIGHT_PIPS had let 14 and 3 of 1,740 through. Each falls on a line in pixels: the limits are the line
# through the smallest and the Pi unit's dice less 5%, as a share of the die's side, and the fixed limit where that
# is more (from 26.0 and 25.4 px). Held out at 640x480 (dice of 19.29 px, seeds 1-60), one smeared 3 px was `ok` at
# 0.658 px (0.0341), under that first smear line (0.0345): the smear line was drawn again through it (0.658 px at 19.29
# px) and the Pi unit's 1.182 px, less 5%, which every other leaning throw so far lies over (0.951 px at 22.45 px
# held out, seeds 61-120; 1.003 px at 21.72 px, 640x480, seeds 1-60). Black dice, on the same throws, were `ok`
# leaning only blurred 1.5 px (0.0474), over both limits. The lines let no leaning throw through a smear whichever way
# it runs, as for white dice: one at 19.35 px smeared 4 px along 150 degrees measured 0.0294 round and 0.0371 in its
# softest direction (1.26 times), under the blur line and not one way (ROUND_SMEAR), and was `ok` (another held out,
# 0.0354, 1.21 times). A round blur measures at most 1.21 times its round blur in its softest direction (0.5 px; 1.14
# from 1 px), so it meets the smear line about where it meets the blur line.
LIGHT_BLUR_PX_PER_DIE_PX = 0.0633
LIGHT_BLUR_PX_FROM = 9.17
LIGHT_SMEAR_PX_PER_DIE_PX = 0.0765
LIGHT_SMEAR_PX_FROM = 11.12
# The lines stop at the smallest dice the reader reads safely (vision/scale.py READ_DIE / MAX_ENLARGE; `tableside
# calibrate` warns under it): under it they would soon refuse sharp throws (at 17.5 px, 4 sharp throws of 30).
LIGHT_LEAST_DIE = 18.0
# A round blur's softest direction measures at most this many times its steepest edges' blur (die_blurs): the
# simulated camera's red and black plain throws blurred 1-2.5 px, 0.97-1.20 (seeds 1-40). A frame softer than that one
# way is smeared by motion, and its refusal says to hold the camera still; else the picture may be soft as well, and
# the refusal names both cures (Fault).
ROUND_SMEAR = 1.3
# The directions the softest is looked for in: every 22.5 degrees of a half turn.
_ANGLES = np.arange(8) * (np.pi / 8)


def _face(frame: U8, die: Die) -> tuple[F32, NDArray[np.bool_]] | None:
    """The smoothed grey patch round `die`'s top face and its face disc; None where the die has no size or lies too
    near the frame's edge to measure."""
    if die.size <= 0:
        return None
    cx, cy = die.center
    r = FACE_DISC * die.size
    m = math.ceil(r + 4 * (SIGMA_K + SMOOTH)) + 2  # (room for the blurs' reach)
    x0, y0 = round(cx) - m, round(cy) - m
    h, w = frame.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * m + 1 > w or y0 + 2 * m + 1 > h:
        return None
    cut = frame[y0:y0 + 2 * m + 1, x0:x0 + 2 * m + 1]
    if cut.ndim == 3:  # (only the patch is made grey: a read asks about two dice of a whole frame)
        cut = np.asarray(cv2.cvtColor(cut, cv2.COLOR_BGR2GRAY), np.uint8)
    patch = np.asarray(cv2.GaussianBlur(cut.astype(np.float32), (0, 0), SMOOTH), np.float32)
    yy, xx = np.arange(2 * m + 1)[:, None], np.arange(2 * m + 1)[None, :]
    disc = np.hypot(xx + x0 - cx, yy + y0 - cy) <= r
    if disc.sum() < STEEPEST:
        return None
    return patch, disc


def _sigma(ratio: F64 | float) -> F64:
    """The blur (a Gaussian's sigma, pixels) of edges whose steepest gradient a re-blur by SIGMA_K keeps `ratio` of,
    less the patch's own smoothing."""
    r = np.minimum(np.asarray(ratio, np.float64), 0.999)
    sigma = SIGMA_K * r / np.sqrt(1.0 - r * r)
    return np.asarray(np.sqrt(np.maximum(sigma * sigma - SMOOTH * SMOOTH, 0.0)), np.float64)


def die_blur(frame: U8, die: Die) -> float | None:
    """The blur (a Gaussian's sigma, pixels) at `die`'s top face by the re-blur ratio of its steepest edges, in a BGR
    or grey `frame`; None where the die has no size, lies too near the frame's edge to measure, or its face shows no
    edge (MIN_EDGE)."""
    return die_blurs(frame, die)[0]


def die_smear(frame: U8, die: Die) -> float | None:
    """The blur (sigma, pixels) at `die`'s top face in its softest direction: the re-blur ratio of the steepest
    derivatives along each of _ANGLES, the largest blur of those. A round blur measures about as die_blur does (a
    little more: 1.1-1.2 times on sharp renders); a motion's smear, along it. None as for die_blur."""
    return die_blurs(frame, die)[1]


def die_blurs(frame: U8, die: Die) -> tuple[float | None, float | None]:
    """die_blur and die_smear at once, from one patch, its re-blur and their derivatives."""
    face = _face(frame, die)
    if face is None:
        return None, None
    patch, disc = face
    sharp = _sobel(patch)
    again = _sobel(np.asarray(cv2.GaussianBlur(patch, (0, 0), SIGMA_K), np.float32))
    steep = _steepest(np.asarray(cv2.magnitude(*sharp), np.float32)[disc])
    blur = None if steep < MIN_EDGE else float(_sigma(_steepest(np.asarray(cv2.magnitude(*again), np.float32)[disc])
                                                           / steep))
    ways = _directional_steepest(sharp, disc)
    smear = None if float(ways.max()) < MIN_EDGE else float(
        _sigma(_directional_steepest(again, disc) / np.maximum(ways, 1e-6)).max())
    return blur, smear


def _directional_steepest(grad: tuple[F32, F32], disc: NDArray[np.bool_]) -> F64:
    """(8,): in each of _ANGLES, the mean of the STEEPEST largest derivatives' magnitudes inside `disc`."""
    gx, gy = grad[0][disc], grad[1][disc]
    d = np.abs(np.cos(_ANGLES)[:, None] * gx[None, :] + np.sin(_ANGLES)[:, None] * gy[None, :])
    n = d.shape[1]
    return np.asarray(np.partition(d, n - STEEPEST, axis=1)[:, -STEEPEST:].mean(axis=1), np.float64)


def _steepest(g: F32) -> float:
    return float(np.partition(g, len(g) - STEEPEST)[-STEEPEST:].mean())


def frame_blur(frame: U8, dice: Sequence[Die], die: float) -> float | None:
    """The median blur over the dice read with a value, as a share of the die's side (`die`, pixels), in a BGR or
    grey `frame`; None where no die could be measured."""
    return frame_blurs(frame, dice, die)[0]


def frame_smear(frame: U8, dice: Sequence[Die], die: float) -> float | None:
    """As frame_blur, in each die's softest direction (die_smear)."""
    return frame_blurs(frame, dice, die)[1]


def frame_blurs(frame: U8, dice: Sequence[Die], die: float) -> tuple[float | None, float | None]:
    """frame_blur and frame_smear at once, each die's patch measured once. The reader's focus checks and `tableside
    calibrate` ask it of a throw."""
    both = [die_blurs(frame, d) for d in dice if d.value is not None]
    return _median_share([b for b, _ in both], die), _median_share([s for _, s in both], die)


def _median_share(blurs: Sequence[float | None], die: float) -> float | None:
    shares = [b / die for b in blurs if b is not None]
    return float(np.median(shares)) if shares and die > 0 else None


def blur_limit(*, light_pips: bool, die: float | None = None) -> float:
    """The most blur (frame_blur, a share of the die's side) a calibrated throw of dice of `die` px may show: MAX_BLUR,
    or for dice with light pips MAX_BLUR_LIGHT_PIPS, less for dice under 26 px (LIGHT_BLUR_PX_PER_DIE_PX; under
    LIGHT_LEAST_DIE, as at it). With no die size, the fixed limit."""
    if not light_pips:
        return MAX_BLUR
    return _least(MAX_BLUR_LIGHT_PIPS, LIGHT_BLUR_PX_PER_DIE_PX, LIGHT_BLUR_PX_FROM, die, LIGHT_LEAST_DIE)


def smear_limit(*, light_pips: bool, die: float | None = None) -> float:
    """The most blur in a face's softest direction, as a share of the die's side, a calibrated throw of dice of `die`
    px may show: MAX_SMEAR, less for dice under 33.5 px (SMEAR_PX_PER_DIE_PX; under SMEAR_LEAST_DIE, as at it), or
    for dice with light pips MAX_SMEAR_LIGHT_PIPS, less under 25.4 px (LIGHT_SMEAR_PX_PER_DIE_PX; under
    LIGHT_LEAST_DIE, as at it). With no die size, the fixed limit."""
    if light_pips:
        return _least(MAX_SMEAR_LIGHT_PIPS, LIGHT_SMEAR_PX_PER_DIE_PX, LIGHT_SMEAR_PX_FROM, die, LIGHT_LEAST_DIE)
    return _least(MAX_SMEAR, SMEAR_PX_PER_DIE_PX, SMEAR_PX_FROM, die, SMEAR_LEAST_DIE)


def _least(most: float, px_per_die_px: float, px_from: float, die: float | None, least_die: float) -> float:
    """`most`, or where less, the line of `px_per_die_px` px of blur a pixel of die from `px_from` px, as a share of a
    die of `die` px (at least `least_die`)."""
    if die is None or die <= 0:
        return most
    die = max(die, least_die)
    return min(most, px_per_die_px * (die - px_from) / die)


def smeared(smear: float | None, *, light_pips: bool, die: float | None = None) -> bool:
    """Whether a throw of dice of `die` px whose frame measures `smear` (frame_smear) in its softest direction is over
    smear_limit, whichever way it is soft (a round blur measures up to ROUND_SMEAR times its steepest edges' blur
    there, and nears the smear limit where it nears blur_limit)."""
    return smear is not None and smear > smear_limit(light_pips=light_pips, die=die)


class Fault(StrEnum):
    """Why a calibrated throw's picture is too soft to tell a leaning die, and so what cures it."""

    SOFT = "soft"  # round, over blur_limit: focus
    SMEARED = "smeared"  # one way, over smear_limit: hold the camera still
    SOFT_OR_SMEARED = "soft or smeared"  # over smear_limit but not one way: either, or both


@dataclass(frozen=True)
class Softness:
    """A picture refused as too soft: the `fault`, the blur `measured` (a share of the die's side: its steepest edges'
    for SOFT, its softest direction's otherwise) and the `limit` it is over."""

    fault: Fault
    measured: float
    limit: float


def too_soft(blur: float | None, smear: float | None, *, light_pips: bool, die: float | None) -> Softness | None:
    """Whether a calibrated throw of dice of `die` px whose frame measures `blur` and `smear` (frame_blurs) is too soft
    for the lean checks, and why; None where it is not. The reader refuses such a throw and `tableside calibrate`
    warns of it, both from this."""
    limit = blur_limit(light_pips=light_pips, die=die)
    if blur is not None and blur > limit:
        return Softness(Fault.SOFT, blur, limit)
    if smear is None or not smeared(smear, light_pips=light_pips, die=die):
        return None
    # (The smaller limits, white dice's and small dice's with light pips, catch a lens a little soft as well, which
    # measures as much in its softest direction: where the measure cannot say which, both cures are named.)
    return Softness(Fault.SMEARED if one_way(blur, smear) else Fault.SOFT_OR_SMEARED, smear,
                    smear_limit(light_pips=light_pips, die=die))


def one_way(blur: float | None, smear: float | None) -> bool:
    """Whether a frame measuring `blur` (frame_blur) and `smear` (frame_smear) is softer in one direction than a
    round blur makes it (ROUND_SMEAR): a smear, where a refusal's cure is to hold the camera still; else a soft lens
    or both, where it is to focus too."""
    return smear is not None and (blur is None or smear > ROUND_SMEAR * blur)

"""Dark spots at a pip's scale: where every pip pass starts (vision/darkpips.py, and the colour reader's spots).

Pure: a grey image in, spots out. One black-hat with a kernel a little over twice a pip's diameter finds round dark
spots (vision/pips.py measures each); a flat-bottomed pip's several maxima are merged into one; the frame's pixel
noise sets the least response a spot must have; and, given the table before the throw, a spot that was there
already is told from a new one.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.pips import Candidates, black_hat, detect, empty, odd
from vision.rim import MIN_EDGE
from vision.scene import noise_sigma

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# Pip diameter over pitch on the dice measured (Byler photos, simulated camera: 0.6-0.7).
PIP_D_PER_G = 0.65
# Without a calibration, a pip's diameter is the frame's short side over this: the development photos'
# (640 px, dice of 29-47 px: 8 px), and the tests' renders (480 px, dice of 40 px: 6 px).
FRAME_PER_PIP_D = 80.0
KERNEL_PER_DIAM = 2.4  # black-hat kernel in pip diameters: fills a pip, not the face around it
MIN_SPOT = 14.0  # grey levels: weaker spots are JPEG noise or paper texture
# ... and on a noisy sensor, spots weaker than this many times its pixel noise (vision/scene.py): on pure
# noise of deviation s the black-hat's strongest response in a 640x480 frame measures 4.1-4.5 s. With 4
# grey levels of noise the Byler photos had 300 spots a photo instead of 80, most at the old floor, and
# pairing them made a read take three times as long.
SPOT_NOISE = 5.0
MAX_ELONG = 2.0  # pips seen from above are round; side-face pips, edges and lettering strokes are not

# Side-face pips of a leaning die are seen at 30-60 degrees: ovals up to this elongation still count.
SIDE_ELONG = 2.6
# ... and a side face opened by a lean of 15-30 degrees (a die leaning on a hotel) shows its pips as ovals up to
# this long (1 / sin 15 degrees): the lean check asks the spots not round up to this long apart (vision/lean.py,
# _narrow_side).
NARROW_ELONG = 3.9
# A spot was there before the throw where the table before answered the black-hat with at least this share of
# its response now (SpotsBefore): the board's print answers alike, plain board with its noise. Of the 1,168
# spots the lean check asked about on the simulated tables (seeds 0-19, red and black dice, 0, 8 and 18
# degrees), most answered 0.98-1.03 or 0.01-0.05 of themselves, 60 between 0.1 and 0.8 (a die covering part
# of a spot's surroundings, now or before): halfway.
OLD_SHARE = 0.5

# Two maxima this many half-peak radii apart or nearer, the response between them flat (within PLATEAU of the weaker
# peak), are one pip's: a flat bottom, wider than pips.detect's 3x3 cells, gives a maximum at either side of it. A
# pip spans 2 of its radii; two pips of a face lie a pitch apart, 2.6 radii (a pip 0.2 of a side across, a pitch
# 0.26), and the response dips between them, even where they nearly touch (drawn 2.2 radii apart: to 0.89-0.97 of
# the weaker peak; a plateau's maxima were equal).
ONE_PIP_SPAN = 2.0
PLATEAU = 0.02

# How many times the frame's pixel noise (vision/scene.py) a rim's edge must also be, beside vision/rim.py's
# MIN_EDGE: on a sensor's noise alone, edges of 10 grey levels crossed 12 of 16 rays round a speck on a plain
# sheet often enough to make it a 1 (the Byler photos with noise of 4 grey levels added: 68 such 1s).
EDGE_NOISE = 4.0


def spots(gray: U8, pip_d: float) -> tuple[Candidates, U8]:
    """Round dark spots about a pip wide, and the black-hat response they came from."""
    c, _, resp, _ = all_spots(gray, pip_d, False)
    return c, resp


def all_spots(gray: U8, pip_d: float, ovals: bool, floor: float = MIN_SPOT, valleys: bool = False,
              narrow: bool = False, plateaus: bool = True) -> tuple[Candidates, Candidates, U8, Candidates]:
    """(round spots, all spots up to SIDE_ELONG, response, the spots not round up to NARROW_ELONG long): side
    faces seen obliquely have oval pips. `valleys`: long spots measured again to the valleys before their
    neighbours (pips.detect). `narrow`: the longer spots too (else none). `plateaus`: a flat-bottomed pip's maxima
    merged over its whole plateau (one_per_spot with the response)."""
    k = odd(KERNEL_PER_DIAM * pip_d)
    resp = black_hat(gray, k)
    c = detect(resp, floor, k // 2 + 1, True, valleys)
    sized = (c.radius >= 0.75) & (c.radius <= 0.45 * k)
    ok = (c.elong < MAX_ELONG) & sized
    oval = c.take(np.nonzero(sized & (c.elong <= SIDE_ELONG))[0]) if ovals else c.take(np.zeros(0, np.int64))
    longer = (one_per_spot(c.take(np.nonzero(sized & (c.elong >= MAX_ELONG) & (c.elong <= NARROW_ELONG))[0]))
              if narrow else empty(True))
    flat = resp if plateaus else None
    return one_per_spot(c.take(np.nonzero(ok)[0]), flat), one_per_spot(oval, flat), resp, longer


def one_per_spot(c: Candidates, resp: U8 | None = None) -> Candidates:
    """A flat-bottomed (saturated) pip gives several maxima a few pixels apart: keep the strongest. With `resp`
    (the response the spots were found in), also maxima further apart on one plateau (ONE_PIP_SPAN, PLATEAU)."""
    n = len(c)
    if n < 2:
        return c
    order = np.argsort(-c.peak, kind="stable")
    xy, rad = c.xy[order], c.radius[order]
    peak = c.peak[order]
    # Close pairs without the n x n distance matrix (textured boards give thousands of spots): with the
    # spots sorted by x, each is paired with the following ones up to `reach` further in x, all at once.
    # A pair further apart in x than `reach` is never close (the distance is at least the x offset, and
    # each pair's limit is at most `reach`), so taking a few more is harmless: the pixel of margin keeps
    # every pair within `reach` whatever the rounding of the sum.
    reach = max(2.5, (1.2 if resp is None else ONE_PIP_SPAN) * float(rad.max()))
    byx = np.argsort(xy[:, 0], kind="stable")
    xs = xy[byx, 0]
    ends = np.searchsorted(xs, xs + (reach + 1.0), side="right")
    counts = ends - np.arange(1, n + 1)
    total = int(counts.sum())
    if total == 0:
        return c.take(order)
    first = np.repeat(np.arange(n), counts)
    # Offsets 1..counts[i] after each spot i: a running index less where each spot's run starts.
    run_start = np.repeat(np.cumsum(counts) - counts, counts)
    second = first + 1 + (np.arange(total) - run_start)
    a, b = byx[first], byx[second]
    d = np.hypot(xy[a, 0] - xy[b, 0], xy[a, 1] - xy[b, 1])
    close = d < np.maximum(2.5, 1.2 * np.maximum(rad[a], rad[b]))
    if resp is not None:
        far = ~close & (d < ONE_PIP_SPAN * np.maximum(rad[a], rad[b]))
        if far.any():
            af, bf = a[far], b[far]
            x0, y0 = xy[af, 0], xy[af, 1]
            dx, dy = xy[bf, 0] - x0, xy[bf, 1] - y0
            need = (1.0 - PLATEAU) * np.minimum(peak[af], peak[bf])
            flat = np.ones(len(af), bool)
            for t in (0.25, 0.5, 0.75):  # (along the segment between them)
                flat &= resp[np.rint(y0 + t * dy).astype(np.intp), np.rint(x0 + t * dx).astype(np.intp)] >= need
            close[far] = flat
    # Greedy in order of strength (index order): a spot kept drops every weaker spot close to it. Pairs
    # taken by their stronger spot; that spot's own fate is settled by stronger spots, all seen before.
    lo, hi = np.minimum(a[close], b[close]), np.maximum(a[close], b[close])
    srt = np.argsort(lo, kind="stable")
    keep = [True] * n
    for s, t in zip(lo[srt].tolist(), hi[srt].tolist(), strict=True):
        if keep[s]:
            keep[t] = False
    return c.take(order[np.array(keep, bool)])


class SpotsBefore:
    """Which spots were there before the throw: where the table before (the same plane, black where not known)
    had a spot response at least OLD_SHARE of the spot's now, within two pixels (the print may shift by one with
    the sensor's noise, and more where the camera is knocked: the simulated tables' red pairs, seeds 20-29, with
    the table before moved 3 px sideways and the body check off, were read right 36 of 40 within one pixel, 39
    within two, as unmoved). The board's print of a die's own colour beside it makes pip-like spots on its
    silhouette (the gaps of red lettering beside a red die: of the simulated camera's red pairs, seeds 20-49,
    flat and touching, 11 and 13 of 90 were refused, most as leaning); a side face's pips are new. The response
    is taken where asked, round the spots asked about (a lean check asks about the few spots near one face)."""

    def __init__(self, before: U8, kernel: int) -> None:
        self._before, self._kernel = before, kernel

    def __call__(self, xy: F64, peak: F64) -> NDArray[np.bool_]:
        h, w = self._before.shape
        x = np.clip(np.rint(xy[:, 0]).astype(np.intp), 0, w - 1)
        y = np.clip(np.rint(xy[:, 1]).astype(np.intp), 0, h - 1)
        # (The response at a pixel, grown by two, depends on the pixels within 3 half-kernels and 4 px of it
        # (a closing, the blur, the growth): in a window that much larger than the spots it is the whole
        # image's.)
        m = 3 * (self._kernel // 2) + 4
        x0, y0 = max(0, int(x.min()) - m), max(0, int(y.min()) - m)
        x1, y1 = min(w, int(x.max()) + m + 1), min(h, int(y.max()) + m + 1)
        resp = cv2.dilate(black_hat(np.ascontiguousarray(self._before[y0:y1, x0:x1]), self._kernel), _BOX5)
        return np.asarray(resp[y - y0, x - x0] >= OLD_SHARE * peak, bool)


def frame_pip_d(w: int, h: int) -> float:
    """A pip's diameter guessed from the size of a frame w x h alone (FRAME_PER_PIP_D)."""
    return min(w, h) / FRAME_PER_PIP_D


def noise_floors(gray: U8) -> tuple[float, float]:
    """(least spot response, least rim edge) in grey levels for this frame's pixel noise."""
    noise = noise_sigma(gray)
    return max(MIN_SPOT, SPOT_NOISE * noise), max(MIN_EDGE, EDGE_NOISE * noise)


_BOX5 = np.ones((5, 5), np.uint8)

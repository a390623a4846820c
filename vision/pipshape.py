"""The shape of a face's pips: round on a face seen square on, ellipses on a face seen at a slant.

A leaning die's top face is foreshortened across its tilt, and every pip on it with it: a round pip becomes
an ellipse whose minor to major axis is the foreshortening. The pip grid's skew (vision/layout.py) measures
the same thing, but only on faces whose pips span two directions (4, 5, 6, and a 6's rows are squeezed by
design): a 1's single pip and a 2's or 3's line of pips have no skew to measure. Their pips' shape does.

Measured on dark pips of white faces only (white in the light's colour, as vision/darkpips.py's white-die
pass takes them, and of median grey LIGHT at least): on dark dice the pips' outline is blurred by glare,
translucent bodies and low contrast, and the Byler photos' flat dark and coloured dice, their pips taken by
colour difference, measured as low as 0.15 (2026-11-26: 1.8-2.4% of the dice read right under 0.65-0.7);
their white dice read right, dark pips on a light face, measured 0.88 at the least (174 of 196 measured,
every pip found), and of the light coloured dice the reader read right one, a marbled yellow 6 seen
obliquely at the photo's edge, measured 0.78. Rendered leaning white dice (tests/vision/render.py's squash
s) measure s within 0.05. A face counts as seen at a slant when every pip was found and both their mean
shape and the roundest pip are squashed beyond 1 / darkpips.MAX_SKEW, the grid's own limit for the same slant.

Pure: a BGR frame and the face's geometry in, numbers and a reason out.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.darkpips import MAX_CHROMA, MAX_SKEW

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

PATCH = 96  # side of the resampled face, pixels (the moments are taken on interpolated grey levels)
INNER = 0.4  # half the side of the square around the face centre that holds its pips, in face sides
PIP_R = (0.045, 0.16)  # a pip's radius, in face sides (vision/faces.py's bounds)
# ... and a 1's, which may be one large pip (Japanese dice, vision/darkpips.py BIG_ONE_R: up to half the face
# across). Measured at PIP_R, such a pip was no pip, and a shadow's sliver alone on the face made a flat 1 a
# leaning one (rendered white dice with a red 1 0.46 of the face across: 20 of 60 refused so).
ONE_R = 0.27
LIGHT = 150.0  # median grey of a face light enough for its dark pips' shape to be measured
SQUASHED = 1.0 / MAX_SKEW  # the pip grid's own limit for the same slant: 0.8
# slant() looks this much wider than the face it is given: a leaning die's face is found smaller than the die
# and its grid's turn is a guess, so its corner pips (0.36 of a side from the centre, with their radius)
# would fall outside INNER of the face found.
REACH = 1.15


def white(bgr: U8, centre: tuple[float, float], side: float, gains: F64) -> bool:
    """Whether the face at `centre` is white, grey or cream in the light's own colour (`gains`,
    vision/scene.neutral_gains): the median channel spread over its middle half, in which pips are few,
    within darkpips.MAX_CHROMA, as for the white-die pass."""
    h, w = bgr.shape[:2]
    r = max(1, round(side / 4))
    x, y = round(centre[0]), round(centre[1])
    px = bgr[max(0, y - r):min(h, y + r + 1), max(0, x - r):min(w, x + r + 1)].reshape(-1, 3).astype(np.float64)
    if not len(px):
        return False
    px *= gains
    return bool(np.median(px.max(axis=1) - px.min(axis=1)) <= MAX_CHROMA)


def slant(bgr: U8, centre: tuple[float, float], side: float, theta: float, value: int) -> str:
    """Why the light face of `value` at `centre` is seen at a slant ("" where it is not, or cannot be told:
    a dark face, or not every pip found); the arguments as for pip_shape."""
    squash, count, body = pip_shape(bgr, centre, REACH * side, theta, ONE_R if value == 1 else PIP_R[1])
    if body < LIGHT or count != value or squash >= SQUASHED:
        return ""
    return f"cocked: its pips are seen at a slant (round pips drawn {squash:.2f} as wide as long)"


def pip_shape(bgr: U8, centre: tuple[float, float], side: float, theta: float,
              most_r: float = PIP_R[1]) -> tuple[float, int, float]:
    """(how squashed the pips are, pips measured, the face's median grey) on the face of side `side` pixels
    at `centre`, its grid turned `theta` radians. The squash is minor / major axis of the pips' mean shape or
    of the roundest pip, whichever is rounder; 1.0 where no pip stands clear of the face. The perspective's
    own squash is not undone: the reader measures pips only where it does not know the camera
    (vision/reader.py)."""
    m = pip_moments(bgr, centre, side, theta, most_r=most_r)
    if not m.count:
        return 1.0, 0, m.body
    # A slant squashes every pip, the same way: the mean shape and the roundest pip must both be squashed
    # (an ink blot or a chip among round pips is squashed alone, pips squashed different ways average round).
    return max(squash_of(m.shape), m.roundest), m.count, m.body


@dataclass(frozen=True)
class PipMoments:
    """The pips found on a face: their mean shape (each pip's second moments scaled to unit determinant, in
    the patch's axes: the frame's, turned by the `theta` asked for), how many, the roundest one's minor /
    major axis, and the face's median grey."""

    shape: F64
    count: int
    roundest: float
    body: float


def squash_of(shape: F64) -> float:
    """Minor / major axis of a pip shape (a 2x2 second-moment matrix)."""
    low, high = np.linalg.eigvalsh(shape)
    return float(np.sqrt(max(low, 0.0) / high)) if high > 0 else 1.0


def _median_u8(px: U8) -> float:
    """np.median of uint8 values, from their histogram (a partition of the patch's core cost more)."""
    n = px.size
    cum = np.cumsum(np.bincount(px.ravel(), minlength=256))
    # The k-th smallest value (from 0) is the first level whose running count exceeds k.
    lower = int(np.searchsorted(cum, (n - 1) // 2 + 1))
    upper = int(np.searchsorted(cum, n // 2 + 1))
    return (lower + upper) / 2.0


def face_patch(bgr: U8, centre: tuple[float, float], side: float, theta: float, light: bool = False) -> U8:
    """The grey levels of the face of side `side` pixels at `centre`, its grid turned `theta` radians, resampled
    to PATCH x PATCH with the grid's axes along the patch's (with `light`, turned over)."""
    n = PATCH
    s = n / side
    c, si = float(np.cos(theta)), float(np.sin(theta))
    # Frame -> patch: turn by -theta about the face centre, scale by s; rot is that turn.
    rot = np.array([[c, si], [-si, c]])
    # Grey levels of the face's surroundings only (a window a little over the patch's turned square).
    h, w = bgr.shape[:2]
    r = int(np.ceil(0.75 * side)) + 2
    x0, y0 = max(0, int(centre[0]) - r), max(0, int(centre[1]) - r)
    x1, y1 = min(w, int(centre[0]) + r + 1), min(h, int(centre[1]) + r + 1)
    grey = cv2.cvtColor(np.ascontiguousarray(bgr[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY) if x1 > x0 and y1 > y0 \
        else np.zeros((1, 1), np.uint8)
    if light:
        grey = 255 - grey
    local = (centre[0] - x0, centre[1] - y0)
    m = np.hstack([s * rot, (np.array([n / 2, n / 2]) - s * rot @ np.array(local))[:, None]])
    return np.asarray(cv2.warpAffine(grey, m, (n, n), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE),
                      np.uint8)


def pip_moments(bgr: U8, centre: tuple[float, float], side: float, theta: float, light: bool = False,
                most_r: float = PIP_R[1]) -> PipMoments:
    """The pips on the face of side `side` pixels at `centre`, its grid turned `theta` radians: dark pips
    on a lighter face, or with `light`, light pips on a darker one (the grey levels turned over); a pip's
    radius up to `most_r` of `side`.

    Each pip darker than the face's median grey by more than Otsu's split of the face (20 grey levels at
    least), of a pip's size and clear of the face's rim, gives its second moments, weighted by how much
    darker than the split each pixel is; each is scaled to unit area and they are averaged, so a large
    pip counts no more than a small one."""
    n = PATCH
    g8 = face_patch(bgr, centre, side, theta, light)
    lo, hi = int(np.ceil(n / 2 - INNER * n)), int(np.floor(n / 2 + INNER * n))
    core = np.s_[lo:hi + 1, lo:hi + 1]
    body = _median_u8(g8[core])
    # Only the core's pixels count from here on: each measure is taken on them alone, the same as on the
    # whole patch with nothing outside the core.
    dark = np.clip(body - g8[core].astype(np.float32), 0.0, None)
    split, _ = cv2.threshold(np.clip(dark, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(float(split), 20.0)
    _, labels, stats, _ = cv2.connectedComponentsWithStats((dark > thr).view(np.uint8), connectivity=8)
    a_min, a_max = np.pi * (PIP_R[0] * n) ** 2, np.pi * (most_r * n) ** 2
    shape = np.zeros((2, 2))
    count, roundest = 0, 0.0
    bx, by, bw, bh, areas = (stats[:, j] for j in range(5))
    # (Clear of the core's rim: in the core's own pixels, its first and last rows and columns are 0 and
    # hi - lo.)
    pips = np.flatnonzero((areas >= a_min) & (areas <= a_max) & (bx > 0) & (by > 0) & (bx + bw - 1 < hi - lo)
                          & (by + bh - 1 < hi - lo))
    for i in pips[pips > 0]:
        roi = np.s_[int(by[i]):int(by[i] + bh[i]), int(bx[i]):int(bx[i] + bw[i])]
        wt = np.where(labels[roi] == i, dark[roi] - thr / 2, 0.0).astype(np.float32)
        mo = cv2.moments(wt)
        cov = np.array([[mo["mu20"], mo["mu11"]], [mo["mu11"], mo["mu02"]]]) / mo["m00"]
        det = float(np.linalg.det(cov))
        if det <= 0.0:
            continue
        shape += cov / np.sqrt(det)
        count += 1
        roundest = max(roundest, squash_of(cov))
    return PipMoments(shape / count if count else shape, count, roundest, body)

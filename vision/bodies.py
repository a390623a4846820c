"""Find die bodies in a frame: where the picture differs from its local background.

Pure: arrays in, plain values out. Every size here derives from one number, the die size in pixels, which is
either given (calibration) or measured from the frame itself (the typical size of the compact blobs found).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.morph import morphology

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]


@dataclass(frozen=True)
class Body:
    """One die-sized region: a rotated rectangle in frame pixels, plus how it was found."""

    center: tuple[float, float]
    size: tuple[float, float]
    angle: float  # degrees, as cv2.minAreaRect gives it
    split: bool  # cut out of a larger blob of touching dice
    area: float  # pixel area of its mask region
    overlap: bool = False  # too big for one die, too small for two side by side: one die on another


@dataclass(frozen=True)
class Segmentation:
    bodies: tuple[Body, ...]
    die_size: float  # side of a die's visible outline, in frame pixels
    rejected: tuple[tuple[tuple[float, float], str], ...]  # blobs that looked like dice but were not usable


# Largest plausible die side as a share of the frame's short side.
MAX_DIE_SHARE = 0.25
# Die size (pixels) from which the foreground mask is computed at half scale.
FULL_RES_DIE = 48.0
# Most touching dice one blob is taken to hold; a larger blob is a structure (a tray's wall, a sheet).
MAX_DICE_PER_BLOB = 12
# Carving dice out of a blob (see _carve): the least contrast a carved die has, in foreground thresholds, and
# the width (dice) below which a strong part is a strip, not a die. Dice carved out of Byler's tray walls
# and clusters measure 0.7-1.05 dice across (root of area, 10th-90th percentile); a tray's dark rim is a
# third to half a die wide.
CARVE_MIN_CONTRAST = 2.0
CARVE_OPEN = 0.7
# The contrast map's units: foreground thresholds x LEVEL_UNIT, in uint8 (saturating at 8 thresholds).
LEVEL_UNIT = 32.0

# Weighted squares of per-channel differences (0..255) for the colour distance: L counts a quarter, a/b
# double.
_SQ_L = (0.25 * np.arange(256, dtype=np.float32) ** 2).astype(np.float32)
_SQ_AB = (2.0 * np.arange(256, dtype=np.float32) ** 2).astype(np.float32)


def _floored_median_multiple(x: F32, k: float, floor: float) -> float:
    """max(floor, k * median(x)), usually without the median: when the upper middle value is already
    at or under the floor (at least n // 2 + 1 values are), the median is too and the floor wins. A
    count costs a fraction of the partition a median needs."""
    if np.count_nonzero(x <= floor / k) >= x.size // 2 + 1:
        return floor
    return max(floor, k * float(np.median(x)))


def _odd(x: float) -> int:
    n = max(1, round(x))
    return n if n % 2 else n + 1


def foreground(lab: U8, die: float) -> U8:
    """Mask of pixels that differ from the local background, in colour, brightness or sharp edges."""
    return _masks(lab, die)[0]


def _masks(lab: U8, die: float) -> tuple[U8, U8]:
    """The foreground mask, and each pixel's colour contrast in foreground thresholds (x LEVEL_UNIT), for
    carving dice out of larger regions.

    The background is a median over a window several dice wide, taken at a quarter scale: it follows slow
    light falloff and a coloured table while dice, being small, fall out of the median. A white die on a
    white sheet hardly differs in colour, so sharp luminance edges (its outline, its pips) also count.
    """
    h, w = lab.shape[:2]
    # A die of 24 px or more is still 12 px or more at half scale, plenty to find its body: work there
    # (a quarter of the pixels) and bring the mask back to full size at the end.
    if die >= FULL_RES_DIE:
        half = np.asarray(cv2.resize(lab, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA),
                          dtype=np.uint8)
        small_mask, small_level = _masks(half, die / 2.0)
        return (np.asarray(cv2.threshold(cv2.resize(small_mask, (w, h), interpolation=cv2.INTER_LINEAR),
                                         127, 255, cv2.THRESH_BINARY)[1], dtype=np.uint8),
                np.asarray(cv2.resize(small_level, (w, h), interpolation=cv2.INTER_LINEAR), dtype=np.uint8))
    q = 4
    small = cv2.resize(lab, (max(1, w // q), max(1, h // q)), interpolation=cv2.INTER_AREA)
    k = min(_odd(3.0 * die / q), _odd(min(small.shape[:2]) - 1))
    k = max(3, k)
    bg = cv2.resize(cv2.medianBlur(small, k), (w, h), interpolation=cv2.INTER_LINEAR)
    dl, da, db = cv2.split(cv2.absdiff(lab, bg))
    # Lightness counts half and chroma double: a soft shadow differs from the sheet only in lightness, a
    # coloured die mostly in a/b, a black die in lightness by far more than any shadow. The weighted
    # squares come from tables (exact in float32) and are summed in place: fresh full-frame float
    # arrays cost more in page faults than in arithmetic (3-channel float temporaries once took ~4 ms).
    dist = np.asarray(cv2.LUT(dl, _SQ_L), dtype=np.float32)
    cv2.add(dist, cv2.LUT(da, _SQ_AB), dst=dist)
    cv2.add(dist, cv2.LUT(db, _SQ_AB), dst=dist)
    cv2.sqrt(dist, dst=dist)
    cv2.GaussianBlur(dist, (0, 0), 1.0, dst=dist)
    # Noise level of the background itself (most of the frame); a textured floor raises the bar.
    # (Medians over every other pixel in each direction: the same figure to a fraction of a grey level
    # for a quarter of the cost; a full-frame median was a tenth of the reader's time.)
    t = _floored_median_multiple(dist[::2, ::2], 6.0, 10.0)
    lum = cv2.GaussianBlur(lab[..., 0], (0, 0), 1.0)
    mag = np.asarray(cv2.Sobel(lum, cv2.CV_32F, 1, 0), dtype=np.float32)
    gy = cv2.Sobel(lum, cv2.CV_32F, 0, 1)
    cv2.magnitude(mag, gy, mag)
    tg = _floored_median_multiple(mag[::2, ::2], 8.0, 40.0)
    mask = ((dist > t) | (mag > tg)).view(np.uint8) * np.uint8(255)
    mask = morphology(mask, cv2.MORPH_CLOSE, _odd(die / 5.0))
    # Fill holes up to a die's area (pips, a white die's face inside its outline) but not a tray's floor
    # inside its rim.
    filled = mask.copy()
    _fill_holes(filled, 1.5 * die * die)
    # Opening cuts thin bridges (shadows, a speck touching a die) and drops specks smaller than a pip.
    out = morphology(filled, cv2.MORPH_OPEN, _odd(die / 4.0))
    level = np.asarray(cv2.convertScaleAbs(dist, alpha=LEVEL_UNIT / t), dtype=np.uint8)
    return out, level


def _fill_holes(mask: U8, max_area: float) -> None:
    """Fill, in place, the holes in `mask` smaller than `max_area`."""
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return
    for c, hh in zip(contours, hier[0], strict=True):
        if hh[3] >= 0 and cv2.contourArea(c) < max_area:
            cv2.drawContours(mask, [c], -1, 255, thickness=cv2.FILLED)


def _blobs(mask: U8) -> list[tuple[NDArray[np.int32], float, float]]:
    """(contour, area, solidity) of each blob, also those inside another blob's hole.

    Dice in a tray with a dark rim lie inside the rim's blob, in the hole its floor makes: outer contours only
    (RETR_EXTERNAL) never saw them (35 Byler photos lost every die that way). RETR_CCOMP puts every blob's
    outer boundary at its top level, however deeply nested, and holes at the second.
    """
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    res = []
    for c, h in zip(contours, hier[0], strict=True):
        if h[3] >= 0:
            continue  # a hole's boundary, not a blob
        a = float(cv2.contourArea(c))
        if a <= 0:
            continue
        hull = float(cv2.contourArea(cv2.convexHull(c)))
        res.append((c.astype(np.int32), a, a / hull if hull > 0 else 0.0))
    return res


def measure_die_size(mask: U8, guess: float, share: float = MAX_DIE_SHARE) -> float | None:
    """Typical side of a compact, convex blob: single dice outnumber clusters in any throw.

    A blob wider than `share` of the frame's short side (a quarter) is the table or a sheet, not a die:
    measured as one, it once made every later kernel hundreds of pixels wide (a read took ten times as
    long) and found no dice anyway. (A close-up's dice are measured with a larger share, vision/scale.py.)
    """
    sides = []
    biggest = (share * min(mask.shape[:2])) ** 2
    for c, a, sol in _blobs(mask):
        if a < (guess / 3.0) ** 2 or sol < 0.85 or a > biggest:
            continue
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        if min(rw, rh) <= 0 or max(rw, rh) / min(rw, rh) > 1.35:
            continue
        sides.append(np.sqrt(a))
    if not sides:
        return None
    arr = np.sort(np.array(sides))
    # Lower half median: clusters that still look square (2x2) would pull a plain median up.
    return float(np.median(arr[: max(1, (len(arr) + 1) // 2 + len(arr) // 4)]))


# A measure within this band of a guess (as a ratio) leaves the guess standing: the guesses from a frame's
# size fit the frames the reader was developed on, and a measure on a few blobs is noisier than that.
NEAR_GUESS = (0.7, 1.4)


def far_from(measured: float, guess: float) -> bool:
    """Whether `measured` lies outside NEAR_GUESS of `guess` (the guess should give way to it)."""
    return not NEAR_GUESS[0] < measured / guess < NEAR_GUESS[1]


def _measured(lab: U8, guess: float, share: float = MAX_DIE_SHARE) -> tuple[float | None, U8, U8]:
    """The die size measured from the frame (None: no compact blob), and the masks it was measured on.
    A measure far from the guess is taken again on masks made at the measured size (the kernels scale
    with it)."""
    mask, level = _masks(lab, guess)
    measured = measure_die_size(mask, guess, share)
    if measured is not None and far_from(measured, guess):
        mask, level = _masks(lab, measured)
        measured = measure_die_size(mask, measured, share) or measured
    return measured, mask, level


def rough_die_size(bgr: U8, shrink: float) -> float | None:
    """The die size in pixels of `bgr`, measured as segment() measures it but on a copy `shrink` times
    smaller: a cheap estimate, to choose the scale a frame is read at (vision/scale.py). The copy is made by
    halving with a Gaussian pyramid (smoothed, so nothing aliases) and a last bilinear step under two:
    on a 640x480 frame, 1.7 ms against 2.8 ms by INTER_AREA, the same measure."""
    w = bgr.shape[1]
    small = bgr
    while shrink >= 2.0 and min(small.shape[:2]) >= 32:
        small = np.asarray(cv2.pyrDown(small), dtype=np.uint8)
        shrink /= 2.0
    if shrink > 1.0:
        sh, sw = small.shape[:2]
        small = np.asarray(cv2.resize(small, (max(1, round(sw / shrink)), max(1, round(sh / shrink))),
                                      interpolation=cv2.INTER_LINEAR), dtype=np.uint8)
    lab = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2LAB), dtype=np.uint8)
    measured, _, _ = _measured(lab, min(lab.shape[:2]) / 16.0)
    return measured * w / lab.shape[1] if measured else None


def close_up_die_size(bgr: U8, short: int, share: float) -> float | None:
    """The die size in pixels of `bgr` taken as a close-up: its dice up to `share` of its short side, measured
    on a copy `short` pixels on its short side. The masks are made for a die of MAX_DIE_SHARE of it (blobs a
    third of that and larger count), so a close-up die's pips (compact dark blobs a fifth of its side, which
    rough_die_size measures as dice) are filled into its face or too small to count."""
    h, w = bgr.shape[:2]
    f = short / min(h, w)
    small = np.asarray(cv2.resize(bgr, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA),
                       dtype=np.uint8)
    lab = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2LAB), dtype=np.uint8)
    measured, _, _ = _measured(lab, MAX_DIE_SHARE * min(lab.shape[:2]), share)
    return measured * w / lab.shape[1] if measured else None


def segment(bgr: U8, die_size: float | None = None, dice: int | None = None) -> Segmentation:
    """Die bodies in `bgr`. `die_size` (pixels) if known, else measured from the frame. `dice`: how many dice
    the frame holds, if known: a blob of more than twice as many dice's areas (each die with a shadow as
    large as itself) is no cluster of them but a structure they may touch, and is carved, not cut up."""
    most = MAX_DICE_PER_BLOB if dice is None else max(1, min(MAX_DICE_PER_BLOB, 2 * dice))
    lab = np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB), dtype=np.uint8)
    h, w = bgr.shape[:2]
    if die_size:
        die = die_size
        mask, level = _masks(lab, die)
    else:
        guess = min(h, w) / 16.0
        measured, mask, level = _measured(lab, guess)
        die = measured or guess
    bodies: list[Body] = []
    rejected: list[tuple[tuple[float, float], str]] = []
    for c, a, sol in _blobs(mask):
        found = _bodies_of(c, a, sol, die, (mask, level), most)
        if found is not None:
            bodies.extend(found)
            continue
        # Dice touching a large structure (a tray's wall and its shading, a sheet's edge) merge with it: look
        # inside it for what stands out more than the structure does. Dice found there often lean on the wall
        # and show a side face: they are marked as cut out of a larger blob, so that the reader does not
        # trust a Lab read of 1-3 pips on them (Byler: a leaning 1 read as its top pip plus a side's two).
        for c2, a2, sol2 in _carve(mask, level, c, die):
            found = _bodies_of(c2, a2, sol2, die, None, most)
            if found is None:
                m = cv2.moments(c2)
                rejected.append(((m["m10"] / m["m00"], m["m01"] / m["m00"]), "not a die (large irregular region)"))
            else:
                bodies.extend(replace(b, split=True) for b in found)
    return Segmentation(tuple(bodies), die, tuple(rejected))


def _bodies_of(c: NDArray[np.int32], a: float, sol: float, die: float,
               maps: tuple[U8, U8] | None, most: int = MAX_DICE_PER_BLOB) -> list[Body] | None:
    """The die bodies of one blob, None for a region too large or irregular to be dice. `maps` (the
    foreground mask and contrast level) for a blob of the mask, None for a part carved out of one."""
    area1 = die * die
    if a < 0.3 * area1:
        return []  # speck: smaller than any die seen at this scale
    n = round(a / area1)
    if n > most or (n > 2 and sol < 0.5):
        return None
    (rx, ry), (rw, rh), ang = cv2.minAreaRect(c)
    elongation = max(rw, rh) / min(rw, rh) if min(rw, rh) > 0 else 0.0
    if maps is None and elongation >= 1.5:
        # A carved part has no shadow or halo, so its area undercounts; its shape does not: a die seen from
        # above, even with a side face showing, is at most 1.4 times as long as wide (Byler: 1.41 at most).
        return _split(c, max(n, round(elongation)))
    # One die plus its shadow or bevel glare can measure up to twice a die's area; it stays square.
    square = 0 < elongation < 1.35 and a > 0.75 * rw * rh
    if n <= 1 or (square and a < 2.6 * area1):
        return [Body((rx, ry), (rw, rh), ang, False, a)]
    if n == 2 and a < 1.7 * area1 and sol < 0.9:
        # Two dice side by side cover two die areas; an L-shaped blob of 1.3-1.7 is one die lying
        # partly on another.
        return [Body((rx, ry), (rw, rh), ang, False, a, overlap=True)]
    if maps is not None:
        # Touching dice: where they stand apart in contrast (a shadow or a lighter gap between them), each
        # die is its own part, centred on the die; k-means cuts fall wherever the pixels balance (Byler: 1101
        # -> 1194 dice read, none wrong). Only when that gives no separate, usable parts does k-means cut the
        # blob (one part alone is not trusted: a die cut out of its shadow is, but so is a cluster with its
        # fainter dice left out, and taking it misread a 6 as a 4).
        parts = [_bodies_of(c2, a2, sol2, die, None, most) for c2, a2, sol2 in _carve(*maps, c, die)]
        if len(parts) > 1 and all(p is not None for p in parts):
            return [b for p in parts if p is not None for b in p]
    return _split(c, max(2, n))


def _carve(mask: U8, level: U8, contour: NDArray[np.int32],
           die: float) -> list[tuple[NDArray[np.int32], float, float]]:
    """The parts of a blob that stand out from the rest of it, at least CARVE_OPEN dice wide: (contour,
    area, solidity) in frame pixels.

    The blob's own pixels split in two by contrast (Otsu): a tray wall's shading, most of its region,
    differs from the floor by one or two foreground thresholds, the dice on it by three to eight (Byler); the
    shadows and gaps between touching dice are weaker than the dice. Strips as strong as a die but narrower
    (a tray's dark rim) go in the opening."""
    x, y, bw, bh = cv2.boundingRect(contour)
    # The blob's own pixels: not those of other blobs lying in its holes (dice on a tray's floor inside the
    # rim's blob), which are segmented on their own.
    _, comp = cv2.connectedComponents(mask[y:y + bh, x:x + bw])
    px, py = contour[0, 0]
    region = (comp == comp[py - y, px - x]).view(np.uint8) * np.uint8(255)
    lv = level[y:y + bh, x:x + bw]
    vals = lv[region > 0].reshape(-1, 1)
    if vals.size == 0:
        return []
    thr, _ = cv2.threshold(vals, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    strong = ((lv > max(thr, CARVE_MIN_CONTRAST * LEVEL_UNIT)) & (region > 0)).view(np.uint8) * np.uint8(255)
    strong = morphology(strong, cv2.MORPH_CLOSE, _odd(die / 5.0))
    _fill_holes(strong, 1.5 * die * die)  # pips of the die's own colour or lighter than the floor
    # (a disc of 19-29 px on Byler, over blobs up to the whole frame: by rectangles there, vision/morph.py)
    cores = morphology(strong, cv2.MORPH_OPEN, _odd(CARVE_OPEN * die))
    # A core in a strong part too large to be dice is a thick spot of a strip (a tray rim's corner).
    _, comp, stats, _ = cv2.connectedComponentsWithStats(strong)
    huge = np.nonzero(stats[1:, cv2.CC_STAT_AREA] > MAX_DICE_PER_BLOB * die * die)[0] + 1
    if huge.size:  # (rare: the test over every pixel is most of a large blob's carving)
        cores[np.isin(comp, huge)] = 0
    off = np.array([x, y], np.int32)
    return [(c + off, a, sol) for c, a, sol in _blobs(cores)]


def _split(contour: NDArray[np.int32], n: int) -> list[Body]:
    """Cut a blob of `n` touching dice into `n` parts around distance-transform seeds (k-means on pixels)."""
    x, y, bw, bh = cv2.boundingRect(contour)
    sub = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(sub, [contour - np.array([x, y], np.int32)], -1, 255, thickness=cv2.FILLED)
    ys, xs = np.nonzero(sub)
    pts = np.column_stack([xs, ys]).astype(np.float32)
    if len(pts) < n:
        return []
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    # Deterministic start (OpenCV's random seeding would make the reader depend on call history): cut the
    # blob into n equal slices along its long axis.
    centred = pts - pts.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    proj = centred @ vt[0]
    # Each pixel's rank along the axis: the inverse of the sorting permutation (what argsort of argsort
    # gives, without a second sort).
    order = np.argsort(proj)
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(order))
    init = (ranks * n // len(pts)).astype(np.int32).reshape(-1, 1)
    _, labels, _ = cv2.kmeans(pts, n, init, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    labels = labels.ravel()
    out = []
    for k in range(n):
        p = pts[labels == k]
        if len(p) < 5:
            continue
        (rx, ry), (rw, rh), ang = cv2.minAreaRect(p)
        out.append(Body((rx + x, ry + y), (rw, rh), ang, True, float(len(p))))
    return out

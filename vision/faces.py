"""Read one die's top face: pips as blobs that contrast with the face, checked against the d6 layouts.

Pure: arrays in, plain values out. The face is resampled to a fixed square so every pip threshold is a
fraction of the die's side; the contrast threshold comes from the face's own colour statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.layout import LAYOUTS, off_grid_reason

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]
_Float = TypeVar("_Float", np.float32, np.float64)

PATCH = 48  # side of the resampled die, pixels
WIN = 1.3
# Pip spacing (centre to a corner pip, along one axis) as a share of the die outline found: on the Byler
# photos it is 0.15-0.22 (median 0.185; the outline includes bevel and shadow), hence the bounds below.
TYPICAL_GRID = 0.19
MIN_GRID, MAX_GRID = 0.13, 0.30
MAX_SKEW = 1.4  # singular-value ratio of the pip grid beyond which the top face is not flat (cocked die)
MAX_RESID = 0.38  # pip distance from its grid cell, in grid units, beyond which a layout is not trusted


def median_rows(x: NDArray[_Float]) -> NDArray[_Float]:
    """np.median(x, axis=0), the same values (the middle one, or the mean of the middle two in x's own type)
    from one partition, without np.median's overhead: it runs a few times on every small patch read."""
    n = x.shape[0]
    if n == 0:
        return np.asarray(np.median(x, axis=0), dtype=x.dtype)  # NaN, as np.median gives
    part = np.partition(x, ((n - 1) // 2, n // 2), axis=0)
    return np.asarray((part[(n - 1) // 2] + part[n // 2]) / 2, dtype=x.dtype)


@dataclass(frozen=True)
class Face:
    value: int | None
    confidence: float
    reason: str  # why value is None; "" when read
    pips: tuple[tuple[float, float], ...] = ()  # frame coordinates
    grid: float = 0.0  # pip spacing / die side


def _patch(bgr: U8, center: tuple[float, float], side: float, angle: float, scale: float) -> tuple[U8, F64]:
    """Resample the square of `side*scale` around `center`, rotated by `angle`, to PATCH x PATCH.

    Returns the patch and the 2x3 affine map from patch to frame coordinates.
    """
    s = side * scale
    th = np.deg2rad(angle)
    c, si = np.cos(th), np.sin(th)
    k = s / PATCH
    # patch (u, v) -> frame: center + R * ((u - P/2 + 0.5) * k, (v - P/2 + 0.5) * k)
    off = -PATCH / 2 + 0.5
    a = np.array(
        [
            [c * k, -si * k, center[0] + k * (c * off - si * off)],
            [si * k, c * k, center[1] + k * (si * off + c * off)],
        ]
    )
    patch = np.asarray(cv2.warpAffine(
        bgr, a, (PATCH, PATCH), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    ), dtype=np.uint8)
    return patch, a


@dataclass(frozen=True)
class _Fit:
    value: int | None
    resid: float  # worst pip distance from its grid cell, in grid units
    grid: float  # pip spacing, patch pixels
    theta: float  # grid rotation relative to the patch, radians
    centre: tuple[float, float]  # face centre, patch pixels relative to the patch centre
    reason: str


def _fit_layout(pts: F64) -> _Fit:
    """Match pip centres (patch units, relative to the patch centre) to a legal d6 layout.

    The grid's spacing and orientation are refined from the pips themselves (Procrustes on the assigned
    cells), so an outline angle that is off by a few degrees still fits.
    """
    n = len(pts)
    if n == 0:
        return _Fit(None, 1.0, 0.0, 0.0, (0.0, 0.0), "no pips found")
    if n > 6:
        return _Fit(None, 1.0, 0.0, 0.0, (0.0, 0.0), f"{n} pip-like spots, not a d6 face")
    if n == 1:
        r = float(np.hypot(*pts[0])) / PATCH
        if r >= 0.15:
            return _Fit(None, 1.0, 0.0, 0.0, (0.0, 0.0), "single pip off the face centre")
        return _Fit(1, r / 0.15 * 0.38, TYPICAL_GRID * PATCH, 0.0, (0.0, 0.0), "")
    centre = pts.mean(axis=0)
    cxy = (float(centre[0]), float(centre[1]))
    if float(np.hypot(*centre)) / PATCH > 0.15:
        return _Fit(None, 1.0, 0.0, 0.0, cxy, "pips not centred on the face")
    rel = pts - centre
    cheb = np.max(np.abs(rel), axis=1)
    g = float(median_rows(cheb[cheb > 0.5 * cheb.max()]))
    if g <= 0:
        return _Fit(None, 1.0, 0.0, 0.0, cxy, "degenerate pip layout")
    theta = 0.0
    best = _Fit(None, 1.0, g, 0.0, cxy, "pips do not form a d6 layout")
    for _ in range(3):
        c, s = np.cos(theta), np.sin(theta)
        rot = rel @ np.array([[c, -s], [s, c]])
        q = rot / g
        cells = np.rint(q).astype(int)
        if np.any(np.abs(cells) > 1):
            break
        resid = float(np.max(np.hypot(*(q - cells).T)))
        cellset = frozenset((int(u), int(v)) for u, v in cells)
        if len(cellset) == n and cellset in LAYOUTS.get(n, ()):
            if resid < MAX_RESID:
                best = _Fit(n, resid, g, theta, cxy, "")
            elif best.value is None:
                best = _Fit(None, resid, g, theta, cxy, off_grid_reason(rel, cells, n))
            if resid < 0.1:
                break
        # Procrustes: the rotation taking the assigned grid cells onto the observed pips.
        tgt = cells.astype(np.float64) * g
        num = float(np.sum(tgt[:, 0] * rot[:, 1] - tgt[:, 1] * rot[:, 0]))
        den = float(np.sum(tgt[:, 0] * rot[:, 0] + tgt[:, 1] * rot[:, 1]))
        if den <= 0:
            break
        theta -= np.arctan2(num, den)
        g *= float(np.sum(np.hypot(*rot.T) * np.hypot(*tgt.T)) / max(1e-9, float(np.sum(np.hypot(*tgt.T) ** 2))))
    if best.value is not None and not MIN_GRID <= best.grid / PATCH <= MAX_GRID:
        return _Fit(None, best.resid, best.grid, best.theta, cxy, "pip spacing does not fit the die's size")
    return best


def outline(bgr: U8, center: tuple[float, float], side: float, die: float
            ) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """The die's own outline near `center`: pixels unlike the local background, as a rotated rectangle.

    Looks at a window 1.6 sides wide; the background colour is the median of the window's rim. Returns
    (center, (w, h), angle) in frame pixels, or None when no die-sized region stands out there.
    """
    win = WIN * side
    patch, amap = _patch(bgr, center, win, 0.0, 1.0)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    p = PATCH
    rim = np.concatenate([lab[:2].reshape(-1, 3), lab[-2:].reshape(-1, 3), lab[:, :2].reshape(-1, 3),
                          lab[:, -2:].reshape(-1, 3)])
    bg = median_rows(rim)
    d = lab - bg
    dist = np.sqrt(d[..., 0] ** 2 + 2.0 * (d[..., 1] ** 2 + d[..., 2] ** 2))
    rim_d = np.sqrt(((rim - bg) ** 2 * np.array([1.0, 2.0, 2.0])).sum(axis=1))
    noise = float(median_rows(rim_d))
    otsu, _ = cv2.threshold(np.clip(dist, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    scale = win / p
    # First the threshold that splits the window in two (right for a coloured or dark die); if that only
    # isolates the pips (a white die on a light table), anything clear of the background's own noise.
    # The second pass weighs lightness down: a shadow is only darker, a white die differs in tint too.
    soft = np.sqrt(0.25 * d[..., 0] ** 2 + 2.0 * (d[..., 1] ** 2 + d[..., 2] ** 2))
    soft_noise = float(median_rows(np.sqrt(((rim - bg) ** 2 * np.array([0.25, 2.0, 2.0])).sum(axis=1))))
    for fg in (dist > max(float(otsu) * 0.6, 3.0 * noise + 6.0), soft > 3.0 * soft_noise + 6.0):
        best = _central_region(fg)
        if best is not None and 0.35 * die * die <= best[0] * scale * scale <= 1.8 * die * die:
            break
    else:
        return None
    (u, v), (w, h), ang = cv2.minAreaRect(best[1])
    x = float(amap[0, 0] * u + amap[0, 1] * v + amap[0, 2])
    y = float(amap[1, 0] * u + amap[1, 1] * v + amap[1, 2])
    return (x, y), (w * scale, h * scale), float(ang)


def _central_region(fg: NDArray[np.bool_]) -> tuple[float, NDArray[np.int32]] | None:
    """(area, contour) of the largest region of `fg`, holes filled, reaching the patch's centre."""
    mask = fg.astype(np.uint8) * 255
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), dtype=np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    c0 = (PATCH - 1) / 2
    best: tuple[float, NDArray[np.int32]] | None = None
    for c in contours:
        if cv2.pointPolygonTest(c, (c0, c0), True) >= -0.1 * PATCH:
            a = float(cv2.contourArea(c))
            if best is None or a > best[0]:
                best = (a, np.asarray(c, dtype=np.int32))
    return best


def read_face(bgr: U8, center: tuple[float, float], side: float, angle: float, recentre: bool = True) -> Face:
    """Read the die whose outline is the square `side` at `center`, turned `angle` degrees.

    An outline that carries a shadow or a side face is off-centre on the top face; when the pip-like
    blobs found (border ones included) are centred elsewhere, the face is read once more around them.
    """
    patch, amap = _patch(bgr, center, side, angle, 1.0)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    p = PATCH
    lo, hi = _LO, _HI
    # (The inner square's pixels in row order: what indexing by the mask `inner` gives.)
    body = median_rows(lab[lo:hi + 1, lo:hi + 1].reshape(-1, 3))
    d = lab - body
    dist = np.sqrt(d[..., 0] ** 2 + 2.0 * (d[..., 1] ** 2 + d[..., 2] ** 2))
    dist = np.asarray(cv2.GaussianBlur(dist, (0, 0), 0.8), dtype=np.float32)
    vals = dist[lo:hi + 1, lo:hi + 1].ravel()
    otsu, _ = cv2.threshold(np.clip(vals, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    below = vals[vals <= otsu]
    # Texture of the body itself (marbling, grain, JPEG noise): pips must stand well clear of it.
    noise = float(median_rows(below)) if below.size else 0.0
    thr = max(float(otsu), 3.0 * noise + 10.0, 20.0)
    mask = ((dist > thr) & _INNER).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    pip_min = (0.045 * p) ** 2 * np.pi
    pip_max = (0.16 * p) ** 2 * np.pi
    pts = []
    areas = []
    others: list[tuple[int, bool, bool]] = []  # (area, touches the border, compact) of blobs that aren't pips
    loose: list[NDArray[np.float64]] = []  # pip-like blobs, border ones included
    for i in range(1, n):
        x, y, w, h, a = (int(v) for v in stats[i])
        compact = max(w, h) <= 2.2 * min(w, h) and a >= 0.45 * w * h
        # A blob cut by the inner border is an edge or a side face, not a pip on the top.
        border = x <= lo or y <= lo or x + w - 1 >= hi or y + h - 1 >= hi
        if pip_min <= a <= pip_max and compact and not border:
            pts.append(cents[i])
            areas.append(a)
        else:
            others.append((a, border, compact))
        if recentre and pip_min <= a <= pip_max and compact:
            loose.append(cents[i])
    if recentre and len(loose) >= 2:
        # Every legal layout is symmetric about the face centre, so the pips' centroid is the face's.
        off = np.mean(np.array(loose), axis=0) - (p - 1) / 2
        if float(np.hypot(off[0], off[1])) > 0.04 * p:
            u, v = (p - 1) / 2 + off[0], (p - 1) / 2 + off[1]
            moved = (float(amap[0, 0] * u + amap[0, 1] * v + amap[0, 2]),
                     float(amap[1, 0] * u + amap[1, 1] * v + amap[1, 2]))
            again = read_face(bgr, moved, side, angle, recentre=False)
            if again.value is not None or not pts:
                return again
    if not pts:
        return Face(None, 0.0, "no pips found")
    frame_pts = tuple(
        (float(amap[0, 0] * u + amap[0, 1] * v + amap[0, 2]), float(amap[1, 0] * u + amap[1, 1] * v + amap[1, 2]))
        for u, v in np.array(pts)
    )
    pip_area = float(median_rows(np.array(areas, np.float64)))
    for a, border, compact in others:
        # A mark inside the face that is not a pip (two pips run together, a chip, a finger tip) makes
        # the count untrustworthy; so does a pip-sized spot on the border when the face claims a single pip
        # (the face may be a 2 or 3 shifted in the patch).
        inside_mark = not border and 0.4 * pip_area <= a <= 3.0 * pip_area
        stray_pip = len(pts) == 1 and compact and 0.25 * pip_area <= a <= 2.0 * pip_area
        if inside_mark or stray_pip:
            return Face(None, 0.0, "a mark on the face that is not a pip", frame_pts)
    arr = np.array(pts, dtype=np.float64) - (p - 1) / 2
    fit = _fit_layout(arr)
    if fit.value is None:
        return Face(None, 0.0, fit.reason, frame_pts, fit.grid / p)
    area_arr = np.array(areas, dtype=np.float64)
    if len(areas) > 1 and float(area_arr.std() / area_arr.mean()) > 0.45:
        return Face(None, 0.0, "pips of unequal size", frame_pts, fit.grid / p)
    # The cells this layout leaves empty must be empty: a pip missed by the threshold turns a 3 into a 2.
    empty = _empty_cell_contrast(dist, fit)
    pip_contrast = float(median_rows(dist[mask > 0]))
    if empty > 0.5 * pip_contrast or empty > thr:
        return Face(None, 0.0, "a pip-like mark where the layout has none", frame_pts, fit.grid / p)
    margin = float(np.clip((pip_contrast - max(empty, noise)) / max(pip_contrast, 1.0), 0.0, 1.0))
    conf = float(np.clip((1.0 - fit.resid / MAX_RESID) * 0.5 + 0.5 * margin, 0.0, 1.0))
    skew = _skew(arr, fit)
    if skew > MAX_SKEW:
        return Face(None, 0.0, "cocked: the top face is seen at a slant", frame_pts, fit.grid / p)
    return Face(fit.value, conf, "", frame_pts, fit.grid / p)


# The outline includes bevels and, seen obliquely, side faces: the top face's pips lie well inside this
# square (read_face), from _LO to _HI inclusive.
_LO, _HI = int(np.ceil((PATCH - 1) / 2 - 0.40 * PATCH)), int(np.floor((PATCH - 1) / 2 + 0.40 * PATCH))
_INNER = np.zeros((PATCH, PATCH), bool)
_INNER[_LO:_HI + 1, _LO:_HI + 1] = True


def _skew(pts: F64, fit: _Fit) -> float:
    """Anisotropy of the pip grid: ratio of the singular values of the affine map from grid cells to pips.

    A die lying flat shows its top face square on (ratio near 1); a cocked die leaning on another die or a
    board edge shows it foreshortened along the tilt. Needs a non-collinear layout (4, 5, 6 pips).
    """
    if fit.value is None or fit.value < 4:
        return 1.0
    c, s = np.cos(fit.theta), np.sin(fit.theta)
    rel = pts - np.array(fit.centre)
    rot = rel @ np.array([[c, -s], [s, c]])
    cells = np.rint(rot / fit.grid)
    m, *_ = np.linalg.lstsq(cells, rel, rcond=None)
    sv = np.linalg.svd(m, compute_uv=False)
    return float(sv[0] / max(sv[1], 1e-9))


# motion_smear's eight directions, eighths of a half turn apart.
_COS, _SIN = np.cos(np.arange(8) * np.pi / 8), np.sin(np.arange(8) * np.pi / 8)
# The pixels of steepest gradient _ranked_steepest looks among first.
STEEPEST = 128


def motion_smear(bgr: U8, center: tuple[float, float], side: float) -> float:
    """How much steeper the die's edges are across one direction than along another (1 = isotropic).

    Motion smears edges only along the motion: the steepest derivative in that direction drops to
    contrast / smear length while the perpendicular one stays sharp. A die at rest shows its outline and
    round pips equally sharp in every direction, whatever its size or the camera's resolution.
    """
    patch, _ = _patch(bgr, center, 1.2 * side, 0.0, 1.0)
    lum = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = np.asarray(cv2.Sobel(lum, cv2.CV_32F, 1, 0), dtype=np.float32)
    gy = np.asarray(cv2.Sobel(lum, cv2.CV_32F, 0, 1), dtype=np.float32)
    # All eight directions at once; the 99.5th percentile (linear interpolation, as np.percentile) from
    # the two values either side of it in each direction.
    x, y = gx.ravel(), gy.ravel()
    n = x.size
    pos = 0.995 * (n - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, n - 1)
    ranked = _ranked_steepest(x, y, lo, hi)
    if ranked is None:
        der = np.abs(_COS[:, None] * x[None, :] + _SIN[:, None] * y[None, :])
        part = np.partition(der, (lo, hi), axis=1)
        ranked = part[:, [lo, hi]]
    steep = ranked[:, 0] + (pos - lo) * (ranked[:, 1] - ranked[:, 0])
    return float(steep.max()) / max(float(steep.min()), 1e-6)


def _ranked_steepest(gx: NDArray[np.float32], gy: NDArray[np.float32], lo: int, hi: int) -> F64 | None:
    """(8, 2): in each of motion_smear's directions, the values at ranks `lo` and `hi` (from the least) of
    the derivatives' magnitudes over every pixel, found among the STEEPEST pixels of steepest gradient;
    None where those may not hold them (then every pixel is ranked).

    A pixel's derivative in any direction is at most its gradient's magnitude. So where, in every direction,
    the STEEPEST hold as many values from rank `lo` up as there are, each of them above every other pixel's
    gradient, those are the values there: the same numbers as ranking every pixel (a partition of 8 x 2,304
    values, 0.12 ms, most of a die's smear measure), from 8 x 128."""
    n = gx.size
    top = n - lo  # the values from rank lo up
    if n <= 2 * STEEPEST or top > STEEPEST // 2:
        return None
    mag2 = gx * gx + gy * gy
    idx = np.argpartition(mag2, n - STEEPEST)[n - STEEPEST:]
    least = float(mag2[idx].min())
    if least <= 0.0:
        return None
    # Every other pixel's squared gradient is at most `least` as float32 sums it: its derivative stays under
    # the bound (float32's rounding is some 1e-7 of it).
    bound = float(np.sqrt(least)) * (1.0 + 1e-5)
    srt = np.sort(np.abs(_COS[:, None] * gx[idx][None, :] + _SIN[:, None] * gy[idx][None, :]), axis=1)
    if float(srt[:, STEEPEST - top].min()) < bound:
        return None
    return srt[:, [STEEPEST - (n - lo), STEEPEST - (n - hi)]]


def _empty_cell_contrast(dist: NDArray[np.float32], fit: _Fit) -> float:
    """Highest contrast (vs the body) found at the grid cells the fitted layout leaves empty."""
    assert fit.value is not None
    c, s = np.cos(fit.theta), np.sin(fit.theta)
    # Faces 2, 3 and 6 have two orientations; the one whose empty cells are emptiest is the one seen.
    worst_by_orient = []
    r = max(1, round(0.25 * fit.grid))
    half = (PATCH - 1) / 2
    for lay in LAYOUTS[fit.value]:
        worst = 0.0
        for cu in (-1, 0, 1):
            for cv in (-1, 0, 1):
                if (cu, cv) in lay:
                    continue
                u, v = cu * fit.grid, cv * fit.grid
                x = half + fit.centre[0] + c * u - s * v
                y = half + fit.centre[1] + s * u + c * v
                xi, yi = round(x), round(y)
                if not (r <= xi < PATCH - r and r <= yi < PATCH - r):
                    continue
                worst = max(worst, float(np.mean(dist[yi - r:yi + r + 1, xi - r:xi + r + 1])))
        worst_by_orient.append(worst)
    return min(worst_by_orient)

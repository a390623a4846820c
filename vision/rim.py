"""A die's face around a centre: an even light face with an edge all round it, at the size a pitch gives.

Pure: a grey image and a proposed face (centre, pitch, turn) in, the face's half-side in pitches (or None)
out. The pip finders (vision/darkpips.py) ask it whether the pips they fitted lie on a die's top face; the
test is the same for a lone pip, whose die's turn is unknown, tried at several turns at once. With the die's
size known, a lone pip's die is turned as its edges say (square_turn), as the side-pip check turns it too.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.pips import sample

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# The least step across a face's rim (grey levels, over 0.6 pitch) that counts as an edge, and how many
# times the frame's pixel noise (vision/scene.py) it must also be: on a sensor's noise alone, steps of 10
# crossed 12 of 16 rays round a speck on a plain sheet often enough to make it a 1 (the Byler photos with
# noise of 4 grey levels added: 68 such 1s).
MIN_EDGE = 10.0

# A point between the pip cells nearer a pip found than this (pitches; 0.71 on a perfect grid) is on its edge.
PIP_TAIL = 0.6
# Points of a face that no legal layout covers (grid coordinates, pitches): between the pip cells.
CLEAR = np.array([(a, b) for a in (-0.5, 0.5) for b in (-0.5, 0.5)]
                 + [(a * 1.5, b * 0.5) for a in (-1, 1) for b in (-1, 1)]
                 + [(a * 0.5, b * 1.5) for a in (-1, 1) for b in (-1, 1)], np.float64)
# Sixteen ray directions from the face centre (relative to the grid), and where along each a square of
# half-side 1 ends: 1 / max(|cos|, |sin|), except that dice have rounded corners and bevels, so towards a
# corner the outline comes in well before the square's corner (measured: ~1.2 instead of 1.41).
_RAY_A = np.arange(16) * np.pi / 8
_RAY_END = np.minimum(1.0 / np.maximum(np.abs(np.cos(_RAY_A)), np.abs(np.sin(_RAY_A))), 1.22)
_RAY_R = np.arange(1.0, 3.4, 0.1)
# Half-sides tried (pitches); for each, which (ray, radius) samples lie within 0.35 pitch of that rim
# (edges are measured across 6 samples, centred 3 in) and which lie well inside it.
_S = np.arange(1.6, 2.25, 0.05)
_WANT = _S[:, None, None] * _RAY_END[None, :, None]
_NEAR = np.abs(_RAY_R[None, None, 3:-3] - _WANT) <= 0.35
_BEFORE = _RAY_R[None, None, :] < _WANT - 0.35
# Each (half-side, ray)'s samples of _NEAR are one run [lo, hi) of the edge samples, and those of _BEFORE
# the first _BEFORE_N of the profile: whether any hit lies there is a difference of two running counts.
_NEAR_LO = np.where(_NEAR.any(axis=2), _NEAR.argmax(axis=2), 0)
_NEAR_HI = _NEAR_LO + _NEAR.sum(axis=2)
_BEFORE_N = _BEFORE.sum(axis=2)
_RAY_IDX = np.broadcast_to(np.arange(len(_RAY_A)), _NEAR_LO.shape)
if not (np.array_equal(_NEAR, (np.arange(_NEAR.shape[2]) >= _NEAR_LO[..., None])
                       & (np.arange(_NEAR.shape[2]) < _NEAR_HI[..., None]))
        and np.array_equal(_BEFORE, np.arange(_BEFORE.shape[2]) < _BEFORE_N[..., None])):
    raise AssertionError("a rim's samples are not one run along its ray")


def _hit_within(hit: NDArray[np.bool_], lo: NDArray[np.int64] | int, hi: NDArray[np.int64]) -> NDArray[np.bool_]:
    """For hits along each ray (..., 16, R): whether any lies in samples [lo, hi) of the (half-side, ray)
    runs (S, 16), as (..., S, 16)."""
    count = np.zeros((*hit.shape[:-1], hit.shape[-1] + 1), np.int64)
    np.cumsum(hit, axis=-1, out=count[..., 1:])
    return np.asarray(count[..., _RAY_IDX, hi] > count[..., _RAY_IDX, lo], bool)


def face_extent(gray: U8, centre: tuple[float, float], g: float, theta: float, contrast: float,
                clear_from: float | None = None, edge: float = MIN_EDGE, pips: F64 | None = None) -> float | None:
    """The face's half-side in pitches if a light, even face with an edge all round surrounds `centre`.

    The face between the pip cells (points no legal layout covers) must be one shade to within a share of
    the pips' contrast; then each of sixteen rays from the centre must cross an edge (rim, bevel, shadow,
    background) where a square face of one half-side s ends, s between 1.6 and 2.2 pitches. With
    `clear_from` (pixels: a lone pip's reach), a ray counts only if nothing dark lies on it between there
    and the rim, so that the pips of a bigger face around a lone spot are not taken for its rim. `pips`
    (the face's pips found, pixels): a point between the cells nearer one of them than PIP_TAIL pitches
    is on that pip's own edge, and is not asked to be the face's shade.
    """
    even, share = _rim_shares(gray, centre, g, np.array([theta]), contrast, clear_from, edge, pips)
    if not even[0]:
        return None
    # All half-sides at once: the first with the most rays hitting an edge.
    best = int(np.argmax(share[0]))
    return float(_S[best]) if share[0, best] >= 0.75 else None


def first_extent(gray: U8, centre: tuple[float, float], g: float, thetas: F64, contrast: float,
                 clear_from: float, fittest: bool = False, edge: float = MIN_EDGE,
                 covered: float = 0.0) -> int | None:
    """The first of `thetas` for which `face_extent` finds a face (the same test, all orientations at once); with
    `fittest`, the one whose rim most rays find (the first of those tied): a lone pip's die is turned
    that way, which the lean check (a side face where a flat die shows none) depends on. `covered`
    (pixels): a large lone pip's reach from `centre`, over which the points between the cells are its own
    (a big 1 covers the four nearest the centre, 0.71 pitch out), not asked to be the face's shade."""
    pips = np.array([centre], np.float64) if covered else None
    even, share = _rim_shares(gray, centre, g, thetas, contrast, clear_from, edge, pips,
                              covered / g if covered else PIP_TAIL)
    if not even.any():
        return None
    best = share.max(axis=1)
    good = even & (best >= 0.75)
    if not good.any():
        return None
    if not fittest:
        return int(np.nonzero(good)[0][0])
    return int(np.argmax(np.where(good, best, -1.0)))


def medians_without(vals: F64, skip: NDArray[np.bool_]) -> F64:
    """The median of each row of `vals` (T, P) over the points not in `skip`; every row keeps one at least.
    np.nanmedian's values with the skipped points NaN, from one sort (NaNs sort last): np.nanmedian took a third
    of a millisecond a call on the rows of one face."""
    n = (~skip).sum(axis=1)
    rows = np.sort(np.where(skip, np.nan, vals), axis=1)
    at = np.arange(len(rows))
    return np.asarray(0.5 * (rows[at, (n - 1) // 2] + rows[at, n // 2]), np.float64)


def _rim_shares(gray: U8, centre: tuple[float, float], g: float, thetas: F64, contrast: float,
                clear_from: float | None, edge: float, pips: F64 | None = None,
                tail_g: float = PIP_TAIL) -> tuple[NDArray[np.bool_], F64]:
    """For each orientation in `thetas` (T): whether the face between the pip cells is even, and for each
    half-side (S) the share of the sixteen rays that find the rim there (T, S). A point between the cells
    nearer one of `pips` than `tail_g` pitches is that pip's (see face_extent)."""
    cth, sth = np.cos(thetas), np.sin(thetas)
    turn = np.empty((len(thetas), 2, 2))  # (T, 2, 2): rows (cos, sin) and (-sin, cos)
    turn[:, 0, 0], turn[:, 0, 1], turn[:, 1, 0], turn[:, 1, 1] = cth, sth, -sth, cth
    # (the same products as one matrix product per orientation)
    pts = np.array(centre) + np.matmul((CLEAR * g)[None], turn)  # (T, points, 2)
    vals = sample(gray, pts)  # (T, points)
    if pips is not None and len(pips):
        # The points between the cells lie 0.71 pitch from the nearest pips of a perfect grid; a fit off by a
        # pixel or two (pip centres are found to the pixel, a 6's rows are squeezed by design) puts one on a
        # large pip's dark edge (the simulated camera near overhead: plain throws lost 6s that way). Such a
        # point is the pip's, not a mark between pips: it takes the face's shade (the median of the rest).
        d = np.hypot(pts[..., None, 0] - pips[None, None, :, 0], pts[..., None, 1] - pips[None, None, :, 1])
        tail = d.min(axis=2) < tail_g * g
        if tail.all(axis=1).any():
            return np.zeros(len(thetas), bool), np.zeros((len(thetas), len(_S)))
        if tail.any():  # (most faces have none: no median to take)
            vals = np.where(tail, medians_without(vals, tail)[:, None], vals)
    vals.sort(axis=1)
    m = vals.shape[1]
    face = 0.5 * (vals[:, (m - 1) // 2] + vals[:, m // 2])  # the median, without its overhead
    even = np.maximum.reduce(np.abs(vals - face[:, None]), axis=1) <= 0.4 * contrast
    if not even.any():
        return even, np.zeros((len(thetas), len(_S)))
    ang = thetas[:, None] + _RAY_A[None, :]  # (T, 16)
    rs = _RAY_R * g
    xy = np.empty((*ang.shape, len(rs), 2))  # (T, 16, R, 2)
    xy[..., 0] = centre[0] + rs[None, None, :] * np.cos(ang)[:, :, None]
    xy[..., 1] = centre[1] + rs[None, None, :] * np.sin(ang)[:, :, None]
    prof = sample(gray, xy)  # (T, 16, R)
    # Rims are soft (blur, bevels, a dull die on a pale cloth): compare across 0.6 pitch, not a pixel.
    step = np.abs(prof[:, :, 6:] - prof[:, :, :-6])
    strong = step >= max(edge, 0.1 * contrast)
    ok = _hit_within(strong, _NEAR_LO, _NEAR_HI)  # (T, S, 16)
    if clear_from is not None:
        dip = (prof < face[:, None, None] - 0.4 * contrast) & (rs[None, None, :] > clear_from)
        ok &= ~_hit_within(dip, 0, _BEFORE_N)
    return even, ok.mean(axis=2)


def square_turn(gray: U8, centre: tuple[float, float], side: float) -> float:
    """The turn (radians, modulo a quarter turn) of a square face of `side` at `centre`: the mean direction of
    the grey level's gradients round its edges, each taken four times (so that the four edges agree), weighted
    by its strength."""
    h, w = gray.shape
    r = int(0.8 * side) + 2
    x0, y0 = max(0, int(centre[0]) - r), max(0, int(centre[1]) - r)
    patch = gray[y0:min(h, int(centre[1]) + r + 1), x0:min(w, int(centre[0]) + r + 1)].astype(np.float32)
    if patch.shape[0] < 3 or patch.shape[1] < 3:
        return 0.0
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1)
    yy, xx = np.arange(patch.shape[0])[:, None], np.arange(patch.shape[1])[None, :]
    dist = np.hypot(xx + x0 - centre[0], yy + y0 - centre[1])
    ring = (dist > 0.3 * side) & (dist < 0.75 * side)  # the edges, not the pip
    z = ((gx * gx + gy * gy) * np.exp(4j * np.arctan2(gy, gx)))[ring].sum()
    return float(np.angle(z) / 4.0)

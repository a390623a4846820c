"""Legal d6 faces: which pips make a face, and whether a set of pip centres is one.

Pure numpy. A face is 1..6 pips on a 3x3 grid with one pitch `g` (centre to an edge cell) and one
orientation; every legal layout is symmetric about the face's centre, so the pips' centroid is the centre.
"""

from __future__ import annotations

import cmath
import math
import statistics
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]

# Legal d6 faces as cells of the 3x3 pip grid, (column, row) in {-1, 0, 1}. Faces 2, 3 and 6 come in two
# orientations on the grid; the rest are symmetric under a quarter turn.
LAYOUTS: dict[int, tuple[frozenset[tuple[int, int]], ...]] = {
    1: (frozenset({(0, 0)}),),
    2: (frozenset({(-1, -1), (1, 1)}), frozenset({(1, -1), (-1, 1)})),
    3: (frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(1, -1), (0, 0), (-1, 1)})),
    4: (frozenset({(-1, -1), (1, -1), (-1, 1), (1, 1)}),),
    5: (frozenset({(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)}),),
    6: (
        frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)}),
        frozenset({(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)}),
    ),
}
MAX_RESID = 0.3  # worst pip distance from its grid cell, in pitches, for a layout to be trusted
# A 6's rows sit closer together than its columns on many dice (0.6-0.75 of the column pitch): on a square
# grid its middle pips are up to ~0.4 pitch off their cells. Two rows of three fit no other face.
MAX_RESID_6 = 0.42


@dataclass(frozen=True)
class Fit:
    value: int | None
    resid: float  # worst pip distance from its cell, in pitches
    grid: float  # pitch g, pixels
    theta: float  # grid orientation, radians (mod 90 degrees)
    centre: tuple[float, float]  # face centre, pixels
    reason: str = ""
    skew: float = 1.0  # singular-value ratio of the cells -> pips affine map (1 = seen square on)
    occupied: frozenset[tuple[int, int]] = frozenset()  # the cells holding pips

    def cells(self) -> F64:
        """The nine cell centres in pixels, (3, 3, 2) indexed [row + 1, column + 1]."""
        c, s = np.cos(self.theta), np.sin(self.theta)
        u = np.array([-1.0, 0.0, 1.0]) * self.grid
        uu, vv = np.meshgrid(u, u)
        return np.stack([self.centre[0] + c * uu - s * vv, self.centre[1] + s * uu + c * vv], axis=-1)

    def empty_cells(self) -> F64:
        """Centres (k, 2) of the cells the fitted layout leaves empty (for faces 2, 3, 6: both senses)."""
        if self.value is None:
            return np.zeros((0, 2))
        # Only the empty cells, with the same arithmetic as cells() (a face is checked for every proposal).
        uv = _EMPTY.get(self.occupied)
        if uv is None:
            uv = np.array([(u, v) for u in (-1, 0, 1) for v in (-1, 0, 1) if (u, v) not in self.occupied],
                          np.float64).reshape(-1, 2)
            _EMPTY[self.occupied] = uv
        c, s = np.cos(self.theta), np.sin(self.theta)
        uu, vv = uv[:, 0] * self.grid, uv[:, 1] * self.grid
        return np.stack([self.centre[0] + c * uu - s * vv, self.centre[1] + s * uu + c * vv], axis=-1)


# Empty cells (column, row) of each occupied set met so far (at most the 9 legal layouts).
_EMPTY: dict[frozenset[tuple[int, int]], F64] = {}


def small_median(x: F64) -> float:
    """np.median of a short vector, without its overhead (same value: mean of the two middle ones)."""
    v = np.sort(x)
    n = len(v)
    return float((v[(n - 1) // 2] + v[n // 2]) / 2.0)


def skew_of(fit: Fit, pts: F64, level: F64 | None = None) -> float:
    """`fit.skew` for a fit made with `with_skew=False`: the same cells, the same least squares.

    `level` (2x2, vision.camera.BoardCamera.level): the pips are first seen as from straight above; their
    cells stay the fit's."""
    if fit.value is None or fit.value < 2:
        return 1.0
    rel = pts - pts.mean(axis=0)
    c, s = np.cos(fit.theta), np.sin(fit.theta)
    cells = np.rint((rel @ np.array([[c, -s], [s, c]])) / fit.grid).astype(np.int64)
    return _skew(rel if level is None else rel @ level.T, cells)


def six_squeeze(fit: Fit, pts: F64, level: F64 | None = None) -> float:
    """For a 6: its pitch across the two rows of three over its pitch along them (1 for a square grid).

    Above 1, the pips in each row sit closer than the rows are apart: how many dice are made, and what a
    die tilted along its rows also shows. Below 1 the rows are squeezed together instead, which no design
    does: only a die tilted across its rows (cocked) shows that. Other faces: 1.0.
    """
    if fit.value != 6:
        return 1.0
    rel = pts - pts.mean(axis=0)
    c, s = np.cos(fit.theta), np.sin(fit.theta)
    cells = np.rint((rel @ np.array([[c, -s], [s, c]])) / fit.grid)
    ctc = cells.T @ cells
    if abs(float(np.linalg.det(ctc))) < 0.5:
        return 1.0
    if level is not None:
        rel = rel @ level.T
    m = np.linalg.solve(ctc, cells.T @ rel)  # rows: the image step of one cell along u, along v
    along_v = bool((np.abs(cells[:, 1]) < 0.5).any())  # the middle row (v = 0) holds pips: rows run along v
    across, along = (m[0], m[1]) if along_v else (m[1], m[0])
    return float(np.hypot(*across) / max(float(np.hypot(*along)), 1e-9))


def fit_layout(pts: F64, with_skew: bool = True) -> Fit:
    """Match pip centres (pixels) to a legal d6 layout of any pitch and orientation.

    `with_skew=False` leaves `skew` at 1.0 (get it later with `skew_of`): most fits are refused by
    checks that do not need it.

    In plain floats, not numpy: a face has at most six pips, and numpy's overhead on arrays that small made
    this fit 210 us a call (the reader fits a few hundred proposals a frame), against 50 us so. The
    arithmetic is numpy's but for the order of a few sums and fused multiply-adds (within 1e-14 on 20,000
    random fits; tests/vision/test_speed_paths.py holds it to 1e-12)."""
    p = pts.tolist()
    n = len(p)
    sx = sy = 0.0
    for x, y in p:
        sx += x
        sy += y
    cxy = (sx / n, sy / n) if n else (math.nan, math.nan)
    if n == 0 or n > 6:
        return Fit(None, 1.0, 0.0, 0.0, cxy, f"{n} pip-like spots, not a d6 face")
    if n == 1:
        return Fit(1, 0.0, 0.0, 0.0, cxy, occupied=frozenset({(0, 0)}))
    cx, cy = cxy
    rel = [(x - cx, y - cy) for x, y in p]
    dist = [math.hypot(x, y) for x, y in rel]
    dmax = max(dist)
    far = [i for i in range(n) if dist[i] > 0.8 * dmax]
    if not far or dmax <= 0:
        return Fit(None, 1.0, 0.0, 0.0, cxy, "degenerate pip layout")
    # Corner pips sit at 45 degrees to the grid's axes: their angles, times four, all point one way.
    z = 0j
    for i in far:
        z += cmath.exp(4j * math.atan2(rel[i][1], rel[i][0]))
    theta = math.atan2(-z.imag, -z.real) / 4.0
    g = statistics.median(dist[i] for i in far) / math.sqrt(2.0)
    best = Fit(None, 1.0, g, theta, cxy, "pips do not form a d6 layout")
    best_cells: list[tuple[int, int]] | None = None
    limit = MAX_RESID_6 if n == 6 else MAX_RESID
    for _ in range(3):
        c, s = math.cos(theta), math.sin(theta)
        rot = [(x * c + y * s, y * c - x * s) for x, y in rel]
        q = [(a / g, b / g) for a, b in rot]
        cells = [(round(a), round(b)) for a, b in q]  # (round: half to even, as numpy's rint)
        if any(abs(u) > 1 or abs(v) > 1 for u, v in cells):
            break
        resid = max(math.hypot(a - u, b - v) for (a, b), (u, v) in zip(q, cells, strict=True))
        cellset = frozenset(cells)
        if len(cellset) == n and cellset in LAYOUTS[n]:
            if resid < limit:
                best = Fit(n, resid, g, theta, cxy, "", 1.0, cellset)
                best_cells = cells
                if resid < 0.08:
                    break
            elif best.value is None:
                best = Fit(None, resid, g, theta, cxy, off_grid_reason(np.array(rel), np.array(cells, np.int64), n))
        # Procrustes: the rotation and pitch taking the assigned cells onto the observed pips.
        num = den = norm = 0.0
        for (u, v), (a, b) in zip(cells, rot, strict=True):
            num += u * b - v * a
            den += u * a + v * b
            norm += u * u + v * v
        if den <= 0:
            break
        theta -= math.atan2(num, den)
        g = math.hypot(num, den) / max(1e-9, norm)
    if best_cells is not None and with_skew:
        # The skew of the accepted fit only (not of every iteration's): most fits are refused later anyway.
        best = replace(best, skew=_skew(np.array(rel), np.array(best_cells, np.int64)))
    return best


# A face whose pips sit off a square grid but on a squashed one this much (singular-value ratio), within
# MAX_RESID of it, is a face seen at a slant: a leaning die. A 6's rows are squeezed by design (darkpips
# allows MAX_SKEW_6 = 1.6 there), so a 6 must be squashed more.
SLANT = 1.25
SLANT_6 = 1.6
SLANT_REASON = "cocked: the top face is seen at a slant (its pips lie on a squashed grid)"


def off_grid_reason(rel: F64, cells: NDArray[np.int64], n: int) -> str:
    """Why pips assigned to a legal layout's cells (`rel`: pixels about their centroid) are off its square
    grid: a slanted face (SLANT_REASON: a physical reason, which nothing overrules) when an affine grid
    fits them within MAX_RESID and is squashed beyond SLANT, else plain "pips off the d6 grid"."""
    m = _affine(rel, cells)
    if m is None:
        return "pips off the d6 grid"  # collinear cells (a 2 or 3): a slant cannot be measured
    c = cells.astype(np.float64)
    pitch = float(np.sqrt(abs(np.linalg.det(m))))
    resid = float(np.max(np.hypot(*(c @ m - rel).T))) / max(pitch, 1e-9)
    if resid < MAX_RESID and _anisotropy(m) > (SLANT_6 if n == 6 else SLANT):
        return SLANT_REASON
    return "pips off the d6 grid"


def _skew(rel: F64, cells: NDArray[np.int64]) -> float:
    """Anisotropy of the affine map from grid cells to pips (needs pips off one line: faces 4, 5, 6).

    A die lying flat shows its top face square on (ratio near 1); a cocked die leaning on another die or a
    board edge shows it foreshortened along the tilt.
    """
    m = _affine(rel, cells)
    return 1.0 if m is None else _anisotropy(m)


def _anisotropy(m: F64) -> float:
    """Ratio of the singular values of a 2x2 map, in closed form: numpy's general routines cost more than
    the whole layout fit."""
    a, b, cc, d = float(m[0, 0]), float(m[0, 1]), float(m[1, 0]), float(m[1, 1])
    s1 = np.hypot(a + d, b - cc)
    s2 = np.hypot(a - d, b + cc)
    big, small = 0.5 * (s1 + s2), 0.5 * abs(s1 - s2)
    return float(big / max(small, 1e-9))


def _affine(rel: F64, cells: NDArray[np.int64]) -> F64 | None:
    """The 2x2 linear map taking grid cells onto pips (least squares), or None for collinear cells."""
    c = cells.astype(np.float64)
    ctc = c.T @ c
    # Cells are integers: collinear ones (rank < 2) give a zero determinant exactly.
    if abs(float(np.linalg.det(ctc))) < 0.5:
        return None
    # The normal equations: 2x2 and well conditioned on grid cells.
    return np.asarray(np.linalg.solve(ctc, c.T @ rel), np.float64)

"""Light dice with dark pips (white Monopoly dice, the simulated camera's): found pips first, then the die.

Pure: a grey image (and the die size when calibrated) in, faces out. Dark round spots are found with one
black-hat at the scale of a pip. Every pair of spots that could be the two diagonal corners of one face
proposes a whole face: its centre (their midpoint), pitch g (a corner's offset from the centre along
one grid axis) and orientation. The face a proposal stands for is every spot of similar contrast that
falls within its 3x3 grid; the proposal is a die only if those spots fill a legal d6 layout exactly,
the cells that layout leaves empty are really empty, nothing else dark sits on the face, and a light face
ringed by an edge surrounds it at the size a face of that pitch has. Proposals are judged all at once with
numpy; only the few legal ones are checked further. A lone spot is a 1 on the same conditions.

Because the face is taken as the spots inside one proposal's grid (not a connected group of spots), die
bevel corners and side-face pips (outside the grid), and the pips of a touching die, never spoil a face.
Board lettering, grid lines and coloured pieces carry no legal layout of round spots on a light square.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.layout import LAYOUTS, Fit, fit_layout, six_squeeze, skew_of, small_median
from vision.lean import ONE_STEP, lean_check
from vision.lightface import SIDE_PER_G, Down, Level, LightFace, clear_points
from vision.pips import Candidates, black_hat, detect, empty, odd, sample
from vision.rim import MIN_EDGE, face_extent, first_extent, square_turn
from vision.scene import neutral_gains
from vision.spots import (
    KERNEL_PER_DIAM,
    MAX_ELONG,
    MIN_SPOT,
    PIP_D_PER_G,
    SpotsBefore,
    all_spots,
    frame_pip_d,
    noise_floors,
    one_per_spot,
)

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

RESID = 0.3  # a spot further than this from its grid cell (in pitches) is off the grid
# The grid a diagonal pair proposes is square; a 6's rows are often closer than its columns (0.35-0.4 off)
# and perspective adds more, so proposals allow more and the least-squares fit then decides.
PROPOSAL_RESID = 0.42
EMPTY_SHARE = 0.45  # an empty cell responding above this share of the weakest pip holds a missed pip
G_TOL = (0.8, 1.25)  # face pitch around the calibrated pitch
MAX_SKEW = 1.25  # singular-value ratio of the pip grid: beyond it the face is seen at a slant (cocked)
# A 6's squeezed rows make its grid anisotropic on a flat die too (rows 0.6-0.75 of the column pitch).
MAX_SKEW_6 = 1.6
# Read from above (vision/oblique.py: the board's homography undone, a flat die's top face a square again), a 4's
# or a 5's grid (square on every die) measured on its pips placed to a fraction of a pixel (_refined) beyond
# this is a face at a slant. Its top face lies above the board, and a plane level with the board comes out of the
# rectification scaled, not skewed; a die leaning by t seen from e off vertical skews it by about
# 1 + tan t tan e (15 degrees seen from 35: 1.19). The simulated camera at 35 and 45 degrees: flat 4s and 5s
# measured at most 1.114 (927 faces, p99 1.09), 4s and 5s leaning 15-25 degrees and accepted 1.104-1.27 (27);
# the limit leaves a real camera's lens and calibration some 3% more than the renders' spread
# (docs/vision.md, "A leaning 4 or 5 read from above").
MAX_SKEW_ABOVE = 1.15
SQUARE_GRIDS = (4, 5)
MAX_CHROMA = 60.0  # channel spread of a white, grey or cream face (Byler's white dice: up to ~40)
# Bit of each grid cell (column u, row v in -1..1) in a 9-bit occupancy mask.
_BIT = {(u, v): 1 << ((u + 1) * 3 + (v + 1)) for u in (-1, 0, 1) for v in (-1, 0, 1)}
_LEGAL = {sum(_BIT[c] for c in cells): n for n, ls in LAYOUTS.items() for cells in ls}
# The same as a lookup table over all 512 masks (0: not a legal face), to judge every proposal at once.
_LEGAL_COUNT = np.zeros(512, np.int64)
for _m, _n in _LEGAL.items():
    _LEGAL_COUNT[_m] = _n


NO_SPOTS = empty(True)  # a pass not run found no spots


@dataclass(frozen=True)
class LightPass:
    """What one pass of light_pass found: the faces, every round dark spot it started from, and the long spots
    away from them that may be pips blurred together (_merged). The reader groups the spots no die accounts
    for into places to ask the dice net about (vision/candidates.py)."""

    faces: tuple[LightFace, ...]
    spots: Candidates
    merged: Candidates = NO_SPOTS
    oval: Candidates = NO_SPOTS  # every spot up to SIDE_ELONG long: what the lean check looks for side faces in
    floors: tuple[float, float] = (MIN_SPOT, MIN_EDGE)  # the image's noise_floors, which the pass worked to


def light_pass(gray: U8, g_known: float | None, bgr: U8 | None = None,
               down: Down | None = None, ones: bool = True, level: Level | None = None,
               pip_d: float | None = None, colour: U8 | None = None, before: U8 | None = None,
               floors: tuple[float, float] | None = None, narrow: bool = False, above: bool = False,
               others: Sequence[LightFace] = ()) -> LightPass:
    """Faces of light dice with dark pips. `g_known`: the calibrated pitch in pixels of `gray`, if any;
    else `pip_d`, a pip's diameter in pixels (the reader's, vision/reader.py), else one from the frame's
    size (frame_pip_d).

    `down` (from a calibrated camera, vision/camera.py): the image vector from a flat die's top-face
    centre to its bottom; with it, a face beside which a side face shows where a flat die's cannot is
    refused as cocked. `ones=False`: no lone-pip faces (the inverted pass: on dark dice 1s were
    misread 7 of 71 times on Byler against 1 of 298 for faces of several pips).

    With the colour frame `bgr`, only white, grey or cream faces are kept: on yellow or pale green dice the
    body-first reader does better (their lone pips and oblique 2s were misread here: 8 of 50 on Byler).
    `colour`: the colour frame of an inverted pass (light pips on dark or coloured dice), where the lean
    check counts only spots on the die's own silhouette (vision/silhouette.py). `before`: `gray` as the table
    looked before the throw (black where not known), whose spots the lean check does not count (SpotsBefore).
    `floors`: the image's noise_floors where they are known already (the inverted grey pass takes the grey
    pass's: the noise estimate is blind to the image's sign). `narrow` (with `down`): the lean check also looks
    for a narrow side face's oval pips (vision/lean.py `_narrow_side`), as the reader asks where it reads a frame
    from above (vision/oblique.py). `above` (calibrated): the frame is read from above, where a 4's or a 5's grid
    is held to MAX_SKEW_ABOVE. `others`: the faces earlier passes read in the same image, whose pips and crevices the
    lean check leaves to them as it does this pass's own faces'.
    """
    pip_d = PIP_D_PER_G * g_known if g_known else pip_d or frame_pip_d(gray.shape[1], gray.shape[0])
    floor, edge = floors or noise_floors(gray)
    # Uncalibrated, packed pips are measured to the valleys between them (pips.VALLEY_ELONG). Calibrated, the pass
    # works at the die's known size and its pips measure round as they are; there the measure also made the pips
    # of a die touching another count as its side face's (the simulated camera's white dice, two flat touching:
    # 82 -> 80 of 90 read, with the table before too), so calibrated reads measure as before.
    # (Calibrated only, a pip's plateau merged whole: uncalibrated, on the rendered leaning dice of bench/refusals.py,
    # a plateau's second spot had refused 2 of 216 leaning faces by spoiling their layout; the Byler photos read
    # the same either way.)
    c, oval, resp, narrow_spots = all_spots(gray, pip_d, True, floor, valleys=g_known is None,
                                            narrow=narrow and down is not None, plateaus=g_known is not None)
    merged = _merged(c, oval)
    faces = _proposals(gray, c, resp, g_known, merged, level, edge, above=above and g_known is not None)
    # Lone pips (1s) take the frame's pitch: calibrated, or the one of the faces already read, else (0)
    # each spot's own (see _ones).
    g_frame = float(np.median([f.g for f in faces])) if g_known is None and faces else g_known or 0.0
    used = {p for f in faces for p in f.pips}
    if ones:
        faces += _ones(gray, c, resp, g_frame, used, g_known is not None, edge)
    if bgr is not None and faces:
        faces = _white(bgr, faces)
    faces = _resolve(faces)
    if down is not None:
        old = None if before is None else SpotsBefore(before, odd(KERNEL_PER_DIAM * pip_d))
        read = faces + list(others)
        faces = [lean_check(f, c, oval, read, down, colour, old, narrow_spots, bgr) for f in faces]
    return LightPass(tuple(faces), c, merged, oval, (floor, edge))


def big_ones_pass(gray: U8, g: float, grey: LightPass, bgr: U8, down: Down | None = None) -> list[LightFace]:
    """The 1s marked by one large pip (_big_ones) on white faces of pitch `g` (calibrated) that the grey pass
    `grey` of the same image did not read, with the same checks as its own faces."""
    found, spots = _big_ones(gray, g, {p for f in grey.faces for p in f.pips}, True, *grey.floors)
    if not found:
        return []
    found = _white(bgr, found)
    faces = _resolve(list(grey.faces) + found)
    found = [f for f in faces if any(f is b for b in found)]
    if down is not None:
        # Its side faces' pips are held to the large pip's contrast (`spots`), which, red, is weaker in grey than
        # theirs: a flat die's side-face pips are then sometimes taken for a leaning one's (the simulated
        # camera, plain throws with a 1, seeds 0-39: 1 of 11 refused so). Held to the contrast of the die's own
        # black pips (the calibrated look) instead, leaning dice with the 1 up were accepted more often (22
        # wrong `ok`s of 156 against 17, on an earlier step of this search; docs/vision.md, "Large ones").
        found = [lean_check(f, spots, grey.oval, faces, down) for f in found]
    return found


def _white(bgr: U8, faces: list[LightFace]) -> list[LightFace]:
    """The faces of `faces` that are white, grey or cream (_chroma within MAX_CHROMA)."""
    gains = neutral_gains(bgr)
    return [f for f in faces if _chroma(bgr, f, gains) <= MAX_CHROMA]


def _chroma(bgr: U8, f: LightFace, gains: F64) -> float:
    """Median max-min channel spread over the face's pip-free points (0 for white or grey), in the light's
    own white balance (`gains`, vision/scene.py): a white die under a warm light is white."""
    pts = clear_points(f)
    h, w = bgr.shape[:2]
    x = np.clip(np.rint(pts[:, 0]), 0, w - 1).astype(np.int64)
    y = np.clip(np.rint(pts[:, 1]), 0, h - 1).astype(np.int64)
    px = bgr[y, x].astype(np.float64) * gains
    return small_median(np.maximum.reduce(px, axis=1) - np.minimum.reduce(px, axis=1))


def _merged(c: Candidates, oval: Candidates) -> Candidates:
    """Spots too long to be a lone pip, away from every round spot: on a small die two pips a pitch apart
    can blur into one another, and the one between them measures long along the line joining them."""
    oval = oval.take(np.nonzero(oval.elong >= MAX_ELONG)[0])
    if len(oval) == 0 or len(c) == 0:
        return oval
    d = np.hypot(oval.xy[:, None, 0] - c.xy[None, :, 0], oval.xy[:, None, 1] - c.xy[None, :, 1]).min(axis=1)
    return oval.take(np.nonzero(d > np.maximum(2.5, 1.2 * oval.radius))[0])


def _proposals(gray: U8, c: Candidates, resp: U8, g_known: float | None,
               merged: Candidates | None = None, level: Level | None = None,
               edge: float = MIN_EDGE, above: bool = False) -> list[LightFace]:
    """Faces proposed by diagonal pairs of round spots. `merged` spots (see _merged) may fill a cell of
    a proposal's grid but neither propose a face nor spoil one: elongated marks are also letters and
    edges, which a face's other tests (empty cells, the lattice, the rim) still catch."""
    n = len(c)
    if n < 2:
        return []
    nround = n
    if merged is not None and len(merged):
        c = c.joined(merged)
    is_round = np.arange(len(c)) < nround
    # Calibrated, spots placed to a fraction of a pixel, as the rim test places them: at the Pi unit's view a
    # die's pips are 9 px apart, and a corner pip found to the pixel lay 0.46 pitch off its proposal's grid,
    # a mark on the face (docs/vision.md, "Faces proposed from spots placed to a fraction of a pixel").
    xy = _refined(resp, c.xy) if g_known else c.xy
    z = xy[:, 0] + 1j * xy[:, 1]
    i, j = np.triu_indices(nround, 1)
    d = np.abs(z[j] - z[i])
    g = d / (2.0 * np.sqrt(2.0))
    r = 0.5 * (c.radius[i] + c.radius[j])
    keep = (np.minimum(c.peak[i], c.peak[j]) >= 0.45 * np.maximum(c.peak[i], c.peak[j]))
    keep &= np.minimum(c.radius[i], c.radius[j]) >= 0.5 * np.maximum(c.radius[i], c.radius[j])
    if g_known:
        keep &= (g >= G_TOL[0] * g_known) & (g <= G_TOL[1] * g_known)
    else:
        keep &= (g >= 3.0) & (g <= 20.0)
    # A pip's radius is about a third of the pitch (0.2-0.5 allows for blur and JPEG).
    keep &= (r >= 0.17 * g) & (r <= 0.55 * g)
    i, j, g = i[keep], j[keep], g[keep]
    if i.size == 0:
        return []
    centre = np.asarray(0.5 * (z[i] + z[j]), np.complex128)
    # Corner i at cell (-1, -1), corner j at (1, 1): the grid's u axis is 45 degrees before i->j.
    rot = np.exp(-1j * (np.angle(z[j] - z[i]) - np.pi / 4)) / g
    # Each proposal against the spots that can fall on its face (below), not against every spot: a spot
    # on its face or grid lies within 1.6 pitches of the centre along both axes, so within 2.27 pitches;
    # those further than 2.3 pitches off in x or in y are left out. The proposal's values are the same:
    # each pair's arithmetic is the full matrix's, and what a proposal sums or ors skips only spots that
    # add nothing (on Byler the matrix had 200 spots a row, a few of them near).
    h, k = _near(z, centre, 2.3 * g)
    q = (z[k] - centre[h]) * rot[h]  # spot positions in pitches
    cu, cv = np.rint(q.real), np.rint(q.imag)
    res = np.abs(q - (cu + 1j * cv))
    weak = np.minimum(c.peak[i], c.peak[j])
    similar = c.peak[k] >= 0.45 * weak[h]
    on_grid = (np.abs(cu) <= 1) & (np.abs(cv) <= 1) & (res < PROPOSAL_RESID) & similar
    # Anything dark and pip-like on the face that is off the grid spoils it (a letter, dirt, another die).
    on_face = (np.abs(q.real) < 1.6) & (np.abs(q.imag) < 1.6)
    stray = on_face & ~on_grid & similar & is_round[k]
    bits = np.where(on_grid, 1 << ((cu + 1) * 3 + (cv + 1)).astype(np.int64).clip(0, 8), 0)
    # Every proposal's run of pairs holds its own two spots (sqrt 2 pitches from its centre): none is empty.
    start = np.searchsorted(h, np.arange(len(i)))
    mask = np.bitwise_or.reduceat(bits, start)
    count = np.add.reduceat(on_grid.astype(np.int64), start)
    legal = (_LEGAL_COUNT[mask] == count) & (np.add.reduceat(stray.astype(np.int64), start) == 0)
    legal[legal & (count == 2)] = ~_pair_spoilt(resp, c, i, j, centre, rot, legal & (count == 2),
                                                _cut_corners(g_known, above))
    out: list[LightFace] = []
    seen: set[tuple[int, ...]] = set()
    end = np.append(start[1:], len(h))
    for p in np.nonzero(legal)[0]:
        run = slice(int(start[p]), int(end[p]))
        members = np.sort(k[run][on_grid[run]])
        key = tuple(members.tolist())
        if key in seen:
            continue
        seen.add(key)
        face = _check(gray, c, resp, members, g_known, level, edge, xy[members] if g_known else None, above)
        if face is not None:
            out.append(face)
    return out


def _near(z: NDArray[np.complex128], centre: NDArray[np.complex128],
          reach: F64) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(proposal, spot) index pairs of the spots `z` within `reach[h]` of `centre[h]` in x and in y, grouped
    by proposal in its order: spots sorted by x give each proposal one run, taken all at once."""
    byx = np.argsort(z.real, kind="stable")
    xs = z.real[byx]
    lo = np.searchsorted(xs, centre.real - reach, side="left")
    counts = np.searchsorted(xs, centre.real + reach, side="right") - lo
    h = np.repeat(np.arange(len(centre)), counts)
    # Position within each run: a running index less where the run starts.
    k = byx[lo[h] + np.arange(len(h)) - np.repeat(np.cumsum(counts) - counts, counts)]
    close = np.abs(z.imag[k] - centre.imag[h]) <= reach[h]
    return h[close], k[close]


def _pair_spoilt(resp: U8, c: Candidates, i: NDArray[np.int64], j: NDArray[np.int64], centre: NDArray[np.complex128],
                 rot: NDArray[np.complex128], pair: NDArray[np.bool_], near: bool = False) -> NDArray[np.bool_]:
    """For the proposals `pair` that are a 2 (spots i and j alone on their grid): which _check would refuse
    for something dark in an empty cell or on the face, found for all of them at once: most 2s proposed are
    refused so (on Byler, half of all the faces checked, each a layout fit and two samplings).

    A 2's fit is the pair's own grid (centre the midpoint, pitch and axes from the diagonal) to rounding,
    a billionth of a pixel, so every point _check samples there lies within a pixel of the same point of
    the proposal's grid, and the least response within a pixel of a point is at most what _check reads
    there. Refusing where that least response is already too much refuses only what _check refuses. `near`: the
    lattice _check samples calibrated near overhead (_LATTICE_CAL)."""
    h = np.nonzero(pair)[0]
    if h.size == 0:
        return np.zeros(0, bool)
    low = np.asarray(cv2.erode(resp, _BOX3), dtype=np.uint8)
    cen, to_img = centre[h], 1.0 / rot[h]  # grid (u + iv, pitches) -> image: cen + (u + iv) * to_img
    g = np.abs(to_img)
    # The empty cells, each with its four neighbours max(1, g / 4) px away along the image's axes.
    step = np.maximum(1.0, 0.25 * g)[:, None]
    cells = cen[:, None] + _PAIR_EMPTY[None, :] * to_img[:, None]  # (H, 7)
    pts = (cells[:, :, None] + _NEIGHBOURS[None, None, :] * step[:, :, None]).reshape(len(h), -1)
    # The lattice points clear of both pips by a hundredth of a pixel more than _check asks: clear in its
    # fit too (the rest may be left out: fewer points only refuse less).
    lat = cen[:, None] + (_LATTICE_CAL_Z if near else _LATTICE_Z)[None, :] * to_img[:, None]  # (H, 81 or 77)
    zi = (c.xy[i[h], 0] + 1j * c.xy[i[h], 1])[:, None]
    zj = (c.xy[j[h], 0] + 1j * c.xy[j[h], 1])[:, None]
    clear = 1.5 * np.maximum(c.radius[i[h]], c.radius[j[h]])[:, None] + 1.5 + 0.01
    away = (np.abs(lat - zi) > clear) & (np.abs(lat - zj) > clear)
    both = np.concatenate([pts, lat], axis=1)
    vals = sample(low, np.stack([both.real, both.imag], axis=-1))
    vals[:, pts.shape[1]:][~away] = 0.0
    weak = np.minimum(c.peak[i[h]], c.peak[j[h]])
    return np.asarray(vals.max(axis=1) > EMPTY_SHARE * weak, bool)


_BOX3 = np.ones((3, 3), np.uint8)
# A 2's empty cells in its proposal's grid (corners i, j at (-1, -1), (1, 1)), as u + iv.
_PAIR_EMPTY = np.array([u + 1j * v for u in (-1, 0, 1) for v in (-1, 0, 1) if (u, v) not in ((-1, -1), (1, 1))])
_NEIGHBOURS = np.array([0, 1, -1, 1j, -1j])


def _check(gray: U8, c: Candidates, resp: U8, members: NDArray[np.int64], g_known: float | None,
           level: Level | None = None, edge: float = MIN_EDGE, placed_xy: F64 | None = None,
           above: bool = False) -> LightFace | None:
    """`placed_xy`: the members' spots placed to a fraction of a pixel (_refined), where the caller has them.
    `above`: the frame is read from above (light_pass)."""
    pts = c.xy[members]
    fit = fit_layout(pts, with_skew=False)
    if fit.value is None or fit.value != len(members):
        return None
    g = fit.grid
    if g_known and not G_TOL[0] * g_known <= g <= G_TOL[1] * g_known:
        return None
    long = c.elong[members] >= MAX_ELONG
    if long.any() and not _between_pips(fit, pts, long, c.axis[members]):
        return None
    weakest = float(c.peak[members].min())
    empty = fit.empty_cells()
    worst = 0.0
    if len(empty):
        off = np.array([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)], np.float64) * max(1.0, 0.25 * g)
        worst = float(sample(resp, empty[:, None, :] + off[None, :, :]).max())
    if worst > EMPTY_SHARE * weakest:
        return None
    # Nothing else dark anywhere on the face: a dense lattice over the face, away from the pips found,
    # must stay below the same share (merged or missed pips of a bigger face, letters, a crease).
    cth, sth = np.cos(fit.theta), np.sin(fit.theta)
    grid = _LATTICE_CAL if _cut_corners(g_known, above) else _LATTICE
    lat = np.array(fit.centre) + (grid * g) @ np.array([[cth, sth], [-sth, cth]])
    dpip = np.hypot(lat[:, None, 0] - pts[None, :, 0], lat[:, None, 1] - pts[None, :, 1]).min(axis=1)
    rpip = float(c.radius[members].max())
    # A pip's response has tails: half-width radius r, so stay 1.5 r + 1.5 px clear (under a pitch).
    away = dpip > 1.5 * rpip + 1.5
    if away.any():
        worst = max(worst, float(sample(resp, lat[away]).max()))
    if worst > EMPTY_SHARE * weakest:
        return None
    # A 6 may have a skewed grid (MAX_SKEW_6) when its rows of three are squeezed by design; squeezed the
    # other way (its two rows closer together) it is a die tilted across them: cocked (the simulated
    # camera's cocked 6 was read as a flat 6 without this).
    # Calibrated (`level`), the grid is measured as seen from straight above: a flat die's face away from
    # the frame's centre is squashed by the perspective alone.
    lv = level(fit.centre) if level is not None else None
    six_ok = fit.value == 6 and six_squeeze(fit, pts, lv) > 1.0
    slanted = skew_of(fit, pts, lv) > (MAX_SKEW_6 if six_ok else MAX_SKEW)
    # On a square grid a point between the cells that falls on a pip's edge is the fit's pixel error (the
    # rim test leaves it out); on a slanted one the strict test stands: held out on Byler, 13 dark and
    # coloured dice whose pips fit a slanted grid only so were then refused as cocked, where the body pass,
    # with no such face in its way, reads them right.
    # Calibrated, the rim test takes the pips placed to a fraction of a pixel, and the grid fitted to them: its
    # points between the cells lie 0.71 pitch from the nearest pips and a pip's edge is PIP_TAIL (0.6) pitch out,
    # a pixel apart at a 9 px pitch, and with the pips placed to the pixel one fell on a pip's dark edge (a real
    # board's proportions: a 3 and a 5 beside the board's lines refused). The face itself stays as fitted to the
    # pixels: fitted to the placed pips, the side-face checks let two leaning dice more through on the tests' tables.
    # Uncalibrated, Byler read two photos fewer right either way (154 -> 152; docs/vision.md).
    placed, at = pts, fit
    if g_known:
        placed = placed_xy if placed_xy is not None else _refined(resp, pts)
        at = fit_layout(placed, with_skew=False)
        if at.value != fit.value:
            placed, at = pts, fit
    if above and not slanted and fit.value in SQUARE_GRIDS and placed is not pts:
        # (Measured on the pips as found, to the pixel, the two overlap: flat 4s and 5s up to 1.178, leaning ones from
        # 1.08.)
        slanted = skew_of(at, placed, lv) > MAX_SKEW_ABOVE
    extent = face_extent(gray, at.centre, at.grid, at.theta, weakest, edge=edge, pips=None if slanted else placed)
    if extent is None:
        return None
    pips = tuple((float(x), float(y)) for x, y in pts)
    if slanted:
        return LightFace(None, fit.centre, g, fit.theta, 0.0, "cocked: the top face is seen at a slant", pips)
    margin = 1.0 - worst / max(weakest, 1.0)
    conf = float(np.clip(0.5 * (1.0 - fit.resid / RESID) + 0.5 * margin, 0.0, 1.0))
    return LightFace(fit.value, fit.centre, g, fit.theta, max(conf, 0.5), "", pips)


# How far round the pixel a pip was found at (px) its centre is refined over (_refined).
REFINE_REACH = 2


def _refined(resp: U8, xy: F64) -> F64:
    """Spots' centres to a fraction of a pixel: the centroid of their response above half its peak within
    REFINE_REACH px of the pixel each was found at (not over the whole pip: docs/vision.md, "A real board's
    proportions")."""
    vals = sample(resp, xy[:, None, :] + _REFINE_WIN[None])
    wgt = np.maximum(vals - 0.5 * vals.max(axis=1, keepdims=True), 0.0)
    return np.asarray(xy + (wgt @ _REFINE_WIN) / np.maximum(wgt.sum(axis=1, keepdims=True), 1e-9), np.float64)


_REFINE_WIN = np.array([(dx, dy) for dy in range(-REFINE_REACH, REFINE_REACH + 1)
                        for dx in range(-REFINE_REACH, REFINE_REACH + 1)], np.float64)


def _between_pips(fit: Fit, pts: F64, long: NDArray[np.bool_], axis: NDArray[np.int64]) -> bool:
    """Whether every long spot of a face sits between two round pips of it, one cell either side along a
    row, a column or a diagonal, or at the end of a row or column with its long axis towards the pip next
    to it: the only places where pips blur together into a long spot (a 6's middle pips, the centre of a 3
    or 5; a squeezed 6's end pips, in a darker or softer picture). Elsewhere a long spot is a mark, and
    taking it for a pip misread 5s. `axis`: each spot's longest diameter, in eighths of a turn."""
    cth, sth = np.cos(fit.theta), np.sin(fit.theta)
    rel = pts - np.array(fit.centre)
    cell = np.rint(np.stack([rel @ np.array([cth, sth]), rel @ np.array([-sth, cth])], axis=1) / fit.grid)
    cells = {(int(u), int(v)) for u, v in cell.tolist()}
    round_cells = {(int(u), int(v)) for (u, v), lg in zip(cell.tolist(), long.tolist(), strict=True) if not lg}
    for (u, v), lg, ax in zip(cell.tolist(), long.tolist(), axis.tolist(), strict=True):
        if not lg:
            continue
        if any((int(u) + du, int(v) + dv) in round_cells and (int(u) - du, int(v) - dv) in round_cells
               for du, dv in ((1, 0), (0, 1), (1, 1), (1, -1))):
            continue
        if not any((int(u) + du, int(v) + dv) in cells and _along(du * cth - dv * sth, du * sth + dv * cth, ax)
                   for du, dv in ((1, 0), (-1, 0), (0, 1), (0, -1))):
            return False
    return True


def _along(dx: float, dy: float, axis: int) -> bool:
    """Whether the image direction (dx, dy) lies within 30 degrees of a spot's long axis (axis * 45 deg)."""
    turn = (np.degrees(np.arctan2(dy, dx)) - 45.0 * axis) % 180.0
    return bool(min(turn, 180.0 - turn) <= 30.0)


# A lattice over the face (grid coordinates, pitches), inside its rim.
_LATTICE = np.array([(a, b) for a in np.linspace(-1.6, 1.6, 9) for b in np.linspace(-1.6, 1.6, 9)])
# The lattice within 1.6 pitches of the centre, for a lone pip whose die's orientation is unknown: the square
# lattice's corners, turned 45 degrees against the die, lie beyond its top face (half-side ~1.9 pitches) on
# a side face, whose pips then spoiled every 1 seen at a slant (the simulated camera's, away from the centre).
_DISC = _LATTICE[np.hypot(_LATTICE[:, 0], _LATTICE[:, 1]) <= 1.6 + 1e-9]
# Calibrated near overhead, without its four corners (2.26 pitches out, 0.83 of the way to the face's corner): there
# a die touching this one corner first makes the dark crevice between them, which had refused the face (the Pi unit's
# view, white pairs touching, seeds 20-59 at 0, 8 and 18 degrees: 109 -> 112 of 120 read). Uncalibrated the pitch is
# not held to a known size, and a face fitted at a wrong one needs the corners' guard; read from above (35-45 degrees)
# they keep a flat die's side face from being read as a die (a white pair at 45 degrees, seed 28: "found 4 dice").
_LATTICE_CAL = _LATTICE[np.hypot(_LATTICE[:, 0], _LATTICE[:, 1]) <= 2.0 + 1e-9]
_LATTICE_Z = _LATTICE[:, 0] + 1j * _LATTICE[:, 1]
_LATTICE_CAL_Z = _LATTICE_CAL[:, 0] + 1j * _LATTICE_CAL[:, 1]


def _cut_corners(g_known: float | None, above: bool) -> bool:
    """Whether a face's lattice leaves out its corners (_LATTICE_CAL): calibrated, not read from above. _check and
    its 2s' pre-check (_pair_spoilt) must ask the same lattice."""
    return bool(g_known) and not above

# A lone pip's radius over the pitch, when no face of several pips gives the pitch (Byler 1s: ~0.25-0.3).
ONE_R_PER_G = 0.3
# A lone pip's face reaches this many pitches from its centre along its axes: a little short of the face's
# half side (SIDE_PER_G / 2 = 1.93), so that a spot on its rim or bevel does not count as on it.
ONE_FACE = 1.8
# Orientations tried for a lone pip's die (its grid is unknown): every 15 degrees of a quarter turn.
_ONE_ANGLES = np.arange(0.0, np.pi / 2, ONE_STEP)


def _ones(gray: U8, c: Candidates, resp: U8, g: float, used: set[tuple[float, float]],
          calibrated: bool = False, edge: float = MIN_EDGE, big: bool = False) -> list[LightFace]:
    """Lone spots that are a 1: nothing else dark on a light die-sized face around them.

    `g`: the frame's pitch; 0 when unknown (uncalibrated, no face of several pips read): then each spot's
    own radius gives it (a 1's pip radius is ~ONE_R_PER_G of the pitch on the dice measured). `big`: the
    spots are _big_ones', of BIG_ONE_R pitches (`g` known), which cover the face's middle."""
    out: list[LightFace] = []
    gk = np.full(len(c), g) if g > 0 else c.radius / ONE_R_PER_G
    # A 1's pip is as big as the others or bigger (0.25-0.9 g in radius).
    lo, hi = BIG_ONE_R if big else (0.22, 0.9)
    sized = (c.radius >= lo * gk) & (c.radius <= hi * gk)
    cand = np.nonzero(sized)[0]
    if cand.size == 0:
        return out
    # Alone on its die: the nearest pip of a touching die is ~2.7 pitches away or more (a flat die's
    # side-face pips come a little closer). All candidates against all spots at once.
    dist = np.hypot(c.xy[cand, None, 0] - c.xy[None, :, 0], c.xy[cand, None, 1] - c.xy[None, :, 1])
    crowd = (dist > 0.5) & (dist < 2.3 * gk[cand, None]) & (c.peak[None, :] >= 0.3 * c.peak[cand, None])
    crowded = np.asarray(crowd.any(axis=1), bool)
    # Calibrated, a crowded spot is still tried: once its face is placed (its size is known), the spots
    # that crowd it must lie on that face to spoil it (below).
    tried = np.arange(len(cand)) if calibrated else np.nonzero(~crowded)[0]
    # Nothing else dark on the face: the lattice over a face of the spot's pitch, away from the pip; for
    # every spot tried at once (one sampling call: calibrated, every pip-sized spot is tried).
    kk = cand[tried]
    lat_all = c.xy[kk, None, :] + _DISC[None, :, :] * gk[kk, None, None]
    reach = c.radius[kk] + np.maximum(1.5, 0.25 * gk[kk])
    away_all = np.hypot(lat_all[..., 0] - c.xy[kk, None, 0], lat_all[..., 1] - c.xy[kk, None, 1]) > reach[:, None]
    quiet = np.where(away_all, sample(resp, lat_all), 0.0).max(axis=1) <= EMPTY_SHARE * c.peak[kk]
    # (Only the quiet spots go on: calibrated, most spots tried are not, and each was a turn of this loop.)
    sel = np.nonzero(quiet)[0]
    for i, k in zip(tried[sel].tolist(), kk[sel].tolist(), strict=True):
        xy = (float(c.xy[k, 0]), float(c.xy[k, 1]))
        if xy in used:
            continue
        r = float(c.radius[k])
        g = float(gk[k])
        best = None
        # The die's orientation is unknown: try the grid at a few angles, keep the one whose edge fits;
        # dice in one frame may differ in size, so try pitches from the frame's upwards too.
        # (Calibrated, the die's size is known: a bigger face fitted round a 1 misplaces its edges, and the
        # lean check then takes board lines beyond them for a side face.)
        for gg in (g,) if calibrated else (1.5 * g, 1.25 * g, g):
            if gg != g:  # (at the frame's pitch the face was checked just above)
                lat = np.array(xy) + _DISC * gg
                away = np.hypot(lat[:, 0] - xy[0], lat[:, 1] - xy[1]) > r + max(1.5, 0.25 * gg)
                if float(sample(resp, lat[away]).max()) > EMPTY_SHARE * float(c.peak[k]):
                    continue
            # (Calibrated, only whether a rim is found at some turn counts: the turn is the edges', below.)
            first = first_extent(gray, xy, gg, _ONE_ANGLES, float(c.peak[k]), r + 1.5, fittest=not calibrated,
                                 edge=edge, covered=r + max(1.5, 0.25 * gg) if big else 0.0)
            if first is not None:
                # Calibrated, the die's turn is taken from its edges' gradients: where a flat die's side faces show
                # round it the rim is found at many of the turns tried, and the best of them need not be the die's
                # (the simulated camera's 1s turned 45 degrees at a real board's proportions: taken at 0 and 15),
                # while the lean check and the spots that crowd a 1 (below) are placed by that turn (plain throws
                # of seeds 41-140 there lost two 1s so, one refused as leaning, one not found; docs/vision.md).
                turn = square_turn(gray, xy, SIDE_PER_G * gg) if calibrated else float(_ONE_ANGLES[first])
                best = (turn, gg)
                break
        if best is None:
            continue
        if crowded[i] and _on_face(c.xy[crowd[i]] - np.array(xy), best[0], best[1]):
            continue
        out.append(LightFace(1, xy, best[1], best[0], 0.6, "", (xy,)))
    return out


# Japanese dice, and some others, mark the 1 with one large pip, often red: 0.25-0.5 of the face's side
# across, against 0.17 for the other pips. The spot finder's kernel (KERNEL_PER_DIAM pips) cannot fill such a
# pip, so it is looked for with a kernel a little wider than the largest (BIG_ONE_KERNEL pitches), its
# radius in BIG_ONE_R pitches: from a little over a standard 1's (~0.3 g) to the largest (0.96 g), with room
# for blur (the simulated camera's 1s half the face across measure 0.98-1.06 g, as _centred takes them). On
# the simulated camera's dice with such a 1, calibrated, plain throws with a 1 read right went from 2 of 11 to
# 10 (docs/vision.md, "Large ones").
BIG_ONE_R = (0.35, 1.2)
BIG_ONE_KERNEL = 2.3


def _big_ones(gray: U8, g: float, used: set[tuple[float, float]], calibrated: bool, floor: float,
              edge: float) -> tuple[list[LightFace], Candidates]:
    """1s marked by one large pip (see BIG_ONE_R) on faces of pitch `g`, and the spots they came from."""
    k = odd(BIG_ONE_KERNEL * g)
    h, w = gray.shape
    if k >= 9 and min(h, w) >= 4 * k:
        # Pips this large are found as well at half the size, a quarter of the pixels with a kernel half as
        # wide (an ellipse's morphology costs with both: 0.57 ms a stacked throw's window at full size).
        half = np.asarray(cv2.pyrDown(gray), np.uint8)
        # (pyrUp, not resize: it puts the half's pixel i back at 2i, where pyrDown took it from; resize put
        # every spot half a pixel off in x and in y.)
        resp = np.asarray(cv2.pyrUp(black_hat(half, odd(k / 2)), dstsize=(w, h)), np.uint8)
    else:
        resp = black_hat(gray, k)
    c = detect(resp, floor, k // 2 + 1, True)
    # (Only spots near the least radius wide or more, one per spot, are centred: every maximum of a board's
    # lettering took 13 ms a frame.)
    wide = (c.elong < MAX_ELONG) & (c.radius >= max(0.75, 0.9 * BIG_ONE_R[0] * g))
    c = one_per_spot(c.take(np.nonzero(wide)[0]))
    c = one_per_spot(_centred(resp, c))
    return _ones(gray, c, resp, g, used, calibrated, edge, big=True), c


def _centred(resp: U8, c: Candidates) -> Candidates:
    """The spots `c` moved to the middle of their response above half their peak, each radius that region's
    (as a disc of its area): a large pip's black-hat is flat-topped, its maxima anywhere on it (the simulated
    camera's large 1s: up to 0.4 of its radius off its centre, which put the face's test points on it)."""
    xy, radius = c.xy.copy(), c.radius.copy()
    h, w = resp.shape
    for i, ((x, y), r, p) in enumerate(zip(c.xy.tolist(), c.radius.tolist(), c.peak.tolist(), strict=True)):
        reach = int(np.ceil(2.0 * r)) + 2
        x0, y0 = max(0, int(x) - reach), max(0, int(y) - reach)
        win = resp[y0:min(h, int(y) + reach + 1), x0:min(w, int(x) + reach + 1)]
        _, labels, stats, cents = cv2.connectedComponentsWithStats((win >= 0.5 * p).view(np.uint8), connectivity=8)
        own = int(labels[int(y) - y0, int(x) - x0])
        if own == 0:
            continue
        xy[i] = (cents[own][0] + x0, cents[own][1] + y0)
        radius[i] = float(np.sqrt(stats[own, cv2.CC_STAT_AREA] / np.pi))
    return Candidates(xy, c.peak, radius, c.elong, c.axis, c.dark)


def _on_face(rel: F64, theta: float, g: float) -> bool:
    """Whether any of the offsets `rel` (pixels, from a lone pip) lies on the 1's face turned `theta` with
    pitch `g`: within ONE_FACE pitches of its centre along both of its axes.

    A dark spot within 2.3 pitches of a lone pip may be a pip of a bigger face the lone pip belongs to (a
    4's corner: its neighbours are 2 pitches away), which is why such a spot spoils a 1 uncalibrated. With
    the die's size known the face is placed, and a spot beyond its edge is a side face's pip (the simulated
    camera's obliquely seen dice), the board's lettering or a shadow: 13 of 240 plain throws lost a 1 to
    such a spot (the body pass then read it, and the die's shadow besides, as dice: "found 3 dice")."""
    cth, sth = np.cos(theta), np.sin(theta)
    u = np.abs(rel[:, 0] * cth + rel[:, 1] * sth)
    v = np.abs(-rel[:, 0] * sth + rel[:, 1] * cth)
    return bool(((u < ONE_FACE * g) & (v < ONE_FACE * g)).any())


def _resolve(faces: list[LightFace]) -> list[LightFace]:
    """One face per die: more pips first (a face's subsets also look like faces), then confidence."""
    faces = sorted(faces, key=lambda f: (len(f.pips), f.confidence), reverse=True)
    kept: list[LightFace] = []
    for f in faces:
        if any(np.hypot(f.centre[0] - o.centre[0], f.centre[1] - o.centre[1]) < 0.8 * max(f.side, o.side)
               or set(f.pips) & set(o.pips) for o in kept):
            continue
        kept.append(f)
    return kept

"""EXPERIMENTAL pip-first dice reader: NOT wired into `read_dice` (vision/reader.py stays the product path).

Measured on every third Byler photo (84 photos, 605 dice) when it was set aside: 30.1% coverage at 96.7%
accuracy among accepted dice, ~24 ms per 640x640 frame, versus 35.7% / 98.4% / ~30 ms for `read_dice`;
it reads none of the simulated camera's rest frames either. On all 250 photos (bench/vision.py --reader
pipfirst): 27.6% coverage at 97.0% accuracy (27 values read off non-dice), white dice 49.0% at 100%,
16.4 ms median per frame (read_dice: 35.7% / 98.4% / 31 ms; the peer 2.5-2.9 ms). Kept so the next round
can continue from it; the weak points are listed below.

Pips first: pip-like spots of both polarities are found at a scale derived from the die size (calibrated,
or measured from the spots themselves), linked where the face between two spots is clean, and each linked
group is accepted as a face only if it forms a legal d6 layout at the expected pitch with its empty cells
empty. A single spot is a "1" only with a die body around it: a uniform face, then an edge all round.

Known gaps: light pips on touching dice of one colour stay linked across the crease (the crease has the
opposite polarity, and testing for that cuts in-face links on dark dice); a die's bevel corners show as
spots of the pips' polarity and join the face's group, which then fits no layout; a 6 whose second
column is missed passes for a 3 (the body check is only applied to 1s and 2s).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.model import Calibration
from vision.layout import Fit, fit_layout
from vision.pips import Candidates, detect, odd, responses, sample
from vision.reader import MIN_CONFIDENCE
from vision.reading import DiceReading, Die, Verdict

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# Geometry of a d6 face, as shares of the pitch g (centre pip to an edge pip): standard dice put the
# outer pips at about 0.27 of the face's side from its centre, so the face is ~3.7 g wide.
FACE_PER_G = 3.7
# Pitch over pip radius on the dice measured (Byler photos, simulated camera): a prior only, used to
# start when neither a calibration nor a face with 4+ pips gives the pitch.
G_PER_RADIUS = 3.2
# Kernel of the spot filters, in pip diameters: wide enough for a big "1" pip, narrow next to a die.
KERNEL_PER_DIAM = 2.4
# Processing scale: a pip this wide (pixels) is plenty; bigger frames are shrunk first.
TARGET_PIP_DIAM = 6.0
MIN_SPOT = 12.0  # grey levels: weaker spots are JPEG noise or texture
MAX_ELONG = 2.0  # a pip seen from above is round; side-face pips, edges and smears are not
MAX_SKEW = 1.35  # a flat die's top face is square on; beyond this it leans (cocked)
EMPTY_SHARE = 0.45  # an empty cell responding above this share of the pips' contrast holds a missed pip
G_TOL = (0.78, 1.3)  # accepted face pitch around the frame's reference pitch


@dataclass(frozen=True)
class _Face:
    value: int | None
    centre: tuple[float, float]
    g: float
    theta: float
    confidence: float
    reason: str
    npips: int


def _calibrated_die_size(cal: Calibration | None, frame_wh: tuple[int, int]) -> float | None:
    if cal is None or not cal.die_size_px:
        return None
    cw, _ = cal.image_size
    return float(cal.die_size_px) * (frame_wh[0] / cw if cw else 1.0)


def _polygon(cal: Calibration | None, frame_wh: tuple[int, int]) -> NDArray[np.float32] | None:
    if cal is None:
        return None
    cw, ch = cal.image_size
    sx = frame_wh[0] / cw if cw else 1.0
    sy = frame_wh[1] / ch if ch else 1.0
    return np.array([(x * sx, y * sy) for x, y in cal.play_polygon], np.float32).reshape(-1, 1, 2)


def _spots(gray: U8, pip_d: float) -> tuple[list[Candidates], list[U8], int]:
    k = odd(KERNEL_PER_DIAM * pip_d)
    dark, light = responses(gray, k)
    out = []
    for resp, is_dark in ((dark, True), (light, False)):
        c = detect(resp, MIN_SPOT, k // 2 + 1, is_dark)
        ok = (c.elong < MAX_ELONG) & (c.radius <= 0.4 * k) & (c.radius >= 0.75)
        out.append(c.take(np.nonzero(ok)[0]))
    return out, [dark, light], k


def read_dice_pipfirst(frame: U8, calibration: Calibration | None = None,
                       expect: int | None = 2) -> DiceReading:
    """Read the dice in one frame. `expect` is the number of dice in a throw (None: any number)."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError("read_dice wants a BGR uint8 frame (H x W x 3)")
    h, w = frame.shape[:2]
    die = _calibrated_die_size(calibration, (w, h))
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    if die:
        g_ref: float | None = die / FACE_PER_G
        pip_d = 2.0 * die / FACE_PER_G / G_PER_RADIUS
    else:
        g_ref = None
        # Dice a twentieth of the frame's short side: a first guess only, measured on the faces found.
        pip_d = 2.0 * min(h, w) / 110.0 / G_PER_RADIUS
    scale = min(1.0, TARGET_PIP_DIAM / pip_d)
    if scale < 0.95:
        gray = np.asarray(cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA),
                          dtype=np.uint8)
        pip_d *= scale
    cands, resp, _ = _spots(gray, pip_d)
    faces, g_seen = _faces(gray, cands, resp, g_ref * scale if g_ref else None, pip_d)
    if g_ref is None and g_seen is not None:
        # The pitch measured on unmistakable faces sets the spot filters' scale; redo if the guess was off.
        measured = 2.0 * g_seen / G_PER_RADIUS
        if not 0.8 < measured / pip_d < 1.25:
            pip_d = measured
            cands, resp, _ = _spots(gray, pip_d)
            faces, _ = _faces(gray, cands, resp, g_seen, pip_d)
    poly = _polygon(calibration, (w, h))
    dice: list[Die] = []
    problems: list[str] = []
    for f in faces:
        cx, cy = f.centre[0] / scale, f.centre[1] / scale
        on_board = True
        if poly is not None:
            on_board = cv2.pointPolygonTest(poly, (cx, cy), False) >= 0
        side = FACE_PER_G * f.g / scale
        box = cv2.boxPoints(((cx, cy), (side, side), float(np.degrees(f.theta))))
        dice.append(Die(value=f.value, center=(cx, cy), confidence=f.confidence, on_board=bool(on_board),
                        size=side, corners=tuple((float(x), float(y)) for x, y in box)))
        problems.append(f.reason)
    unit = max((d.size for d in dice), default=1.0)
    # Reading order: top to bottom, then left to right, so "die 2" means the same die to a person.
    order = sorted(range(len(dice)), key=lambda i: (round(dice[i].center[1] / unit), dice[i].center[0]))
    return _verdict(tuple(dice[i] for i in order), [problems[i] for i in order], expect)


class _Links:
    """Union-find over spot indices."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, i: int, j: int) -> None:
        a, b = self.find(i), self.find(j)
        if a != b:
            self.parent[max(a, b)] = min(a, b)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = {}
        for i in range(len(self.parent)):
            out.setdefault(self.find(i), []).append(i)
        return list(out.values())


def _clean_links(c: Candidates, resp: U8, max_len: float) -> tuple[NDArray[np.int64], NDArray[np.int64], F64]:
    """Pairs of spots (i, j, length) close enough to share a face, with nothing of their polarity between.

    The crease or gap between two touching dice, or a die's edge, shows as a line of the pips' polarity
    (dark between white dice, light between dark ones), so it cuts the link; the face between two pips of
    one die is clean.
    """
    n = len(c)
    if n < 2:
        z = np.zeros(0, np.int64)
        return z, z, np.zeros(0)
    d = np.hypot(c.xy[:, None, 0] - c.xy[None, :, 0], c.xy[:, None, 1] - c.xy[None, :, 1])
    i, j = np.nonzero(np.triu(d <= max_len, 1))
    if i.size == 0:
        return i, j, np.zeros(0)
    length = d[i, j]
    # Pips of one face have much the same contrast and size.
    pk = np.minimum(c.peak[i], c.peak[j]) / np.maximum(c.peak[i], c.peak[j])
    rr = np.minimum(c.radius[i], c.radius[j]) / np.maximum(c.radius[i], c.radius[j])
    keep = (pk >= 0.4) & (rr >= 0.45)
    i, j, length = i[keep], j[keep], length[keep]
    margin = 1.4 * np.maximum(c.radius[i], c.radius[j]) + 0.5
    t0 = np.clip(margin / np.maximum(length, 1e-6), 0.0, 0.5)
    ts = t0[:, None] + (1.0 - 2.0 * t0[:, None]) * np.linspace(0.0, 1.0, 5)[None, :]
    pts = c.xy[i, None, :] + ts[..., None] * (c.xy[j] - c.xy[i])[:, None, :]
    weak = np.minimum(c.peak[i], c.peak[j])
    clean = sample(resp, pts).max(axis=1) <= 0.5 * weak
    return i[clean], j[clean], length[clean]


def _faces(gray: U8, cands: list[Candidates], resp: list[U8], g_ref: float | None,
           pip_d: float) -> tuple[list[_Face], float | None]:
    """Accepted (and refused) faces of both polarities, one per die, and the pitch measured on 4-6 faces."""
    found: list[tuple[_Face, Candidates, list[int]]] = []
    g_prior = g_ref if g_ref else G_PER_RADIUS * pip_d / 2.0
    groups: list[tuple[Candidates, U8, list[int], Fit]] = []
    for c, r in zip(cands, resp, strict=True):
        i, j, length = _clean_links(c, r, 2.83 * 1.3 * g_prior)
        for members, fit in _split(c, i, j, length, g_prior):
            groups.append((c, r, members, fit))
    if g_ref is None:
        # The pitch of the faces that can't be mistaken (4, 5 and 6 pips) is the frame's reference.
        gs = [f.grid for _, _, m, f in groups if f.value is not None and f.value >= 4 and f.resid < 0.2
              and f.skew < MAX_SKEW]
        g_seen = float(np.median(gs)) if gs else None
        g_ref = g_seen or g_prior
    else:
        g_seen = g_ref
    for c, r, members, fit in groups:
        face = _check(gray, c, r, members, fit, g_ref)
        if face is not None:
            found.append((face, c, members))
    return _resolve([f for f, _, _ in found], g_ref), g_seen


def _components(n: int, i: NDArray[np.int64], j: NDArray[np.int64]) -> list[list[int]]:
    uf = _Links(n)
    for a, b in zip(i.tolist(), j.tolist(), strict=True):
        uf.join(a, b)
    return uf.groups()


def _split(c: Candidates, i: NDArray[np.int64], j: NDArray[np.int64], length: F64,
           g: float) -> list[tuple[list[int], Fit]]:
    """Groups of linked spots with their layout fit; a group that is no face is re-cut with shorter links."""
    out: list[tuple[list[int], Fit]] = []
    active = np.ones(len(c), bool)
    # The longest in-face links: a 2's diagonal (2.83 g), a 4's side (2 g), a 3's or 5's half-diagonal.
    for cap in (np.inf, 2.3 * g, 1.6 * g):
        keep = (length <= cap) & active[i] & active[j]
        failed = np.zeros(len(c), bool)
        for grp in _components(len(c), i[keep], j[keep]):
            if not active[grp[0]]:
                continue
            fit = fit_layout(c.xy[grp])
            if len(grp) == 1 or (fit.value is not None and 0.6 * g <= fit.grid <= 1.6 * g) or cap < 2 * g:
                out.append((grp, fit))
            else:
                failed[grp] = True
        active = failed
    return out


def _check(gray: U8, c: Candidates, resp: U8, members: list[int], fit: Fit, g_ref: float) -> _Face | None:
    """The face a group of spots shows, or None when the group is not a die at all."""
    n = len(members)
    if fit.value is None:
        return None
    peaks = c.peak[members]
    contrast = float(peaks.min())
    if n == 1:
        return _single(gray, c, members[0], resp, g_ref)
    if not G_TOL[0] * g_ref <= fit.grid <= G_TOL[1] * g_ref:
        return None
    radii = c.radius[members]
    if radii.max() > 2.0 * radii.min():
        return None
    empty = fit.empty_cells()
    worst = 0.0
    if len(empty):
        # The brightest response within a third of a pitch of each empty cell centre.
        off = np.array([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)], np.float64) * max(1.0, 0.3 * fit.grid)
        worst = float(sample(resp, empty[:, None, :] + off[None, :, :]).max())
    if worst > EMPTY_SHARE * contrast:
        return None
    if n == 2 and not _body(gray, fit.centre, fit.grid, float(peaks.mean()), c.dark, fit.theta, False):
        return None
    margin = 1.0 - worst / max(contrast, 1.0)
    conf = float(np.clip(0.5 * (1.0 - fit.resid / 0.3) + 0.5 * margin, 0.0, 1.0))
    if fit.skew > MAX_SKEW:
        return _Face(None, fit.centre, fit.grid, fit.theta, 0.0, "cocked: the top face is seen at a slant", n)
    return _Face(fit.value, fit.centre, fit.grid, fit.theta, conf, "", n)


def _single(gray: U8, c: Candidates, k: int, resp: U8, g: float) -> _Face | None:
    """A lone spot is a "1" only when it is pip-sized, alone and centred on a die-sized uniform body."""
    xy = (float(c.xy[k, 0]), float(c.xy[k, 1]))
    if not _body(gray, xy, g, float(c.peak[k]), c.dark, None, True):
        return None
    # A corner pip of a 4 or 6 whose partners were missed would pass for a 1: no pip-like spot of this
    # polarity may lie anywhere on the face.
    d = np.hypot(c.xy[:, 0] - xy[0], c.xy[:, 1] - xy[1])
    near = (d > 0.5) & (d < 2.4 * g) & (c.peak >= 0.4 * c.peak[k])
    if near.any():
        return None
    # The rest of the face must be empty: no spot of this polarity within the pip grid.
    ang = np.arange(8) * np.pi / 4
    ring = np.stack([xy[0] + g * np.cos(ang), xy[1] + g * np.sin(ang)], axis=-1)
    if float(sample(resp, ring).max()) > EMPTY_SHARE * float(c.peak[k]):
        return None
    return _Face(1, xy, g, 0.0, 0.6, "", 1)


def _body(gray: U8, centre: tuple[float, float], g: float, contrast: float, dark: bool,
          theta: float | None, centre_pip: bool) -> bool:
    """Whether a die-sized square body surrounds `centre`: a uniform face, then an edge at its rim.

    Sixteen rays from the centre: the face between 1.25 g and 1.55 g (clear of the pips of a 1 or 2) must
    be one shade, lighter than dark pips (darker than light ones); each ray must cross an edge between 1.4 g
    and 2.9 g (half a face's side to its corner, plus bevel), and opposite rays must meet it at about the
    same distance (the body is centred on the pips).
    """
    ang = np.arange(16) * np.pi / 8 + (theta or 0.0)
    rs = np.arange(1.25 * g, 3.1 * g, max(0.5, 0.12 * g))
    xy = np.stack([centre[0] + rs[None, :] * np.cos(ang)[:, None], centre[1] + rs[None, :] * np.sin(ang)[:, None]],
                  axis=-1)
    prof = sample(gray, xy)  # (16, R)
    centre_v = float(sample(gray, np.array([centre]))[0])
    inner = prof[:, rs <= 1.55 * g]
    face = float(np.median(inner))
    # Pips stand out from the face by their contrast; the face itself must not vary by half of that.
    if np.abs(np.median(inner, axis=1) - face).max() > 0.35 * contrast:
        return False
    if centre_pip and (face - centre_v if dark else centre_v - face) < 0.5 * contrast:
        return False
    step = np.abs(prof[:, 2:] - prof[:, :-2])
    rmid = rs[1:-1]
    band = (rmid >= 1.4 * g) & (rmid <= 2.9 * g)
    if not band.any():
        return False
    sb = step[:, band]
    strong = sb.max(axis=1) >= max(8.0, 0.15 * contrast)
    if strong.mean() < 0.75:
        return False
    edge_r = rmid[band][sb.argmax(axis=1)]
    return bool(np.median(np.abs(edge_r[:8] - edge_r[8:])) <= 0.6 * g)


def _resolve(faces: list[_Face], g: float) -> list[_Face]:
    """One face per die: faces closer than a die's side overlap (one die on another, or one die seen twice)."""
    side = FACE_PER_G * g
    faces = sorted(faces, key=lambda f: (f.value is not None, f.npips, f.confidence), reverse=True)
    kept: list[_Face] = []
    for f in faces:
        clash = [k for k, o in enumerate(kept)
                 if np.hypot(f.centre[0] - o.centre[0], f.centre[1] - o.centre[1]) < 0.85 * side]
        if not clash:
            kept.append(f)
            continue
        for k in clash:
            o = kept[k]
            d = float(np.hypot(f.centre[0] - o.centre[0], f.centre[1] - o.centre[1]))
            # Both faces whole and half a die apart: two dice, one resting on the other.
            if f.value is not None and d > 0.45 * side and f.npips >= 2:
                kept[k] = _Face(None, o.centre, o.g, o.theta, 0.0, "stacked or overlapping dice", o.npips)
    return kept


def _verdict(dice: tuple[Die, ...], problems: list[str], expect: int | None) -> DiceReading:
    for i, d in enumerate(dice):
        if not d.on_board:
            return DiceReading(Verdict.REROLL, f"die {i + 1} off the board", dice)
    if not dice:
        return DiceReading(Verdict.UNREADABLE, "no dice found", dice)
    if expect is not None and len(dice) != expect:
        return DiceReading(Verdict.UNREADABLE, f"found {len(dice)} dice, expected {expect}", dice)
    for i, (d, why) in enumerate(zip(dice, problems, strict=True)):
        if d.value is None:
            return DiceReading(Verdict.UNREADABLE, f"die {i + 1} unreadable: {why}", dice)
        if d.confidence < MIN_CONFIDENCE:
            return DiceReading(Verdict.UNREADABLE, f"die {i + 1} read with low confidence", dice)
    return DiceReading(Verdict.OK, "", dice)

"""Read one die's top face from its body: pips in whichever colour channel and polarity they stand out.

Pure: arrays in, a `Face` out. The die (a body found by vision.bodies: centre, side, angle) is resampled to a
fixed square, so every size below is a share of the die's side. Pips are spots a little smaller than a
morphological kernel of 0.3 of the die: a black-hat finds darker spots, a top-hat lighter ones, in each of
the blue, green, red and grey planes (black pips on yellow show in red and green, red pips on black or blue
in red, white pips on any colour in the planes the body lacks), and where none of those eight maps reads a value,
in Lab's two opponent planes (a*, green to red; b*, blue to yellow), when no polarity is asked for: red pips on a
marbled blue body differ from it mostly in hue, and in the red plane the body's glare and marbling are as bright as
they are. Each map proposes a face:
round spots of similar strength on the die's body (the window's regions unlike its rim, less a margin), fitted
to a legal d6 layout, with nothing else pip-strong on the face, the layout's empty cells and the face between
the pips quiet, on one die-sized body whose outline runs along the pip grid, and no pips nearer that body's
middle (a side face read instead of the top). Maps that read a value must all agree; a 1 needs two maps.

Measured on the Byler photos from segmented bodies alone (not the reader's final figures): 531 coloured or dark
dice right and 6 wrong, of 1,386 labelled dice with a body found.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.darkpips import _LEGAL_COUNT
from vision.faces import Face, median_rows
from vision.layout import MAX_RESID_6, fit_layout, skew_of, small_median
from vision.pips import Candidates, detect
from vision.spots import one_per_spot

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

P = 80  # side of the resampled window, pixels
WINDOW = 1.6  # window side over the die's outline side (a little background all round)
KERNEL = 0.3  # black-/top-hat kernel over the die side: about 2.4 pip diameters
MIN_PEAK = 22.0  # grey levels: a weaker spot is marbling, grain or JPEG noise
SIMILAR = 0.45  # a pip responds at least this share of the strongest pip
QUIET = 0.4  # an empty cell or the face between pips responds below this share of the weakest pip
# Pitch (centre to a corner pip along one axis) over the outline's side: 0.15-0.22 on dice measured.
MIN_G, MAX_G = 0.10, 0.36
MAX_RESID = 0.3  # worst pip distance from its grid cell, in pitches
ONE_AGREE = 2  # maps that must read a lone pip (a 1) before it counts
ONE_OFF = 0.15  # a 1's pip from its die's centre, over the die's side
MAX_TURN = np.deg2rad(20.0)  # pip grid vs die outline orientation
MARK_REACH = 1.5  # pitches from the face centre: within the face, short of its bevel
MAX_ELONG = 2.2  # a pip's longest over shortest diameter (side-face pips seen obliquely are ovals)
MAX_PROPOSING = 14  # spots beyond which pair proposals are not tried (a textured body, not pips)
LINE_ELONG = 1.6  # the most elongated pip a 2 or 3 may have
STRONG = 0.5  # a read counts if its weakest pip is this share of the strongest read's weakest
MAX_SKEW_6 = 1.6  # a 6 whose rows or columns sit closer by design (cocked 6s: vision.darkpips._check)
MAX_SKEW = 1.4  # the pip grid's singular-value ratio beyond which the face is seen at a slant


@dataclass(frozen=True)
class _Read:
    value: int | None
    margin: float  # 1 - quietest-area response / weakest pip (0..1)
    reason: str
    pts: F64  # pip centres, window pixels
    strength: float = 0.0  # the weakest pip's response (grey levels)
    # A refusal told without its reason (few are ever reported): the judgement that gives it.
    redo: tuple[_Spots, NDArray[np.int64]] | None = None

    def why(self) -> str:
        return self.reason if self.redo is None else _judge(*self.redo, why=True).reason


def _window(bgr: U8, center: tuple[float, float], side: float, angle: float) -> tuple[U8, F64]:
    """The die's window resampled to P x P (turned by `angle`), and the 2x3 map window -> frame."""
    k = WINDOW * side / P
    th = np.deg2rad(angle)
    c, s = np.cos(th), np.sin(th)
    off = -P / 2 + 0.5
    a = np.array([[c * k, -s * k, center[0] + k * (c * off - s * off)],
                  [s * k, c * k, center[1] + k * (s * off + c * off)]])
    win = cv2.warpAffine(bgr, a, (P, P), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(win, dtype=np.uint8), a


# The morphological maps read for each pip polarity (`dark_pips` of read_colour_face; None: both).
_HATS = {None: (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT), True: (cv2.MORPH_BLACKHAT,), False: (cv2.MORPH_TOPHAT,)}


def _ker(side_px: float) -> U8:
    k = max(5, round(KERNEL * side_px)) | 1
    return np.asarray(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)), dtype=np.uint8)


def read_colour_face(bgr: U8, center: tuple[float, float], side: float, angle: float,
                     dark_pips: bool | None = None, valleys: bool = False) -> Face:
    """Read the die whose outline is the square `side` (pixels) at `center`, turned `angle` degrees.

    `dark_pips`: where the dice's look is known (vision.look, from a calibration), only the maps of that
    polarity (black-hats for dark pips, top-hats for light ones); None tries both, and the opponent planes where
    the others read no value. `valleys`: spots long at half
    their peak measured again to the valleys before their neighbours (pips.detect; the reader asks for it
    uncalibrated, as for the pip passes)."""
    win, amap = _window(bgr, center, side, angle)
    s = P / WINDOW  # the die's side in window pixels
    lab = np.asarray(cv2.cvtColor(win, cv2.COLOR_BGR2LAB), dtype=np.uint8)
    blobs = _die_blobs(lab)
    ker = _ker(s)
    grey = np.asarray(cv2.cvtColor(win, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    # The B, G, R and grey planes as one 4-channel image: each morphology and blur is one call for all four
    # (OpenCV filters every channel alone, so each plane's map is the same as filtering it by itself).
    reads = _reads(np.dstack([win, grey]), dark_pips, ker, s, blobs, valleys)
    good = [r for r in reads if r.value is not None]
    if not good and dark_pips is None:
        # The opponent planes only where the others read no value (see the module's docstring for why, and
        # docs/vision.md, "Red pips in hue"): read for every die they cost the photos 3-5% more time. Not where
        # the pips' polarity is known (a calibrated look): a hue plane has none, and white pips on a red die
        # are darker than it in a*, which the look of white dice with black pips would then read.
        good = [r for r in _reads(np.ascontiguousarray(lab[..., 1:]), dark_pips, ker, s, blobs, valleys)
                if r.value is not None]
    if not good:
        # (Why the face is refused: as the eight maps of the B, G, R and grey planes say.)
        most = max(reads, key=lambda r: len(r.pts))
        return Face(None, 0.0, most.why(), _to_frame(amap, most.pts))
    # A plane where the pips barely differ from the body (white pips in a red die's red plane) reads its
    # bevel and glare instead: only reads with pips at least half as strong as the strongest read count.
    top = max(r.strength for r in good)
    good = [r for r in good if r.strength >= STRONG * top]
    best = max(good, key=lambda r: r.margin)
    rival = [r for r in good if r.value != best.value]
    agree = sum(r.value == best.value for r in good)
    if rival or (best.value == 1 and agree < ONE_AGREE):
        return Face(None, 0.0, "channels read as different faces", _to_frame(amap, best.pts))
    conf = float(np.clip(best.margin, 0.0, 1.0))
    fit = fit_layout(best.pts)
    return Face(best.value, conf, "", _to_frame(amap, best.pts), fit.grid / s if fit.grid else 0.0)


def _reads(planes: U8, dark_pips: bool | None, ker: U8, s: float, blobs: _Blobs, valleys: bool) -> list[_Read]:
    """Each of `planes`' maps read (_read): every plane's black-hat and top-hat, or the one polarity `dark_pips`
    asks for."""
    hats = [np.asarray(cv2.GaussianBlur(cv2.morphologyEx(planes, op, ker), (3, 3), 0.8), dtype=np.uint8)
            for op in _HATS[dark_pips]]
    out = []
    for i in range(planes.shape[2]):
        for hat in hats:
            m = np.ascontiguousarray(hat[..., i])
            out.append(_read(m, detect(m, MIN_PEAK, max(3, round(0.15 * s)), True, valleys), s, blobs))
    return out


@dataclass(frozen=True)
class _Blobs:
    """Regions of the window unlike its rim (the background): die bodies, holes (pips) filled."""

    labels: NDArray[np.int32]
    core: U8  # the bodies less a pip's width all round
    area: F64  # per label
    centroid: F64  # (n, 2) per label
    # The outline's orientation per label, radians modulo a quarter turn: measured when first asked for
    # (most windows never get that far, and most of their labels are never asked about).
    _angle: dict[int, float] = field(default_factory=dict, repr=False, compare=False)

    def angle(self, i: int) -> float:
        if i not in self._angle:
            ang = 0.0
            if self.area[i] >= 20:
                ys, xs = np.nonzero(self.labels == i)
                (_, _), (_, _), deg = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
                ang = float(np.deg2rad(deg))
            self._angle[i] = ang
        return self._angle[i]

    def label_at(self, xy: tuple[float, float]) -> int:
        h, w = self.labels.shape
        return int(self.labels[min(h - 1, max(0, round(xy[1]))), min(w - 1, max(0, round(xy[0])))])

    def holds(self, centre: tuple[float, float], pts: F64, face_side: float, theta: float | None) -> bool:
        """Whether every pip and the face centre lie on one blob of a die's size, centred on the face."""
        h, w = self.labels.shape
        xy = np.vstack([pts, np.array(centre)[None, :]])
        x = np.clip(np.rint(xy[:, 0]), 0, w - 1).astype(np.int64)
        y = np.clip(np.rint(xy[:, 1]), 0, h - 1).astype(np.int64)
        ids = self.labels[y, x]
        if ids[0] == 0 or (ids != ids[0]).any():
            return False
        a = float(self.area[ids[0]])
        # The visible die (top face plus bevels and side faces seen obliquely) against the face's side.
        if not 0.6 * face_side ** 2 <= a <= 3.0 * face_side ** 2:
            return False
        off = np.hypot(*(self.centroid[ids[0]] - np.array(centre)))
        if theta is None:
            # A lone pip: a 1's sits in the middle of its die, a corner pip (of a 2 or 3 whose other pips
            # were missed) or a side face's pip does not.
            return bool(off <= ONE_OFF * np.sqrt(a))
        # The pip grid runs along the die's edges.
        turn = abs((theta - self.angle(int(ids[0])) + np.pi / 4) % (np.pi / 2) - np.pi / 4)
        return bool(off <= 0.3 * np.sqrt(a) and turn <= MAX_TURN)


def _die_blobs(lab_u8: U8) -> _Blobs:
    """The bodies in a window given in Lab (uint8, as OpenCV converts it)."""
    lab = lab_u8.astype(np.float32)
    rim = np.concatenate([lab[:2].reshape(-1, 3), lab[-2:].reshape(-1, 3), lab[:, :2].reshape(-1, 3),
                          lab[:, -2:].reshape(-1, 3)])
    bg = median_rows(rim)
    dist = _colour_dist(lab, bg)
    noise = float(median_rows(_colour_dist(rim, bg)))
    otsu, _ = cv2.threshold(np.clip(dist, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = (dist > max(0.6 * float(otsu), 3.0 * noise + 6.0)).astype(np.uint8) * 255
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), dtype=np.uint8)
    # Fill holes (pips, glare): every region not reachable from the window's border is part of a body.
    flood = np.zeros((mask.shape[0] + 2, mask.shape[1] + 2), np.uint8)
    holes = cv2.bitwise_not(mask)
    for (x, y) in ((0, 0), (mask.shape[1] - 1, 0), (0, mask.shape[0] - 1), (mask.shape[1] - 1, mask.shape[0] - 1)):
        if holes[y, x]:
            cv2.floodFill(holes, flood, (x, y), 0)
    filled = cv2.bitwise_or(mask, holes)
    _, labels, stats, cents = cv2.connectedComponentsWithStats(filled, connectivity=8)
    k = max(3, round(0.1 * P / WINDOW)) | 1
    core = np.asarray(cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))), dtype=np.uint8)
    return _Blobs(np.asarray(labels, np.int32), core, stats[:, cv2.CC_STAT_AREA].astype(np.float64),
                  np.asarray(cents, np.float64))


def _colour_dist(lab: F32, bg: F32) -> F32:
    """Weighted distance of Lab pixels from the colour `bg`: L counts a quarter, a and b double.

    Lab levels are whole numbers and `bg` a median of them (whole or half), so every square, product and
    sum here is exact in float32: summed channel by channel it is bit for bit the sum over the channel
    axis, in a third of the time.
    """
    d = lab - bg
    return np.asarray(np.sqrt(d[..., 0] ** 2 * _WTS[0] + d[..., 1] ** 2 * _WTS[1] + d[..., 2] ** 2 * _WTS[2]),
                      dtype=np.float32)


_WTS = np.array([0.5, 2.0, 2.0], np.float32)


def _to_frame(amap: F64, pts: F64) -> tuple[tuple[float, float], ...]:
    return tuple((float(amap[0, 0] * u + amap[0, 1] * v + amap[0, 2]),
                  float(amap[1, 0] * u + amap[1, 1] * v + amap[1, 2])) for u, v in pts)


def _sample_max(resp: U8, xy: F64, r: int) -> F64:
    """The largest response within r pixels (a (2r+1) square) of each point."""
    h, w = resp.shape
    out = np.zeros(len(xy))
    xi, yi = np.rint(xy[:, 0]).astype(np.int64), np.rint(xy[:, 1]).astype(np.int64)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    if inside.any():
        # A dilation is the same maximum over the square, clipped to the image as the border is ignored.
        box = np.ones((2 * r + 1, 2 * r + 1), np.uint8)
        out[inside] = np.asarray(cv2.dilate(resp, box), dtype=np.uint8)[yi[inside], xi[inside]]
    for i in np.nonzero(~inside)[0].tolist():
        x0, x1 = max(0, int(xi[i]) - r), min(w, int(xi[i]) + r + 1)
        y0, y1 = max(0, int(yi[i]) - r), min(h, int(yi[i]) + r + 1)
        out[i] = float(resp[y0:y1, x0:x1].max()) if x1 > x0 and y1 > y0 else 0.0
    return out


@dataclass(frozen=True)
class _Spots:
    """One map's spots (one per spot) and what every judgement of a subset of them reuses."""

    resp: U8
    c: Candidates
    s: float  # the die's side, window pixels
    blobs: _Blobs
    on_core: NDArray[np.bool_]  # per spot: on a body, a pip's width inside its outline
    label: NDArray[np.int32]  # per spot: the blob it lies on
    # The same per-spot values as Python lists: `_hopeless` looks up a few spots at a time, some forty times
    # a window, where numpy's overhead on a handful of elements outweighs the work.
    radius: list[float] = field(init=False, repr=False, compare=False)
    elong: list[float] = field(init=False, repr=False, compare=False)
    peak: list[float] = field(init=False, repr=False, compare=False)
    labels: list[int] = field(init=False, repr=False, compare=False)
    round_core: NDArray[np.bool_] = field(init=False, repr=False, compare=False)  # on_core and round
    # Each spot's distance from a blob's centroid, per blob asked about (the same few blobs every time).
    _dmid: dict[int, F64] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, arr in (("radius", self.c.radius), ("elong", self.c.elong), ("peak", self.c.peak),
                          ("labels", self.label)):
            object.__setattr__(self, name, arr.tolist())
        object.__setattr__(self, "round_core", self.on_core & (self.c.elong < MAX_ELONG))

    def dmid(self, i: int) -> F64:
        """Each spot's distance from blob `i`'s centroid."""
        d = self._dmid.get(i)
        if d is None:
            mid = self.blobs.centroid[i]
            d = np.hypot(self.c.xy[:, 0] - mid[0], self.c.xy[:, 1] - mid[1])
            self._dmid[i] = d
        return d


def _read(resp: U8, c: Candidates, s: float, blobs: _Blobs) -> _Read:
    none = np.zeros((0, 2))
    c0 = (P - 1) / 2
    if len(c) == 0:
        return _Read(None, 0.0, "no pips found", none)
    c = one_per_spot(c)
    # The top face lies within the outline; seen obliquely its centre is off the outline's a little.
    inside = (np.abs(c.xy[:, 0] - c0) <= 0.45 * s) & (np.abs(c.xy[:, 1] - c0) <= 0.45 * s)
    # Spots at a die's outline (its corners, bevel glare, the background between dice) are no pips.
    ij = np.clip(np.rint(c.xy), 0, P - 1).astype(np.int64)
    xi, yi = ij[:, 0], ij[:, 1]
    on_core = blobs.core[yi, xi] > 0
    inside &= on_core
    round_ = inside & (c.elong < MAX_ELONG) & (c.radius >= 0.025 * s) & (c.radius <= 0.13 * s)
    if not round_.any():
        return _Read(None, 0.0, "no pips found", none)
    strongest = float(c.peak[round_].max())
    members = np.nonzero(round_ & (c.peak >= SIMILAR * strongest))[0]
    # Side-face pips lie outside the top face: drop the outermost while the rest is no legal face.
    order = members[np.argsort(np.hypot(c.xy[members, 0] - c0, c.xy[members, 1] - c0))]
    spots = _Spots(resp, c, s, blobs, on_core, blobs.labels[yi, xi])
    last = _Read(None, 0.0, "pips do not form a d6 layout", c.xy[members])
    for keep in range(len(order), max(0, len(order) - 3), -1):
        r = _judge(spots, order[:keep])
        if r.value is not None:
            return r
        if keep == len(order):
            last = r
    # Touching dice, or a neighbour's pips in the window: the faces that pairs of spots propose as their
    # diagonal corners, each judged alone; the legal one nearest the window's centre is this body's die.
    found = [r for sub in _proposed(c, members, s) if (r := _judge(spots, sub)).value is not None]
    if not found:
        return last
    dist = [float(np.hypot(*(r.pts.mean(axis=0) - c0))) for r in found]
    best = found[int(np.argmin(dist))]
    here = best.pts.mean(axis=0)
    for r in found:
        if r.value != best.value and float(np.hypot(*(r.pts.mean(axis=0) - here))) < 0.5 * s:
            return _Read(None, 0.0, "two faces fit the same pips", best.pts)
    return best


def _pairs(n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """np.triu_indices(n, 1), remembered: it costs more than the arithmetic on the few pairs it indexes."""
    ij = _PAIRS.get(n)
    if ij is None:
        ij = _PAIRS[n] = np.triu_indices(n, 1)
    return ij


_PAIRS: dict[int, tuple[NDArray[np.int64], NDArray[np.int64]]] = {}


def _proposed(c: Candidates, members: NDArray[np.int64], s: float) -> list[NDArray[np.int64]]:
    """Subsets of `members` that fill the 3x3 grid two of them propose as its diagonal corners."""
    # A subset is two members or more and fewer than all: two members have none.
    if len(members) < 3 or len(members) > MAX_PROPOSING:
        return []
    z = c.xy[members, 0] + 1j * c.xy[members, 1]
    rad = c.radius[members]
    i, j = _pairs(len(members))
    g = np.abs(z[j] - z[i]) / (2.0 * np.sqrt(2.0))
    ok = (g >= MIN_G * s) & (g <= MAX_G * s) & (np.minimum(rad[i], rad[j]) >= 0.5 * np.maximum(rad[i], rad[j]))
    i, j, g = i[ok], j[ok], g[ok]
    if i.size == 0:
        return []
    centre = 0.5 * (z[i] + z[j])
    rot = np.exp(-1j * (np.angle(z[j] - z[i]) - np.pi / 4)) / g
    q = (z[None, :] - centre[:, None]) * rot[:, None]
    cu, cv = np.rint(q.real), np.rint(q.imag)
    on = (np.abs(cu) <= 1) & (np.abs(cv) <= 1) & (np.abs(q - (cu + 1j * cv)) < 0.42)
    # Only proposals whose occupied cells already make a legal layout are judged (the costly part).
    bits = np.where(on, 1 << ((cu + 1) * 3 + (cv + 1)).astype(np.int64).clip(0, 8), 0)
    legal = _LEGAL_COUNT[np.bitwise_or.reduce(bits, axis=1)] == on.sum(axis=1)
    out: list[NDArray[np.int64]] = []
    seen: set[tuple[int, ...]] = set()
    for row in on[legal]:
        key = tuple(np.nonzero(row)[0].tolist())
        if len(key) >= 2 and key not in seen and len(key) < len(members):
            seen.add(key)
            out.append(members[list(key)])
    return out


def _judge(spots: _Spots, members: NDArray[np.int64], why: bool = False) -> _Read:
    """The face `members` make, or a refusal: with its reason when `why`, else maybe with `redo` instead."""
    resp, c, s, blobs = spots.resp, spots.c, spots.s, spots.blobs
    c0 = (P - 1) / 2
    pts = c.xy[members]
    if len(members) > 6:
        return _Read(None, 0.0, f"{len(members)} pip-like spots, not a d6 face", pts)
    # Most subsets judged are refused and few refusals are reported: the tests that need no layout fit (the
    # costly part) go first, the reason is worked out only when asked for (in this order, as it always was).
    # Every test here must pass for a read, so their order changes no value read.
    if not why and _hopeless(spots, members, pts):
        return _Read(None, 0.0, "", pts, redo=(spots, members))
    # The skew is measured below, for the few fits that get that far (skew_of: the same value).
    fit = fit_layout(pts, with_skew=False)
    if fit.value is None:
        return _Read(None, 0.0, fit.reason, pts)
    cx, cy = fit.centre
    if max(abs(cx - c0), abs(cy - c0)) > 0.25 * s:
        return _Read(None, 0.0, "pips not centred on the die", pts)
    rad = c.radius[members]
    if fit.value > 1:
        g = fit.grid
        if not MIN_G * s <= g <= MAX_G * s:
            return _Read(None, 0.0, "pip spacing does not fit the die's size", pts)
        if not 0.15 * g <= small_median(rad) <= 0.6 * g:
            return _Read(None, 0.0, "pip size does not fit the pip spacing", pts)
    else:
        g = max(0.19 * s, float(rad[0]) / 0.45)
    if fit.resid > (MAX_RESID_6 if fit.value == 6 else MAX_RESID):
        return _Read(None, 0.0, "pips off the d6 grid", pts)
    if skew_of(fit, pts) > (MAX_SKEW_6 if fit.value == 6 else MAX_SKEW):
        return _Read(None, 0.0, "cocked: the top face is seen at a slant", pts)
    if len(members) > 1 and float(rad.max()) > 1.7 * float(rad.min()):
        return _Read(None, 0.0, "pips of unequal size", pts)
    alike = float(c.elong[members].max()) <= LINE_ELONG and float(rad.max()) <= 1.4 * float(rad.min())
    if fit.value in (2, 3) and not alike:
        # Two or three spots in a line are the easiest layouts to fake (a 1's pip and a side face's, one
        # column of a 6): they must be round and alike, as a top face's pips are.
        return _Read(None, 0.0, "pips of a 2 or 3 not round and alike", pts)
    weakest = float(c.peak[members].min())
    # Anything else pip-strong on the face (a mark, merged pips, a weaker pip the layout lacks) spoils it.
    pip_r1 = float(rad.max())
    th = fit.theta if fit.value > 1 else 0.0
    ct, st = np.cos(th), np.sin(th)
    others = np.ones(len(c), bool)
    others[members] = False
    du, dv = c.xy[:, 0] - cx, c.xy[:, 1] - cy
    u, v = du * ct + dv * st, -du * st + dv * ct
    # A lone pip may be one corner of a 2 or 3 whose other pips were missed: they lie 2 pitches off along
    # both axes, so around a 1 the search reaches further than the face.
    reach = MARK_REACH * g if fit.value > 1 else 2.4 * g
    # Only on the die's body: its outline, bevels and the background respond too but are no marks.
    on_core = spots.on_core
    near = (np.maximum(np.abs(u), np.abs(v)) <= reach) & others & (c.peak > QUIET * weakest) & on_core
    if fit.value == 1:
        # Around a lone pip, out to where a missed partner pip would be, only another pip counts: round and
        # at least half its size (a die's bevel, glare and marbling respond there too).
        pip_like = (c.elong < MAX_ELONG) & (c.radius >= 0.5 * pip_r1)
        near &= pip_like | (np.maximum(np.abs(u), np.abs(v)) <= MARK_REACH * g)
    if near.any():
        return _Read(None, 0.0, "a mark on the face that is not a pip", pts)
    # The cells the layout leaves empty, and the face between the cells, must be quiet.
    # Empty cells are probed however close the pips are: a 6 whose rows are squeezed together, read as
    # the 4 of its corners, shows its middle pips there. The points between cells keep clear of the pips.
    empty = np.zeros((0, 2)) if fit.value == 1 else _CELLS[[(int(a), int(b)) not in fit.occupied
                                                            for a, b in _CELLS]]
    probe = np.concatenate([empty, _ONE_PROBES if fit.value == 1 else _BETWEEN])
    xy = np.column_stack([cx + g * (probe[:, 0] * ct - probe[:, 1] * st),
                          cy + g * (probe[:, 0] * st + probe[:, 1] * ct)])
    pip_r = float(rad.max())
    dmin = np.hypot(xy[:, None, 0] - pts[None, :, 0], xy[:, None, 1] - pts[None, :, 1]).min(axis=1)
    keep = dmin > 2.0 * pip_r
    keep[:len(empty)] = True
    xy = xy[keep]
    worst = float(_sample_max(resp, xy, max(1, round(0.3 * pip_r))).max()) if len(xy) else 0.0
    if worst > QUIET * weakest:
        return _Read(None, 0.0, "a pip-like mark where the layout has none", pts)
    if not blobs.holds((cx, cy), pts, 3.85 * g, th if fit.value > 1 else None):
        return _Read(None, 0.0, "the pips are not on one die-sized body", pts)
    # A side face's pips read as a face: the top face's own pips sit nearer the die's middle.
    label = blobs.label_at((cx, cy))
    mid = blobs.centroid[label]
    here = float(np.hypot(cx - mid[0], cy - mid[1]))
    if (others & spots.round_core & (c.peak > 0.5 * weakest) & (spots.dmid(label) < here - 0.1 * s)).any():
        return _Read(None, 0.0, "pips nearer the die's middle than the face read", pts)
    return _Read(fit.value, 1.0 - worst / max(weakest, 1.0), "", pts, weakest)


def _hopeless(spots: _Spots, members: NDArray[np.int64], pts: F64) -> bool:
    """Whether `_judge` certainly refuses `members`, told without fitting a layout.

    Each test is one of `_judge`'s on what does not depend on the fit (the face centre is the pips' mean
    whatever the fit), or for two or more pips one that fails for every pitch a fit it accepts can have.
    The members' own values are looked up in plain lists (maxima, minima and the median are exact either
    way); tests over every spot stay in numpy.
    """
    c, s, blobs = spots.c, spots.s, spots.blobs
    n = len(members)
    c0 = (P - 1) / 2
    mean = pts.sum(axis=0) / n  # fit_layout's centre: pts.mean's arithmetic (sum, then divide by the count)
    cx, cy = float(mean[0]), float(mean[1])
    if max(abs(cx - c0), abs(cy - c0)) > 0.25 * s:
        return True
    idx = members.tolist()
    rad = [spots.radius[i] for i in idx]
    r_max, r_min = max(rad), min(rad)
    if n > 1 and r_max > 1.7 * r_min:
        return True
    if n in (2, 3) and not (max(spots.elong[i] for i in idx) <= LINE_ELONG and r_max <= 1.4 * r_min):
        return True
    # _Blobs.holds: every pip and the face centre on one blob.
    here = blobs.label_at((cx, cy))
    if here == 0 or any(spots.labels[i] != here for i in idx):
        return True
    weakest = min(spots.peak[i] for i in idx)
    if n > 1:
        lo, hi = _pitch_range(pts)
        if hi < MIN_G * s or lo > MAX_G * s:
            return True
        srt = sorted(rad)
        med = (srt[(n - 1) // 2] + srt[n // 2]) / 2.0  # small_median's value, on a list
        if med < 0.15 * lo or med > 0.6 * hi:
            return True
        # A mark within MARK_REACH pitches of the centre in any direction is within it along both axes.
        mark = ((np.hypot(c.xy[:, 0] - cx, c.xy[:, 1] - cy) <= MARK_REACH * lo) & (c.peak > QUIET * weakest)
                & spots.on_core)
        mark[members] = False
        if mark.any():
            return True
    mid = blobs.centroid[here]
    off = float(np.hypot(cx - mid[0], cy - mid[1]))
    nearer = spots.round_core & (c.peak > 0.5 * weakest) & (spots.dmid(here) < off - 0.1 * s)
    nearer[members] = False
    return bool(nearer.any())


def _pitch_range(pts: F64) -> tuple[float, float]:
    """Bounds on the pitch of any layout of these (two or more) pips that `_judge` accepts.

    Every legal layout of 2-6 pips holds two diagonal corners, 2*sqrt(2) pitches apart, and no two cells
    further apart; an accepted fit has every pip within MAX_RESID pitches of its cell (MAX_RESID_6 for a 6).
    So the pips' largest distance lies within 2*sqrt(2) -/+ 2*max(MAX_RESID, MAX_RESID_6) pitches. Widened by
    1% against rounding.
    """
    d = float(np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1]).max())
    diag = 2.0 * np.sqrt(2.0)
    worst = max(MAX_RESID, MAX_RESID_6)
    return 0.99 * d / (diag + 2.0 * worst), 1.01 * d / (diag - 2.0 * worst)


_CELLS = np.array([(u, v) for u in (-1, 0, 1) for v in (-1, 0, 1)], np.float64)
_BETWEEN = np.array([(u * 0.5, v * 0.5) for u in (-3, -1, 1, 3) for v in (-3, -1, 1, 3)], np.float64)
_ONE_PROBES = np.array([(u * 0.5, v * 0.5) for u in range(-5, 6) for v in range(-5, 6)
                        if max(abs(u), abs(v)) >= 2], np.float64)

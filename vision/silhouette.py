"""Whether spots beside a die's top face lie on the die itself: within its silhouette, its pips' holes filled.

The lean check (vision/lean.py) takes a pip-like spot just beyond a top face, where a flat die shows
nothing of itself, for a leaning die's open side face. For light pips on a dark or coloured die (the
inverted passes) a light spot is also any small gap of a light board between the die and something dark:
a line of the board, a coloured bar, a piece, the strokes of its lettering. On the simulated camera with
red and with black dice, 17 and 12 of 40 plain throws were refused as cocked by such spots (the check below
reads 16 and 12 of them; the rest lie against lettering of the die's own colour). A leaning die's open
face shows its pips on the die's own body, so a spot counts only if the die's silhouette holds it: the
pixels of the die's colour (any shade of it: side faces are darker, rims darker still) connected to the
top face, every hole in them filled (pips are holes), within a window round the face.

Pure: a BGR frame and a face's geometry in, a frozen value out; points in, flags out.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.pips import sample

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# A die whose body's brightest channel is under DARK_BODY is dark (black, navy, brown): every pixel no
# brighter than it by DARK_SLACK is of its colour (hue means little that dark).
DARK_BODY = 80.0
DARK_SLACK = 35.0
# Otherwise a pixel is of the die's colour where its colour points the same way as the body's (cosine at
# least SAME_HUE), at any shade from a quarter of the face's to four times it: the face measured may be a side
# face in shadow (the simulated camera's red dice: a side face at (16, 16, 80) against the top's (40, 40, 190)).
SAME_HUE = 0.96
SHADE = (0.25, 4.0)
WINDOW = 1.3  # half the window's side, in die sides: the lean check looks 3.5 pitches (0.9 side) out
# How far past a face's edge (die sides) the die must go on for the face to have more of the die behind it:
# beyond a flat die's rounded rim, short of a whole face.
BEHIND = 0.6
# A shadow multiplies the board's light by 0.5 or more (a pip is 0.1-0.15 of a light board, and 0.37 where it lay
# on a line of the board's print): what keeps at least this share of its light before the throw, and its hue, is
# a shade of what was there.
SHADOW = 0.4


@dataclass(frozen=True, eq=False)  # (an array's == is elementwise)
class Silhouette:
    """A die's silhouette in a window of the frame: the pixels of its colour connected to its face, every hole
    in them filled."""

    filled: NDArray[np.uint8]  # 1 on the silhouette, window pixels
    corner: tuple[float, float]  # the window's top-left corner, frame pixels
    holes: NDArray[np.uint8]  # 1 where the silhouette was filled: its pips, glints, gaps it encloses

    @classmethod
    def of(cls, bgr: U8, centre: tuple[float, float], side: float, body_points: F64,
           colour: tuple[int, int, int] | None = None) -> Silhouette | None:
        """The silhouette of the die whose face of `side` pixels is centred at `centre`; `body_points` (M, 2):
        points of that face between its pips, whose median colour is the die's (or `colour`, the die's
        calibrated BGR, where the face may be a shaded side face) and from which it is grown. None where none
        of them is of that colour (nothing to grow from)."""
        h, w = bgr.shape[:2]
        r = int(np.ceil(WINDOW * side)) + 2
        x0, y0 = max(0, int(centre[0]) - r), max(0, int(centre[1]) - r)
        x1, y1 = min(w, int(centre[0]) + r + 1), min(h, int(centre[1]) + r + 1)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        win = bgr[y0:y1, x0:x1].astype(np.float32)
        local = body_points - np.array([x0, y0], np.float64)
        # (Nearest pixels, as pips.sample takes them, from the window's own copy.)
        ij = np.minimum(np.maximum(np.rint(local), 0.0), (x1 - x0 - 1, y1 - y0 - 1)).astype(np.int64)
        body = np.array(colour, np.float32) if colour is not None else \
            np.median(win[ij[:, 1], ij[:, 0]], axis=0).astype(np.float32)
        like = of_colour(win, body)
        n, labels = cv2.connectedComponents(like, connectivity=8)
        seeds = sample(labels.astype(np.float32), local).astype(np.int64)
        seeds = seeds[(seeds > 0) & (sample(like, local) > 0)]
        if seeds.size == 0:
            return None
        # (Labels looked up in a table of flags rather than np.isin: a quarter of the time on a die's window.)
        grown = np.zeros(n, bool)
        grown[seeds] = True
        die = grown[labels]
        # Holes: what is not the die and does not reach the window's border (a pip, a glint, a gap it encloses).
        m, rest = cv2.connectedComponents((~die).astype(np.uint8), connectivity=4)
        outer = np.zeros(m, bool)
        for edge in (rest[0], rest[-1], rest[:, 0], rest[:, -1]):
            outer[edge] = True
        holes = ~die & ~outer[rest]
        return cls(np.asarray(die | holes, np.uint8), (float(x0), float(y0)), np.asarray(holes, np.uint8))

    def holds(self, pts: F64) -> NDArray[np.bool_]:
        """Whether each point (N, 2 frame pixels) lies on the silhouette; a point off its window does not."""
        return self._on(self.filled, pts)

    def holed(self, pts: F64) -> NDArray[np.bool_]:
        """Whether each point (N, 2 frame pixels) lies in one of the silhouette's holes (a pip on the die)."""
        return self._on(self.holes, pts)

    def _on(self, mask: NDArray[np.uint8], pts: F64) -> NDArray[np.bool_]:
        local = pts.reshape(-1, 2) - np.array(self.corner)
        h, w = mask.shape
        inside = (local[:, 0] >= 0) & (local[:, 1] >= 0) & (local[:, 0] <= w - 1) & (local[:, 1] <= h - 1)
        return np.asarray(inside & (sample(mask, local) > 0), bool)

    def reaches_behind(self, centre: tuple[float, float], side: float, theta: float, away: F64) -> bool:
        """Whether the silhouette goes on past the face's edge in the unit direction `away` (frame pixels) for
        BEHIND of a side, all across the face's middle: on a view far from overhead read from above
        (vision/oblique.py), a face with more of the die behind it is not the die's top face (a flat die's
        side face, read because the top face's lone pip was not; or a leaning die's lower face turned up)."""
        across = np.array([-away[1], away[0]])
        # Where the face (a square turned theta) ends along `away`.
        edge = 0.5 * side / max(abs(float(np.cos(theta) * away[0] + np.sin(theta) * away[1])),
                                abs(float(-np.sin(theta) * away[0] + np.cos(theta) * away[1])), 1e-6)
        t = edge + side * np.linspace(0.15, BEHIND, 6)
        lat = side * np.array([-0.3, 0.0, 0.3])
        pts = np.array(centre)[None, None, :] + t[:, None, None] * away[None, None, :] + lat[None, :, None] * across
        return bool(self.holds(pts).all())


def of_colour(win: NDArray[np.float32], body: NDArray[np.float32]) -> U8:
    """1 where a pixel of the window (float BGR, any shape ending in 3) is a shade of the die's body colour `body`,
    else 0."""
    top = float(body.max())
    if top < DARK_BODY:
        # (Channel by channel, not win.max(axis=-1): see dot3.)
        return np.asarray(np.maximum(np.maximum(win[..., 0], win[..., 1]), win[..., 2]) <= top + DARK_SLACK, np.uint8)
    bb = float(body @ body)
    dot = win @ body
    norm = np.sqrt(dot3(win, win) * bb) + 1e-6
    shade = dot / bb
    return np.asarray((dot / norm >= SAME_HUE) & (shade >= SHADE[0]) & (shade <= SHADE[1]), np.uint8)


def known_before(frame: U8, before: U8, ys: NDArray[np.intp], xs: NDArray[np.intp],
                 body: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether each pixel (`ys`, `xs`: frame rows and columns) of `frame` was there before the throw (`before`): of
    the die's colour `body` then (had_colour), or now a shade of what it was, its hue and at least SHADOW of its
    light (a die's shadow on the board's print). Where before is black (a die lay there, blacked out: nothing
    known), every colour is a shade of it."""
    shade = a_shade(frame[ys, xs].astype(np.float32), before[ys, xs].astype(np.float32))
    return np.asarray(had_colour(before, ys, xs, body) | shade, bool)


def pip_hue(pip: tuple[int, int, int] | None) -> NDArray[np.float32]:
    """The dice's pip colour (BGR; black where not calibrated) as the hue shade tests compare with: a level more
    in each channel, so that a pip drawn pure black has grey's hue."""
    return (np.ones(3, np.float32) if pip is None else np.array(pip, np.float32)) + np.float32(1.0)


def print_in_shade(now: NDArray[np.float32], was: NDArray[np.float32], pip: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether each colour of `now` (N x 3) is the print that was there (`was`) in a shadow rather than a pip of the
    colour `pip` (pip_hue): it keeps the hue it had (SAME_HUE), nearer that than the pip's, and that hue lies further
    than SAME_HUE from the pip's (so that a pip is never a shade of it; on a pale board, whose hue is near a black
    pip's, nothing is). Asked of a side face's pips by vision/sidepips.py and vision/lean.py."""
    return np.asarray(hue_apart(was, pip, SAME_HUE) & same_hue(now, was) & nearer_hue(now, was, pip), bool)


def a_shade(now: NDArray[np.float32], was: NDArray[np.float32], darker: bool = False) -> NDArray[np.bool_]:
    """Whether each colour of `now` (N x 3) is a shade of the same pixel's in `was`: its hue (SAME_HUE) and at least
    SHADOW of its light; with `darker`, no lighter either (a shadow only darkens)."""
    n_now, n_was = np.sqrt(dot3(now, now)), np.sqrt(dot3(was, was))
    shade = _same_hue(now, was, n_now, n_was) & (n_now >= SHADOW * n_was)
    return np.asarray(shade & (n_now <= n_was) if darker else shade, bool)


def same_hue(now: NDArray[np.float32], was: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether each colour of `now` (N x 3) points the way the same pixel's in `was` does (SAME_HUE), at any light."""
    return _same_hue(now, was, np.sqrt(dot3(now, now)), np.sqrt(dot3(was, was)))


def _same_hue(now: NDArray[np.float32], was: NDArray[np.float32], n_now: NDArray[np.float32],
              n_was: NDArray[np.float32]) -> NDArray[np.bool_]:
    return np.asarray(dot3(now, was) >= SAME_HUE * n_now * n_was, bool)


def had_colour(before: U8, ys: NDArray[np.intp], xs: NDArray[np.intp], body: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether the table before the throw had a shade of the die's colour `body` within two pixels of each pixel
    (`ys`, `xs`: frame rows and columns): the board's print of it, a hotel. (Within two: the print may shift by
    one with the sensor's noise, and more where the camera is knocked: the simulated tables, seeds 20-29, the
    table before moved 3 or 4 px sideways.)"""
    fh, fw = before.shape[:2]
    ny = np.clip(ys[:, None] + _NEAR[None, :, 0], 0, fh - 1)
    nx = np.clip(xs[:, None] + _NEAR[None, :, 1], 0, fw - 1)
    return np.asarray((of_colour(before[ny, nx].astype(np.float32), body) > 0).any(axis=1), bool)


_NEAR = np.array([(dy, dx) for dy in range(-2, 3) for dx in range(-2, 3)], np.intp)


def nearer_hue(now: NDArray[np.float32], was: NDArray[np.float32], body: NDArray[np.float32]) -> NDArray[np.bool_]:
    """Whether each colour of `now` (N x 3) points nearer the way the same pixel's in `was` does than the way the
    die's colour `body` (3) does: the table's tint rather than the die's, at any light."""
    return np.asarray(dot3(now, was) * float(np.sqrt(body @ body)) > (now @ body) * np.sqrt(dot3(was, was)), bool)


def hue_apart(was: NDArray[np.float32], body: NDArray[np.float32], cos: float) -> NDArray[np.bool_]:
    """Whether each colour of `was` (N x 3) points away from the die's colour `body` (3) by more than the angle
    whose cosine is `cos`."""
    return np.asarray(was @ body < cos * np.sqrt(dot3(was, was) * float(body @ body)), bool)


def dot3(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.float32]:
    """Pixel by pixel dot products of two colour arrays (any shape ending in 3): (a * b).sum(axis=-1)'s values,
    channel by channel. Numpy reduces an axis of three 10-30 times slower than the elementwise form."""
    return np.asarray(a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2], np.float32)

"""Places to ask the dice net about that neither a face nor a body accounts for: clusters of dark spots.

Pure: spot centres and a die size in, points (with how many spots each stands for) out. The pip-first pass
(vision/darkpips.py) finds a die only when its spots fill a legal layout exactly, and the body pass
(vision/bodies.py) only where the die's body stands out from its background. A cream die on a pale sheet, or a
small die whose pips the pass's kernel partly merged, has neither: but its pips are still a tight group of
dark spots, and the group's centre is the face's centre (every legal layout is symmetric about it). The reader
asks the net there, on the net's strictest level, since a group of specks is weaker evidence of a die than a
body is.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]

# Spots closer than this (die sizes) belong to one group: a face's pips are a pitch (a quarter of the face's
# side, SIDE_PER_G = 3.85 pitches) or 1.4 pitches from the next, but a 4's and a 6's columns are 2 pitches
# apart (0.52 of a side) and a 2's pips 2.8 (0.73). Touching dice's pips link too (their nearest are about 2
# pitches apart): such a group is wider than one face (MAX_EXTENT) and is no candidate.
LINK = 0.75
# A group wider than this (die sizes, along x or y) is not one face.
MAX_EXTENT = 0.9
# A face shows 1-6 pips; a black-hat also answers at a die's dark corners and bevels.
MIN_SPOTS, MAX_SPOTS = 2, 9
# Two specks on a plain sheet are a group too (and the net read them as a 1 at 0.94 in a Byler photo taken at
# 1.5x): a group this small counts only where a die-sized body stands out around it (the reader checks);
# three round spots or more within a face's width are pips.
BARE_SPOTS = 3
# Spots within this distance (die sizes) of a die already found are that die's.
TAKEN = 0.75
# Textured boards give thousands of spots; the strongest this many free ones are grouped (n^2 distances).
MAX_FREE = 300
# A face's pips answer the black-hat alike, a die's bevels and corners and a neighbour's edge more weakly: with
# `regroup`, a group too wide or too crowded to be one face is grouped again from its spots at least this share of
# its strongest (as darkpips' proposals hold a face's spots to 0.45 of its weaker corner).
SIMILAR = 0.45


def spot_clusters(xy: F64, peak: F64, die: float, taken: Sequence[tuple[float, float]],
                  regroup: bool = False) -> list[tuple[tuple[float, float], int]]:
    """Centres of tight groups of 2-9 dark spots (`xy`, with their `peak` contrast) away from every point in
    `taken` (the dice already found), for dice of outline `die` pixels, with the number of spots in each.
    `regroup`: a group too wide or too crowded is grouped again from its strong spots (SIMILAR), in groups of
    BARE_SPOTS or more."""
    if len(xy) < MIN_SPOTS or die <= 0:
        return []
    free = np.ones(len(xy), bool)
    if taken:
        t = np.asarray(taken, np.float64)
        d = np.hypot(xy[:, None, 0] - t[None, :, 0], xy[:, None, 1] - t[None, :, 1])
        free = d.min(axis=1) >= TAKEN * die
    idx = np.nonzero(free)[0]
    if len(idx) > MAX_FREE:
        idx = idx[np.argsort(-peak[idx], kind="stable")[:MAX_FREE]]
    pts = xy[idx]
    n = len(pts)
    if n < MIN_SPOTS:
        return []
    strength = peak[idx]
    out: list[tuple[tuple[float, float], int]] = []
    for members in _linked(pts, die):
        if _one_face(pts[members], die):
            out.append(_centre(pts[members]))
            continue
        if not regroup:
            continue
        strong = members[strength[members] >= SIMILAR * strength[members].max()]
        if BARE_SPOTS <= len(strong) < len(members):
            out += [_centre(pts[strong[m]]) for m in _linked(pts[strong], die)
                    if len(m) >= BARE_SPOTS and _one_face(pts[strong[m]], die)]
    return out


def _linked(pts: F64, die: float) -> list[NDArray[np.int64]]:
    """The indices of each group of `pts` linked by steps of LINK dice or less."""
    n = len(pts)
    near = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1]) <= LINK * die
    # Connected components of the neighbour graph: each spot takes the least label among its neighbours
    # until nothing changes (as many rounds as the longest chain of spots, a few for a face).
    label = np.arange(n)
    while True:
        nxt = np.where(near, label[None, :], n).min(axis=1)
        if np.array_equal(nxt, label):
            break
        label = nxt
    return [np.nonzero(label == k)[0] for k in np.unique(label)]


def _one_face(group: F64, die: float) -> bool:
    """Whether a group of spots could be one face's pips: 2-9 of them, within MAX_EXTENT dice along x and y."""
    wide = float((group.max(axis=0) - group.min(axis=0)).max())
    return MIN_SPOTS <= len(group) <= MAX_SPOTS and wide <= MAX_EXTENT * die


def _centre(group: F64) -> tuple[tuple[float, float], int]:
    return (float(group[:, 0].mean()), float(group[:, 1].mean())), len(group)

"""The uncalibrated reader's fast path: the spotter (vision/spotter.py) finds the dice, the dice net reads
them, and the read is returned only when it is plain; anything less and the full reader reads the frame.

The full reader (vision/reader.py) needs 50-80 ms on an uncalibrated 640x480 photo: with no known die size
it segments at several thresholds and reads every body with the pip readers. Most throws are plain: two
flat dice apart from each other, each read by the net with no doubt. This path reads such a frame in a few
milliseconds and says `ok` (or `reroll` for a die off a calibrated polygon) only when all of these hold,
and otherwise returns None so that the full reader decides:
- every spot the spotter finds is either a die read surely or a place the net surely sees no die at
  (NET_NOT_A_DIE), however weak the spot: what the spotter half sees beside a die (the edge of something
  over it, a side face) is where the full reader finds its reasons. Read surely: the net's value from one
  crop, or from the mean of its four quarter turns, not leaning (NET_ACCEPT, QUICK_TURNS; stricter on dark
  dice), else the pip readers' value where the net backs it (vision/reader.py's _read_spot: the full
  reader's own body read and its net checks, on this one die);
- the number of dice is the one expected, and more than none; no die larger than the full reader reads
  unshrunk (vision/scale.py);
- no two dice lie closer than APART of a die (stacked dice, or one die spotted twice) and the dice's spots
  are of one size (SIZE_SPREAD: a die partly covered, a die on another);
- no die is smeared by motion (faces.motion_smear, the full reader's own limit), and none leans as the
  full reader would see it (a skewed pip layout, see _flat).
So this path never refuses a throw: every `unreadable` verdict and its reason come from the full reader.
It is opt-in (`read_dice(..., spotter=...)`): held to add no wrong `ok` the full reader would not give, it
reads a tenth of the Byler photos, and the rest pay for its attempt (docs/vision.md, "The quick path").

The net reads a crop scaled by the die size, which here comes from the spots: the median spot's box side
times SIZE_TO_DIE, the ratio of segment()'s die size (what the net was trained at, training/data.py) to
the labelled box side on the Byler photos (median 0.79).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.darkpips import MAX_SKEW, MAX_SKEW_6
from vision.dicenet import COCKED, NO_DIE, DiceNet, NetRead, crops
from vision.faces import motion_smear, outline, read_face
from vision.layout import fit_layout
from vision.reading import Die
from vision.scale import SHRINK_ABOVE
from vision.spotter import Spot, Spotter

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]

SIZE_TO_DIE = 0.79
# The net's value stands at NET_ACCEPT from one crop, else at QUICK_TURNS on the mean of the crop's four
# quarter turns. A dark die (light pips on a body whose middle is darker than DARK in HSV value, the photo
# tests' own class) stands only at DARK_ACCEPT from one crop: held out on the Byler photos, at the spots of
# a spotter model, all five dice the net read wrong at 0.9 / 0.8 were dark (glare on glossy or glassy
# bodies, light pips lost in it), read at 0.90-0.96 from one crop; the turns' mean raised two of them past
# 0.9 (a 1 read as 3 at 0.91). Everything else about a dark die is left to the full reader, whose pip
# passes are made for light pips.
NET_ACCEPT = 0.9
QUICK_TURNS = 0.8
DARK = 90
DARK_ACCEPT = 0.97
NET_COCKED = 0.3
NET_NOT_A_DIE = 0.9
WEAK = 0.5  # the die size is the median of the spots at least this sure (of all, if none is)
APART = 0.8  # die sizes; two dice lying flat have their top faces' centres a whole side apart at least
# Dice whose spots differ in size by more than this are not plain. A throw's dice are of one set; a die
# partly under something (a house, a card) is spotted with what covers it, larger than the other, and the
# net may read the part that shows as a smaller face. Photos of mixed sets (the Byler tray) go to the full
# reader. On 300 rendered throws with a die partly covered (tests/vision/test_dicenet.py's scenes, read
# uncalibrated), see SQUARISH for what this check alone left.
SIZE_SPREAD = 1.3
MAX_SMEAR = 1.8  # as vision/reader.py
# A 2 or a 3 stands only on an outline this square (see _flat): a line of pips cannot show that the face is
# whole. With SIZE_SPREAD and the full reader's 1.35 here, the covered scenes above gave two wrong `ok`s the
# full reader does not give (a 4 with a row under a white cover read 2 at 0.91, outline 1.20; a 6 read 3,
# outline 1.27); at 1.15 none (2026-11-26), for fewer quick reads (Byler: 26 photos of 250 against 33).
SQUARISH = 1.15


def _sure(p: F32, at: float) -> int | None:
    v = int(np.argmax(p[1:7])) + 1
    return v if p[v] >= at and p[COCKED] < NET_COCKED else None


# The pip readers' read of a die at a centre the net was not sure of (vision/reader.py's _read_spot): its
# value and confidence, or None.
SpotReader = Callable[[U8, tuple[float, float], float, NetRead], tuple[int, float] | None]


def quick_dice(frame: U8, net: DiceNet, spotter: Spotter, expect: int | None,
               poly: NDArray[np.float32] | None, pips: SpotReader | None = None) -> list[Die] | None:
    """The dice of a plain throw (see the module docstring), or None where the full reader must read."""
    spots = spotter.spots(frame)
    if not spots:
        return None
    size = float(np.median([s.size for s in spots if s.score >= WEAK] or [s.size for s in spots]))
    die = SIZE_TO_DIE * size
    if die > SHRINK_ABOVE:
        return None  # large dice: the full reader reads them on the frame shrunk (vision/scale.py)
    cut = crops(frame, [(s.x, s.y) for s in spots], die)
    probs = net.probabilities(cut)
    m = cut.shape[1] // 3
    dark = np.median(cut[:, m:-m, m:-m].max(axis=3).reshape(len(cut), -1), axis=1) < DARK
    dice: list[tuple[Spot, int, float]] = []
    doubt: list[int] = []
    for i, (s, p) in enumerate(zip(spots, probs, strict=True)):
        v = _sure(p, DARK_ACCEPT if dark[i] else NET_ACCEPT)
        if v is not None:
            dice.append((s, v, float(p[v])))
        elif p[NO_DIE] < NET_NOT_A_DIE:
            doubt.append(i)
    if doubt:
        turned = cut[doubt]
        mean = (probs[doubt] + sum(net.probabilities(np.ascontiguousarray(np.rot90(turned, k, axes=(1, 2))))
                                   for k in (1, 2, 3))) / 4
        for i, p in zip(doubt, mean, strict=True):
            if p[NO_DIE] >= NET_NOT_A_DIE:
                continue
            if dark[i]:
                return None
            v = _sure(p, QUICK_TURNS)
            if v is not None:
                dice.append((spots[i], v, float(p[v])))
                continue
            # The pip readers' read, as the full reader's body pass would give it.
            read = pips(frame, (spots[i].x, spots[i].y), die, NetRead.of(tuple(float(q) for q in probs[i]))) \
                if pips is not None else None
            if read is None:
                return None
            dice.append((spots[i], *read))
    if not dice or (expect is not None and len(dice) != expect) or not _plain([d[0] for d in dice], die):
        return None
    if any(motion_smear(frame, (s.x, s.y), die) > MAX_SMEAR for s, _, _ in dice):
        return None
    if not all(_flat(frame, s, v, die) for s, v, _ in dice):
        return None
    return [_die(s, v, c, die, poly) for s, v, c in dice]


def _flat(frame: U8, s: Spot, value: int, die: float) -> bool:
    """Whether nothing about the die at `s` says it leans, as the full reader would judge it.

    The net reads a top face whatever its shape: a leaning die's face, foreshortened and skewed, it reads as
    surely as a flat one's (tests/vision/test_reader_synthetic.py's leaning 5, read at 0.90-0.99). The full
    reader refuses such a die by the skew of its pip layout. Here, for the values whose layout has a skew to
    measure (4, 5, 6), the pip reader (faces.read_face) on the die's outline must read the same value, and
    its pips' grid must be squashed no more than the pip-first pass allows (darkpips.MAX_SKEW, a 6
    MAX_SKEW_6): a face it cannot read at all proves nothing flat (the leaning 5 squashed to 0.7 at angle 0
    reads as "pips do not form a d6 layout", and was once let through as a quick `ok` 5), and read_face's
    own limit (faces.MAX_SKEW, 1.4) passed it squashed to 0.8. A 2 or a 3 lies on a line, whose slant
    cannot be measured: it stands only on a square outline (SQUARISH, stricter than the full reader). A 1
    has nothing to measure."""
    if value == 1:
        return True
    o = outline(frame, (s.x, s.y), die, die)
    if value in (2, 3):
        return o is not None and max(o[1]) < SQUARISH * min(o[1])
    square = ((s.x, s.y), die, 0.0) if o is None else (o[0], 0.5 * (o[1][0] + o[1][1]), o[2])
    face = read_face(frame, *square)
    if face.value != value:
        return False
    # The pip reader allows a slant up to its own MAX_SKEW; the pip-first pass, which a flat face of 4-6 on
    # a light die meets first in the full reader, refuses beyond darkpips.MAX_SKEW (a 6's rows are
    # squeezed by design: MAX_SKEW_6). The quick read stands only inside the stricter of the two.
    return fit_layout(np.array(face.pips, np.float64)).skew <= (MAX_SKEW_6 if value == 6 else MAX_SKEW)


def _plain(spots: Sequence[Spot], die: float) -> bool:
    sizes = np.array([s.size for s in spots])
    if sizes.max() > SIZE_SPREAD * sizes.min():
        return False
    xy = np.array([(s.x, s.y) for s in spots])
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    np.fill_diagonal(d, np.inf)
    return bool(d.min() >= APART * die) if len(spots) > 1 else True


def _die(s: Spot, value: int, confidence: float, die: float, poly: NDArray[np.float32] | None) -> Die:
    h = die / 2
    on = poly is None or cv2.pointPolygonTest(poly, (float(s.x), float(s.y)), False) >= 0
    return Die(value, (s.x, s.y), confidence, on, die,
               ((s.x - h, s.y - h), (s.x + h, s.y - h), (s.x + h, s.y + h), (s.x - h, s.y + h)))

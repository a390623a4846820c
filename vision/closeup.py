"""Close-ups: a frame whose dice are larger than anything it was read for, read again at their size.

A phone held over a die or two shows dice of a fifth of the frame's short side or more. The usual measure
(vision/scale.py) passes over blobs wider than a quarter of the short side (the table, a sheet) and measures
what is left: the dice's pips, compact round blobs. Read at that size, or at the pips' guess from the frame's
size, such a frame gives "no dice found", a pip read as a 1, or a partial read (a coloured 3 of 110 px read as
a 2, a die's pips in pairs read as 2s). Where an uncalibrated read may be that (nothing read but 1s, or no die
measured), the frame is read again as a close-up (`reread`), and that read wins only where it is the better one
and overrules no refusal.

Pure: values in, values out; the reading at a die size is the reader's (vision/reader.py `_read_resized`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.bodies import far_from
from vision.reading import DiceReading, Die, UnsureDie, Verdict
from vision.scale import CLOSE_UP_SHARE, READ_DIE, SHRINK_ABOVE, close_up_die

U8 = NDArray[np.uint8]
ReadAt = Callable[[float], DiceReading]  # the frame read as holding dice of this many pixels

# Die sizes (in working dice, READ_DIE) a frame is read at where no close-up die stands out (touching dice
# make one blob, no die's shape): apart by more than a measure's tolerance (bodies.NEAR_GUESS), from the
# largest the usual read takes (SHRINK_ABOVE) to CLOSE_UP_SHARE of the frame's short side.
LADDER = (1.6, 2.5, 4.0, 6.4)
# A read at a die size that gives a value to a die far larger than that (more than FRAMED times) was read at the
# wrong size (`_framed`): the dice net's crops are cut for dice of the size read at, so they showed that die's
# middle only, and its pip readers worked at the wrong pip size.
FRAMED = 2.0


def reread(frame: U8, reading: DiceReading, die: float | None, read_at: ReadAt) -> DiceReading:
    """`reading` (of `frame`, uncalibrated, the die measured `die` pixels or None), or the frame's read as a
    close-up where that is the better one. Read again where nothing was read but 1s (a light pip on a
    coloured die reads as a 1), or where no die was measured, whether or not the throw was read whole (a
    rendered yellow 3 and 4 of 108 px: no pip pass read them at the frame's pip size, and the body pass's parts
    of the 3, two pips each, took 2s from the net's crops of them, `ok` as 2-2). The close-up's read wins only
    where
    - it accounts for every die the usual read gave a value: as a part of a die it read far larger (a pip
      read as a 1), or as the same value read again there;
    - it overrules no refusal: where the usual read left a die unread (cocked, stacked, blurred), it reads no
      value but on a die far larger, of which that one was a part (the simulated camera 10 degrees off
      vertical: a cocked throw, read again at a close-up measure of 120 px where its dice are 31 px, was `ok`
      as 3 and 1, the leaning die read as a 1); a die left unread for want of pips (UnsureDie) is no refusal;
    - and it shows the usual read wrong (a die was a part of a larger one) or short (it reads more dice)."""
    values = [d.value for d in reading.dice if d.value is not None]
    if all(v == 1 for v in values) or die is None:
        close = close_up(frame, die, read_at)
        if close is None:
            return reading
        parts = [_part_of(d, close) for d in _sized(reading.dice, _read_at(reading, die))]
        accounted = all(p or _read_again(d, close) for d, p in zip(reading.dice, parts, strict=True)
                        if d.value is not None)
        overrules = any(_overruled(d, close) for d in reading.dice
                        if d.value is None and not isinstance(d, UnsureDie))
        more = sum(d.value is not None for d in close.dice) > len(values)
        if accounted and not overrules and (any(parts) or more):
            return close
    return reading


def close_up(frame: U8, die: float | None, read_at: ReadAt) -> DiceReading | None:
    """The frame read as a close-up. First at the die measured as a close-up's (vision/scale.py
    close_up_die), taken where it reads a value; else at every size of LADDER, the read taken the first that
    reads the throw whole (`ok`) with no die far larger than its size (_framed), given way where a larger size's
    read, whole or not, shows its dice to be parts of far larger ones (_explains): to that read where whole and
    framed, else to none but a larger size's. Sizes near `die` (already read at) are not read again. None where
    neither reads."""
    h, w = frame.shape[:2]
    tried = [die] if die else []
    big = close_up_die(frame)
    if big is not None and big > SHRINK_ABOVE and all(far_from(big, t) for t in tried):
        reading = read_at(big)
        if any(d.value is not None for d in reading.dice) and _framed(reading, big):
            return reading
        tried.append(big)
    best: DiceReading | None = None
    best_at = 0.0
    for k in LADDER:
        size = k * READ_DIE
        if size > CLOSE_UP_SHARE * min(w, h):
            break
        if all(far_from(size, t) for t in tried):
            reading = read_at(size)
            if best is not None and _explains(reading, size, best, best_at):
                best = None  # (its dice are parts of this size's: a black 6 on a black board read as two 3s)
            if best is None and reading.verdict is Verdict.OK and _framed(reading, size):
                best, best_at = reading, size
    return best


def _explains(larger: DiceReading, larger_at: float, smaller: DiceReading, smaller_at: float) -> bool:
    """Whether every die `smaller` (a read at the die size `smaller_at`) gives a value, one at least, is a part of a
    die `larger` (a read at `larger_at`) reads far larger (_part_of): pips read as 1s, or pairs or rows of a die's
    pips as 2s and 3s, at a size below their die's."""
    big = replace(larger, dice=tuple(_sized(larger.dice, larger_at)))
    valued = _sized([d for d in smaller.dice if d.value is not None], smaller_at)
    return bool(valued) and all(_part_of(d, big) for d in valued)


def _read_at(reading: DiceReading, die: float | None) -> float:
    """The die size an uncalibrated `reading` was read at: `die`, where measured, else the median of its dice read
    with a size (0 where none was)."""
    sizes = [d.size for d in reading.dice if d.size > 0]
    return die or (float(np.median(sizes)) if sizes else 0.0)


def _sized(dice: Sequence[Die], at: float) -> list[Die]:
    """`dice`, each the net placed with no size of its own (a lone pip's spot, a group of spots) taken as a die of
    `at`, the size read at. (Rendered red dice of 75 px: the usual read placed a 1 on each of two of a 3's pips, one
    of them by the net alone; read as a close-up, the 3 and the 1 were read, but a die of no size was never a part
    of the 3, and the 1-1 stood.)"""
    return [d if d.size > 0 else replace(d, size=at) for d in dice]


def _framed(reading: DiceReading, size: float) -> bool:
    """Whether every die `reading` gives a value is within FRAMED of `size`, the die size it was read at. (Byler
    IMG_20191209_100701 cropped so that its white 2 is 0.35 of the crop's width: read at 58 px, the 2's body of 154
    px took a value of 1 from one pip-like mark and the net's 0.60 for its middle, `ok`; read at 90 px, a 2 at 0.96.)"""
    return all(d.value is None or d.size <= FRAMED * size for d in reading.dice)


def _part_of(die: Die, reading: DiceReading) -> bool:
    """Whether `die` lies on a die `reading` read (within its half-diagonal of its centre), far larger than it
    (bodies.far_from) and not a 1: a pip or a piece of that die, not a die of its own."""
    return any(d.value not in (None, 1) and _far_larger(d, die) and _apart(die, d) < 0.7 * d.size
               for d in reading.dice)


def _read_again(die: Die, reading: DiceReading) -> bool:
    """Whether `reading` reads `die`'s value where it lies (within half a side of either's centre): the same
    die read again (sizes aside: a lone pip's face is sized from the pip)."""
    return any(d.value == die.value and _apart(die, d) < 0.5 * max(d.size, die.size) for d in reading.dice)


def _overruled(die: Die, reading: DiceReading) -> bool:
    """Whether `reading` gives a value to a die where `die` (left unread) lies: a 1 (sized from its pip, so
    never taken for a far larger die), or another value on a die not far larger than it."""
    return any(d.value is not None and (d.value == 1 or not _far_larger(d, die))
               and _apart(die, d) < 0.5 * max(d.size, die.size) for d in reading.dice)


def _far_larger(a: Die, b: Die) -> bool:
    """Whether die `a` is far larger than die `b` (bodies.far_from); never where `b` has no size (a die placed
    by the net or a group of spots, size 0: how large it is is not known, so it is taken as not far smaller)."""
    return b.size > 0 and a.size > b.size and far_from(a.size, b.size)


def _apart(a: Die, b: Die) -> float:
    """The distance between two dice's centres, pixels."""
    return float(np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]))

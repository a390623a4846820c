"""The windows a frame is read in where the table changed since before the throw (read_dice's `changed`): each
place a die's centre may be (vision/change.py's cores) with room round it, overlapping ones read as one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from vision.change import Box, cores, grow, inside
from vision.dicenet import NetRead
from vision.netcheck import NetReader

U8 = NDArray[np.uint8]

# Reading only where the table changed (read_dice's `changed`): the area where a die's centre may lie
# (vision/change.py's cores) grows by CHANGED_PAD dice into the window read, so that every pass sees a die
# whole with the board around it (the lean check looks up to 1.1 dice beyond a face's edge, vision/lean.py).
CHANGED_PAD = 1.5
ALIGN = 12  # a window's corner lies on multiples of this (pixels): see windows_for
# Read resized where the table changed, the frames are resized this many dice round each window (vision/reader.py
# _read_resized).
WITHIN_PAD = 1.0


@dataclass(frozen=True)
class Window:
    """A part of the frame read on its own: where the table changed, with room round it (vision/reader.py read_dice)."""

    box: Box
    cores: tuple[Box, ...] | None  # a candidate counts only if centred in one of these (None: anywhere)

    @property
    def offset(self) -> tuple[int, int]:
        return self.box[0], self.box[1]

    def holds(self, xy: tuple[float, float]) -> bool:
        """Whether a candidate centred at `xy` (window pixels) is this window's to read."""
        return self.cores is None or inside((xy[0] + self.box[0], xy[1] + self.box[1]), self.cores)


def windows_for(changed: Sequence[Box], die: float, w: int, h: int) -> list[Window]:
    """The windows to read for the boxes where the table changed: each box's core (where a die's centre
    may be, vision/change.py) grown by CHANGED_PAD dice; windows that overlap are read as one."""
    wins: list[tuple[Box, tuple[Box, ...]]] = [(grow(core, CHANGED_PAD * die, (w, h)), (core,))
                                               for core in cores(tuple(changed), die, (w, h))]
    merged = True
    while merged:
        merged = False
        for i, j in combinations(range(len(wins)), 2):  # left at the first merge
            a, b = wins[i][0], wins[j][0]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                wins[i] = ((min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])),
                           wins[i][1] + wins[j][1])
                del wins[j]
                merged = True
                break
    # Windows start on the whole frame's grids: the pip finder keeps one maximum per 3x3 cell and the body
    # finder works at a quarter scale, so a window that started off them would see a flat-topped pip's
    # centre or a body's outline a pixel off from a whole read's (a lone pip read whole as a 1 was once
    # not read in a window that started one pixel further).
    return [Window((b[0] - b[0] % ALIGN, b[1] - b[1] % ALIGN, b[2], b[3]), core) for b, core in wins]


class Shifted:
    """The net asked about a window's points, answered from the whole frame (a crop near the window's edge
    sees what is beyond it, and the answers are remembered across windows and passes)."""

    def __init__(self, net: NetReader, frame: U8, offset: tuple[int, int]) -> None:
        self.net, self.frame, self.offset = net, frame, offset

    def read(self, frame: U8, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
        ox, oy = self.offset
        return self.net.read(self.frame, [(x + ox, y + oy) for x, y in centres], die)

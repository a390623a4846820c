"""Checks over a throw's dice once every pass has read them (vision/reader.py): a white die's pips squashed as a
leaning die's, what lies where another die's side faces show, a die read twice, a die that is no part of the throw.

Each takes the reader's lists of dice and their problems and changes them in place: a die refused keeps its place
with its reason, a die dropped leaves both lists.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from vision.change import new_share
from vision.netcheck import hard
from vision.pipshape import slant, white
from vision.reading import Die
from vision.scene import neutral_gains

U8 = NDArray[np.uint8]

# An unread die closer than this (top-face sides) to a die read is that die seen again (see drop_twins).
TWIN = 0.9
# Given the table before the throw, a die read is this throw's only where at least NEW_FACE of its top face's middle
# (within FACE_DISC of a side of its centre) is new since then (drop_unchanged, vision/change.py new_share): the
# board's print read as a die (a red "A"'s counter as a red die's 1) is as it was or shaded, 0% new at the Pi unit's
# view; a die thrown shows its pips new at least, and the least new measured was a red 2 on red print, 19%.
FACE_DISC = 0.35
NEW_FACE = 0.05


class ViewCamera(Protocol):
    """Where a flat die's side faces show and how its top face is squashed, at a point of the frame read."""

    def down(self, top_xy: tuple[float, float]) -> tuple[float, float]: ...

    def level(self, top_xy: tuple[float, float]) -> NDArray[np.float64]: ...


def refuse_slanted(frame: U8, dice: list[Die], problems: list[str], die: float) -> None:
    """Refuse (in place) every white die read whose face shows its pips squashed as a leaning die's are
    (vision/pipshape.py), whichever pass read it: a leaning 1, 2 or 3 has no pip grid whose skew the
    passes could measure, and the net reads a foreshortened face as surely as a flat one. A die placed by
    the net alone (no outline) is measured square at the frame's die size `die`."""
    gains = None
    for i, d in enumerate(dice):
        side = d.size or die
        if d.value is None or not side:
            continue
        if gains is None:
            gains = neutral_gains(frame)
        if not white(frame, d.center, side, gains):
            continue
        why = slant(frame, d.center, side, d.turn, d.value)
        if why:
            dice[i] = replace(d, value=None, confidence=0.0)
            problems[i] = why


def drop_side_faces(dice: list[Die], problems: list[str], cam: ViewCamera, unit: float,
                    expect: int | None) -> None:
    """What was found where another die's sides show (in place), with the board camera's `down`.

    A flat die shows its side faces only between its top face and its bottom as the camera sees it (`down`);
    far from overhead they are as large as the top face (the simulated camera at 40 degrees, read from above:
    a side face stretched to 0.84 of a side), and their pips were read as a die of their own, 1 to 3 pips
    (six plain throws of 15 "found 3 dice"; at 50 degrees a side face's 1 made a wrong `ok` where the other
    die was missed). Such a die's centre lies within the top face swept towards its bottom, where only a die
    touching this one on the camera's side could also lie (it then hides this side face), or a die leaning
    away from the camera shows its second face:
    - below a 4, 5 or 6, whose grid the reader measured square as seen from above (darkpips.py, `level`), so
      a flat die: it is dropped (also one refused as cocked, an oblong body or a slanted face, as a side face
      is); an unread one only where the throw then has its count exactly, as for twins (drop_twins: "die 2
      unreadable: ..." says more than "found 1 dice");
    - below a 1, 2 or 3, whose pips leave its slant unmeasured, or below a die unread: its value is taken
      away, and the throw is refused (at 40 degrees, a cocked and two stacked throws of 40 were wrong
      `ok`s, a side face's 1 or 2 counted for a die missed or hidden).
    A die lined up there costs its throw a re-roll, never an `ok`. Past a flat die's sides, where a die
    stacked on another shows the lower die's, see below."""
    drop: set[int] = set()
    for a in dice:
        dx, dy = cam.down(a.center)
        reach = float(np.hypot(dx, dy))
        if reach <= 0.0:
            continue
        ux, uy = dx / reach, dy / reach
        side = a.size or unit
        for j, b in enumerate(dice):
            if b is a or any(why in problems[j] for why in ("stacked", "motion blur")):
                continue
            px, py = b.center[0] - a.center[0], b.center[1] - a.center[1]
            along, across = px * ux + py * uy, abs(px * uy - py * ux)
            if across >= 0.5 * side:
                continue
            if 0.3 * side < along < 0.5 * side + reach:
                if a.value in (4, 5, 6):
                    drop.add(j)  # (also one refused as cocked, an oblong body or a slanted face: a side face is)
                elif b.value is not None:
                    dice[j] = replace(b, value=None, confidence=0.0)
                    problems[j] = "it lies where another die's side face shows"
            elif reach > 0.5 * side and 0.5 * side + reach <= along < side + 2.0 * reach and not hard(problems[j]):
                # Just past a flat die's sides, where a die stacked on another shows the lower die's: the
                # simulated camera 50 degrees off vertical, a stacked pair read as two 1s (the upper die's top
                # face and the lower die's side face; the pips-first pass found two dice, so the body pass,
                # which knows a stack by its height, never ran). A die lying there, lined up with this one
                # along the line of sight, costs a re-roll. Near overhead (sides under half a face) a stack's
                # lower die shows too little to be read, and nothing is asked.
                dice[j] = replace(b, value=None, confidence=0.0)
                problems[j] = "stacked or overlapping dice: it lies where a die under another shows its side"
    unread = {i for i in drop if dice[i].value is None}
    if unread and len(dice) - len(drop) != expect:
        drop -= unread
    if drop:
        dice[:] = [d for i, d in enumerate(dice) if i not in drop]
        problems[:] = [p for i, p in enumerate(problems) if i not in drop]


def drop_twins(dice: list[Die], problems: list[str], unit: float, expect: int) -> None:
    """Drop (in place) the dice left unread for no physical reason whose centres lie closer than TWIN of a
    side to a die read, when the throw then has its count exactly: two dice lying flat have their top faces'
    centres a whole side apart at least (the faces' inscribed circles cannot overlap), so such a die is the
    die read seen again (its shadow, a part of its body cut off) or a die under or against it (one stacked or
    leaning carries its own reason, which is kept). Only where the count is too high by just those dice: a
    throw short of dice keeps its reason ("die 2 unreadable: ..." says more to a referee than "found 1
    dice"). Calibrated reads only (see _read_frame)."""
    read = [d for d in dice if d.value is not None]
    twins = {i for i, (d, why) in enumerate(zip(dice, problems, strict=True))
             if d.value is None and not hard(why) and any(r.near(d, TWIN, unit) for r in read)}
    if twins and len(dice) - len(twins) == expect:
        dice[:] = [d for i, d in enumerate(dice) if i not in twins]
        problems[:] = [p for i, p in enumerate(problems) if i not in twins]


def drop_unchanged(frame: U8, before: U8, dice: list[Die], problems: list[str], die: float) -> None:
    """Drop (in place) every die, read or not, whose top face is no part of this throw: within FACE_DISC of a
    side of its centre, less than NEW_FACE of it differs from the table before (vision/change.py new_share)."""
    keep = [i for i, d in enumerate(dice) if new_share(frame, before, d.center, FACE_DISC * die) >= NEW_FACE]
    if len(keep) < len(dice):
        dice[:] = [dice[i] for i in keep]
        problems[:] = [problems[i] for i in keep]

"""Whether a die leans, from the table before the throw: pips beside its top face that were not there before.

Near overhead a die leaning 25-35 degrees opens a side face 0.42-0.57 of a side wide beside its top face, its pips
within a pitch or so of the top face's edge. On a light board a white die's side face cannot be told from the board
by its shade or hue (but for a faint tint, which refuse_hidden_near_side asks where the band is wide), and the
board's lettering, lines and pieces make dark spots of a pip's size beside any die (docs/vision.md, "Dice leaning
near overhead": every such spot taken for a side face's pip refused half the plain throws). The table as it looked
before the throw (the roll watcher holds it) has all of those and none of the die: a dark spot there now, pip-sized,
as dark as the die's own pips and much darker than what was there before (a shadow darkens the board by a factor, a
pip is black), ringed by lighter pixels (not the corner of something dark), past where a flat die's own side faces
reach, is a side face's pip. Dice with light pips (red, black) are asked the same with the grey levels turned over,
but there it finds little: a side face turned from the light shows its light pips dimmer than the top face's, and on
a light board no darker than what lay there before. Their body tells instead (refuse_new_body): the die's colour,
new since before, past where a flat die's outline ends, is an open side face (a shadow there darkens what was there,
a side face changes it).

Pure: two frames and the dice read in, the dice (refused or not) out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.lean import Silhouettes
from vision.lightface import SIDE_PER_G, Down, outside, square_corners
from vision.pips import black_hat, odd
from vision.reading import Die
from vision.rim import square_turn
from vision.silhouette import (
    SHADOW,
    Silhouette,
    a_shade,
    had_colour,
    hue_apart,
    known_before,
    nearer_hue,
    pip_hue,
    print_in_shade,
    same_hue,
)
from vision.spots import KERNEL_PER_DIAM, PIP_D_PER_G

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]

# Where a side face's pips are looked for, in die sides past a flat die's outline (its top face swept along
# `down`, which is all a flat die shows of itself): a die leaning 25 degrees shows its side face's pips 0.1-0.32
# of a side past the top face's edge; the first 0.1 is the rim, the outline's blur and the read's error.
BAND = (0.1, 0.45)
# A spot counts where its black-hat response has grown since before by this share of the strongest in the die's
# top face (its pips') or, where less, of its surroundings' level above the pips' grey (a shaded side face), ...
NEW_SHARE = 0.35
# ... its darkest pixel is at most this far from the die's own pips' grey towards its face's (a side face's pip
# is black: on the simulated camera 0.02 at most on 13 of 14 leaning dice, 0.16 on the last; a die's shadow
# 0.4, two dice's overlapping in the crevice between touching dice 0.14-0.20), ...
AS_DARK = 0.1
# ... and at most this share of the grey there before (vision/silhouette.py: less is no shadow).
DARKER = SHADOW
# A spot's size: at least this many square sides (a pip 0.2 of a side across, squashed to 0.42 and thresholded
# near its middle), and no longer than this many sides (not the long edge of a shadow).
SPOT_AREA = 0.004
SPOT_LONG = 0.4
# White dice whose 1 is one large red pip (Japanese dice): leaning, that 1 on the open side face is neither
# pip-sized nor as dark as a black pip in grey, and the checks above miss it (at the Pi unit's view, a die leaning
# on the hotel with its 2 up: 9 of 60 cocked throws accepted). It is red: a pixel counts as red where its red
# channel exceeds its green and blue by RED levels (the simulated 1: 150; the board's pale green: under 0), and
# red new since before where the table before was not (the board's red print was).
RED = 60
# Points within this many sides of another die read's flat outline are that die's (its pips, its side faces).
OTHER_DIE = 0.15
# At most this share of the pixels ringing a spot may be as dark as a pip (_ringed): on the
# simulated camera a leaning die's refusing spot had up to 0.23 (seeds 0-19, all three looks), the corners of a
# dark block beside a die 0.48-0.63.
RING = 1 / 3
# Dice with light pips: a die's body new since before within the band, in square sides, that refuses it
# (refuse_new_body). A side face open 0.14 of a side past a flat die's outline (the band begins 0.1 out) along
# its whole edge; a die leaning 25 degrees shows 0.42 from overhead, less where it leans away from a tilted
# camera. Flat and touching dice showed at most 0.022 (the simulated camera, red and black dice, seeds 0-19 at
# 0, 8 and 18 degrees: the body's blur and rim past the band's start, the crevice between touching dice).
NEW_BODY = 0.04
NEW_BODY_REASON = "cocked: a side face shows beside the top face (the die's colour, not there before the throw)"
# Dice with light pips, a camera off vertical (refuse_hidden_near_side): the near band is asked where `down` reaches
# NEAR_MIN of a side (a flat die's side face some 0.37 of a side wide 18 degrees off vertical, less nearer overhead,
# where it is too narrow to tell), from NEAR_EDGE of a side past the top face to as much within the flat outline,
# where NEAR_AREA square sides of it say something; a die whose band is NEAR_SHADE a shade of the table before is
# refused. On the simulated camera (seeds 20-49, red and black, at 8 and 18 degrees) flat and touching dice's bands
# were at most 0.47 a shade (the board where the band is narrow at the outline's ends), the dice leaning 25 degrees
# towards the camera that were `ok` 0.94-0.99.
NEAR_MIN = 0.25
NEAR_EDGE = 0.08
NEAR_AREA = 0.05
NEAR_SHADE = 0.8
# A 1's lone pip (_placed_one): looked for within LONE_REACH of a side of where the 1 was read (a 1 read by its body
# is centred up to a band towards the camera, 0.37 of a side at 18 degrees, and the pip reaches 0.1 further), LONE_AREA
# square sides (a pip 0.2 of a side across: 0.03; two pips merged in the threshold, or a pip's glint, are not one).
LONE_REACH = 0.5
LONE_AREA = (0.01, 0.08)
# White dice (dark pips): the grey of a flat die's side face is a shade of a pale board too (within SAME_HUE of its
# hue), so a band pixel counts as the table as it was only where its hue is also nearer the table's before than the
# die's own (silhouette.nearer_hue), and only pixels whose colour before pointed HUE_APART or more away from the
# die's are asked (a white board or tray, or the board's white print, says nothing: the side face's grey is as near
# either). The simulated board's pale green is 2.4-3.5 degrees from the white dice's colour (5th-95th percentile),
# and the sensor's noise moves a side face's grey about a degree. A die is refused where NEAR_TABLE of its band or
# more is the table's: on the simulated camera (seeds 20-49 at 8 and 18 degrees, 80-139 at 18) flat and touching
# dice's bands were at most 0.07 the table's, the dice leaning towards the camera that were `ok` 0.66-1.00.
HUE_APART = math.cos(math.radians(1.5))
NEAR_TABLE = 0.5
HIDDEN_NEAR_REASON = ("cocked: no side face shows towards the camera (the table as it was, or a shadow, where a flat "
                      "die's would be)")
_BOX3 = np.ones((3, 3), np.uint8)
_BOX5 = np.ones((5, 5), np.uint8)


def refuse_new_side_pips(frame: U8, before: U8, dice: list[Die], problems: list[str], down: Down,
                         die: float, light_pips: bool = False, twin: float = 0.0,
                         pip: tuple[int, int, int] | None = None) -> None:
    """Refuse (in place) every die read that shows a side face's pips beside its top face that `before` (the
    table before the throw, the same camera and size; black where it is not known) did not have (M.DICE.2:
    a cocked die). `down`: the board camera's (vision/camera.py); `die`: the calibrated die's side.
    `light_pips`: the dice's pips are lighter than their body (red or black dice): the grey levels are
    turned over, so that their pips are dark spots as a white die's are. `twin`: an unread die closer than this
    many sides to a die read is that die's own side face or shadow read again (vision/throwchecks.py TWIN, drop_twins),
    not a die whose outline would hide that side face. `pip`: the dice's pips' calibrated colour (BGR; else black),
    which a side face's pips show whatever lies under the die (_print_in_shade)."""
    pips = pip_hue(pip)
    for i, d in enumerate(dice):
        if d.value is None:
            continue
        others = _others(dice, d, twin, die)
        if _new_pip(frame, before, d, others, down, die, light_pips, pips) or (
                not light_pips and _new_red_pip(frame, before, d, others, down, die)):
            dice[i] = replace(d, value=None, confidence=0.0)
            problems[i] = "cocked: a side face's pips show beside the top face (not there before the throw)"


def _new_red_pip(frame: U8, before: U8, d: Die, others: list[Die], down: Down, die: float) -> bool:
    """Whether a red spot at least a pip's size (SPOT_AREA) lies in `d`'s band past its flat outline (BAND, clear
    of `others`) where the table before had no red (RED): a large red 1 on a leaning die's open side face."""
    side = max(d.size, die)
    box = _patch(frame, d, down, side, 0)
    if box is None:
        return False
    x0, y0, x1, y1 = box
    cx, cy = d.center
    now = frame[y0:y1, x0:x1].astype(np.int16)
    b = before[y0:y1, x0:x1].astype(np.int16)
    red = now[..., 2] - np.maximum(now[..., 0], now[..., 1]) > RED
    # Not red before within two pixels (the board's red print, which may shift by one with the sensor's noise, and
    # more where the camera is knocked: as for refuse_new_body's colour before).
    was_red = np.asarray(b[..., 2] - np.maximum(b[..., 0], b[..., 1]) > RED // 2, np.uint8)
    red &= cv2.dilate(was_red, _BOX5) == 0
    red &= (b[..., 0] | b[..., 1] | b[..., 2]) != 0  # (black before: nothing known there)
    ys, xs = np.nonzero(red)
    if len(ys) < SPOT_AREA * side * side:
        return False
    centre = (cx - x0, cy - y0)
    turn = square_turn(np.asarray(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), np.uint8), centre,
                       side) if d.value == 1 else d.turn
    keep = _Band.of(d, side, turn, (x0, y0), centre, others, down, die).holds(ys, xs)
    if keep.sum() < SPOT_AREA * side * side:
        return False
    spots = np.zeros(red.shape, np.uint8)
    spots[ys[keep], xs[keep]] = 1
    _, _, stats, _ = cv2.connectedComponentsWithStats(spots, connectivity=8)
    return bool((stats[1:, cv2.CC_STAT_AREA] >= SPOT_AREA * side * side).any())


def _patch(frame: U8, d: Die, down: Down, side: float, more: float) -> tuple[int, int, int, int] | None:
    """The frame's box (x0, y0, x1, y1) round `d` that holds its band: a flat die's outline reaches 0.71 of a
    side from its centre, and `down` on; then the band, `more` pixels and two. None where under 3 px a side."""
    h, w = frame.shape[:2]
    dx, dy = down(d.center)
    reach = math.ceil((0.71 + BAND[1]) * side + math.hypot(dx, dy) + more + 2)
    cx, cy = d.center
    x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
    x1, y1 = min(w, int(cx) + reach + 1), min(h, int(cy) + reach + 1)
    return None if x1 - x0 < 3 or y1 - y0 < 3 else (x0, y0, x1, y1)


def _others(dice: list[Die], d: Die, twin: float, die: float) -> list[Die]:
    """The dice read beside `d` whose outlines its side face is kept clear of: all but an unread die closer than
    `twin` sides, which is `d`'s own side face or shadow read again (the reader's TWIN)."""
    return [o for o in dice if o is not d and not (o.value is None and d.near(o, twin, die))]


def _new_pip(frame: U8, before: U8, d: Die, others: list[Die], down: Down, die: float, light_pips: bool,
             pip: NDArray[np.float32]) -> bool:
    side = max(d.size, die)  # (a face read small would leave its own edge past the outline)
    k = odd(KERNEL_PER_DIAM * PIP_D_PER_G * side / SIDE_PER_G)
    box = _patch(frame, d, down, side, k / 2)  # (the black-hat needs half its kernel more)
    if box is None:
        return False
    x0, y0, x1, y1 = box
    cx, cy = d.center
    now = np.asarray(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    was = np.asarray(cv2.cvtColor(before[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    if light_pips:
        b = before[y0:y1, x0:x1]
        unknown = (b[..., 0] | b[..., 1] | b[..., 2]) == 0  # (black: no channel lit)
        now, was = 255 - now, 255 - was
        was[unknown] = 0  # (still nothing known there)
    centre = (cx - x0, cy - y0)  # in the patch
    # A lone pip gives no turn: the top face's edges do.
    turn = square_turn(now, centre, side) if d.value == 1 else d.turn
    c, s = math.cos(turn), math.sin(turn)
    # The top face, within 0.4 of a side of its centre along its edges: its pips' grey, its own, its pips' spots.
    fy, fx = (g.ravel() for g in np.mgrid[max(0, int(centre[1] - 0.6 * side)):int(centre[1] + 0.6 * side) + 1,
                                          max(0, int(centre[0] - 0.6 * side)):int(centre[0] + 0.6 * side) + 1])
    inside = (fy < y1 - y0) & (fx < x1 - x0)
    fy, fx = fy[inside], fx[inside]
    ru, rv = fx - centre[0], fy - centre[1]
    on = (np.abs(ru * c + rv * s) < 0.4 * side) & (np.abs(rv * c - ru * s) < 0.4 * side)
    if on.sum() < 4:
        return False
    grey = now[fy[on], fx[on]]
    low, mid = len(grey) // 50, len(grey) // 2  # (its 2nd percentile and its median)
    parts = np.partition(grey, (low, mid))
    pip_grey, face_grey = float(parts[low]), float(parts[mid])
    if face_grey - pip_grey < 1.0:
        return False
    # Pixels as dark as a pip and much darker than before: a spot is one only where its darkest pixel is (below),
    # so with none in the band there is none (and no black-hat to take: most flat dice end here).
    as_pip = pip_grey + AS_DARK * (face_grey - pip_grey)
    dark = now <= as_pip
    dark &= now <= DARKER * np.maximum(was, 1).astype(np.float64)
    # ... and not as dark as a pip before: black print in the die's contact shadow went from 20 to 7 grey levels (the
    # Pi unit's view: three flat white dice refused), and a pip over print that dark was never new by the ratio.
    dark &= was > as_pip
    band = _Band.of(d, side, turn, (x0, y0), centre, others, down, die)
    if not band.holds(*np.nonzero(dark)).any():
        return False
    r_now = black_hat(now, k)
    # (Before's spots grown a pixel: the board's print may shift by one with the sensor's noise.)
    r_was = cv2.dilate(black_hat(was, k), _BOX3)
    # A side face turned from the light is darker than the top face, and its pips stand out from it by less (a
    # white 3 leaning 25 degrees straight down: its side face 100 grey levels to the top face's 237, its pip's
    # black-hat 73 to the top face's pips' 206): the growth asked is the share of the lesser of the top face's
    # pips' response and the spot's surroundings' level (the grey plus its black-hat) above the pips' grey, but
    # at least as much as the darkness test allows a pip (AS_DARK): within something as dark as a pip, nothing
    # stands out as one.
    level = np.maximum(now.astype(np.float64) + r_now - pip_grey, AS_DARK * (face_grey - pip_grey))
    least = NEW_SHARE * np.minimum(float(r_now[fy[on], fx[on]].max()), level)
    floor = np.maximum(least, 1.0)
    grown = cv2.subtract(r_now, r_was) >= floor
    # Over a stroke of the board's print (a letter's, narrower than the black-hat) the table before answered as
    # strongly as a pip does now, and nothing grew: there a pip's pixels are new by their darkness (`dark`: as dark
    # as a pip, under DARKER of what was there, not that dark before) and their hue (a black pip on red print; the
    # print in a die's deep shadow keeps its hue: the simulated camera's touching pairs on red lettering).
    over = dark & (r_now >= floor) & (r_was >= floor)
    if over.any():
        oy, ox = np.nonzero(over)
        hue = ~same_hue(frame[y0 + oy, x0 + ox].astype(np.float32), before[y0 + oy, x0 + ox].astype(np.float32))
        grown[oy[hue], ox[hue]] = True
    ys, xs = np.nonzero(grown)
    keep = band.holds(ys, xs)
    if not keep.any():
        return False
    spots = np.zeros(now.shape, np.uint8)
    spots[ys[keep], xs[keep]] = 1
    n, labels, stats, _ = cv2.connectedComponentsWithStats(spots, connectivity=8)
    for j in range(1, n):
        if stats[j, cv2.CC_STAT_AREA] < SPOT_AREA * side * side:
            continue
        spot = labels == j
        py, px = np.nonzero(spot)
        _, (rw, rh), _ = cv2.minAreaRect(np.column_stack([px, py]).astype(np.float32))
        if max(rw, rh) > SPOT_LONG * side:
            continue
        if dark[py, px][int(np.argmin(now[py, px]))] and _ringed(spot, dark) and (
                light_pips or not _print_in_shade(frame, before, py + y0, px + x0, dark[py, px], pip)):
            return True
    return False


def _print_in_shade(frame: U8, before: U8, ys: NDArray[np.intp], xs: NDArray[np.intp], dark: NDArray[np.bool_],
                    pip: NDArray[np.float32]) -> bool:
    """Whether a dark spot (frame rows `ys`, columns `xs`; `dark`: its pixels as dark as a pip) is coloured print
    in a deep shadow rather than a pip of the colour `pip` (silhouette.pip_hue of the dice's calibrated pips'): its
    dark pixels' mean colour, against theirs before the throw (silhouette.print_in_shade). Two white dice
    touching on the board's red print darken it in their crevice to 0.36-0.4 of its light, past DARKER, but it
    stays red (the Pi unit's view: (15, 13, 71) where it was (41, 40, 200)); a side face's pip is black, whatever
    lies under the die. The calibrated colour, not the top face's: with a Japanese die's large red 1 up, a black
    pip on its side face over the pale board was nearer the board's hue than the red pip's (the simulated tables,
    one die leaning 25 degrees with its large 1 up: 3 of 26 accepted straight overhead)."""
    now = frame[ys[dark], xs[dark]].astype(np.float32).mean(axis=0, keepdims=True)
    was = before[ys[dark], xs[dark]].astype(np.float32).mean(axis=0, keepdims=True)
    return bool(print_in_shade(now, was, pip)[0])


def refuse_new_body(frame: U8, before: U8, dice: list[Die], problems: list[str], down: Down, die: float,
                    colour: tuple[int, int, int], twin: float = 0.0, sils: Silhouettes | None = None) -> None:
    """Dice with light pips on a coloured or dark body, their look calibrated as `colour` (BGR): refuse (in
    place) every die read whose body goes on past a flat die's outline where `before` (the table before the
    throw, as for refuse_new_side_pips) did not have its colour (M.DICE.2: a cocked die's open side face).

    The die's silhouette (vision/silhouette.py: its colour in any shade connected to its top face, pips
    filled) is taken within the band where a leaning die's side face shows (BAND past the outline of a flat
    die of the calibrated size `die`, clear of the other dice read); of it, only what is new counts: not of
    the die's colour before (the board's print of it, a hotel), and not a shade of what was there (a shadow
    scales the board's colour by half or more and keeps its hue: the shadow of a black die falling on a red
    property bar is as dark as the die; where a die lay before, blacked out, anything is). Where that exceeds
    NEW_BODY square sides, the die leans. `twin` as for refuse_new_side_pips; `sils`: the dice's silhouettes in
    `frame` as grown for another check (the same `die` and `colour`)."""
    body = np.array(colour, np.float32)
    sils = sils or Silhouettes(frame, die, colour)
    for i, d in enumerate(dice):
        if d.value is None:
            continue
        others = _others(dice, d, twin, die)
        if _new_body(frame, before, d, sils.of(d), others, down, die, body) >= NEW_BODY:
            dice[i] = replace(d, value=None, confidence=0.0)
            problems[i] = NEW_BODY_REASON


def _new_body(frame: U8, before: U8, d: Die, sil: Silhouette | None, others: list[Die], down: Down, die: float,
              body: NDArray[np.float32]) -> float:
    """The die `d`'s body new since `before` within its band, in square sides (`die` the calibrated side; `sil`
    its silhouette)."""
    if sil is None:
        return 0.0
    h, w = sil.filled.shape
    x0, y0 = int(sil.corner[0]), int(sil.corner[1])
    centre = (d.center[0] - x0, d.center[1] - y0)
    # A lone pip gives no turn: the top face's edges do.
    turn = d.turn if d.value != 1 else square_turn(
        np.asarray(cv2.cvtColor(frame[y0:y0 + h, x0:x0 + w], cv2.COLOR_BGR2GRAY), np.uint8), centre, die)
    ys, xs = np.nonzero(sil.filled)
    # (The band need not be asked within 0.57 of a side of the centre along the top face's axes, never 0.1 of a
    # side past the top face, which the flat outline holds; nor further out than the band's end past the
    # outline's furthest point.)
    out = _along_axes(xs, ys, centre, turn) > (0.5 + BAND[0] / math.sqrt(2)) * die
    out &= np.hypot(xs - centre[0], ys - centre[1]) <= (math.sqrt(0.5) + BAND[1]) * die + math.hypot(
        *down(d.center)) + 1.0
    ys, xs = ys[out], xs[out]
    keep = _Band.of(d, die, turn, (x0, y0), centre, others, down, die).holds(ys, xs)
    least = NEW_BODY * die * die
    if keep.sum() < least:
        return 0.0  # (not enough of the silhouette in the band, new or not: flat dice end here)
    ys, xs = ys[keep] + y0, xs[keep] + x0
    # Of the die's colour before, within two pixels (with the table before moved 3 or 4 px sideways, within one
    # pixel 3 and 7 red pairs of 40 more were refused than without this check; within two, none more), or a
    # shade of what was there (a shadow).
    return float((~known_before(frame, before, ys, xs, body)).sum()) / (die * die)


def refuse_hidden_near_side(frame: U8, before: U8, dice: list[Die], problems: list[str], down: Down, die: float,
                            colour: tuple[int, int, int], twin: float = 0.0, light_pips: bool = True) -> None:
    """Dice whose look is calibrated as `colour` (BGR): refuse (in place) every die read where a flat die's side
    face towards the camera would show, wide, and the table as it was shows there instead (M.DICE.2: a die leaning
    towards the camera hides that face under itself).

    A camera off vertical sees a flat die's side face towards it as a band between the top face and the outline
    swept along `down`; it is the die's colour, new since before. A die leaning towards the camera turns that
    face down and out of sight, and the band holds the board or the die's shadow on it: a shade of what was
    there (its hue, at least SHADOW of its light). Asked only where the band is NEAR_MIN of a side wide or more,
    of pixels known before (not black) that were not of the die's colour then (a red die on the board's red bar
    says nothing there); a light 1 placed by its lone pip (_placed_one). White dice (`light_pips` False) as
    hidden_near_side says, their 1 placed by its pip as read. `twin` as for refuse_new_side_pips."""
    body = np.array(colour, np.float32)
    bar = NEAR_SHADE if light_pips else NEAR_TABLE
    for i, d in enumerate(dice):
        if d.value is None:
            continue
        face = (d.center, d.turn) if d.value != 1 or not light_pips else _placed_one(frame, d.center, die)
        if face is not None and hidden_near_side(frame, before, face, _others(dice, d, twin, die), down, die,
                                                 body, light_pips) >= bar:
            dice[i] = replace(d, value=None, confidence=0.0)
            problems[i] = HIDDEN_NEAR_REASON


def _placed_one(frame: U8, at: tuple[float, float], die: float) -> tuple[tuple[float, float], float] | None:
    """A light-pipped 1 read at `at`, placed by its lone pip (the brightest pip-sized spot within LONE_REACH of a side
    of it, clear of that window's edge, its pixels above halfway from the window's median to its peak) and turned by
    its face's edges: its face's centre and turn, or None where no pip-sized spot is there. A 1 read by its body is
    centred on the body, top face and side face together, most of a band towards the camera (the simulated camera at
    18 degrees: 6-7 px of a 31 px die, the band 7.8 px), and the band asked past that centre is the board past a flat
    die's side face (black dice touching, seed 93)."""
    h, w = frame.shape[:2]
    r = math.ceil(LONE_REACH * die)
    cx, cy = at
    x0, y0, x1, y1 = max(0, int(cx) - r), max(0, int(cy) - r), min(w, int(cx) + r + 1), min(h, int(cy) + r + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    grey = np.asarray(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), np.uint8)
    peak, level = float(grey.max()), float(np.median(grey))
    if peak - level < 1.0:
        return None
    bright = np.asarray(grey >= 0.5 * (peak + level), np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(bright, connectivity=8)
    # Of the pip-sized spots clear of the window's edge (the board past the die's far edge reaches it), the
    # brightest.
    sx, sy, sw, sh, area = (stats[1:, k] for k in range(5))
    fits = (area >= LONE_AREA[0] * die * die) & (area <= LONE_AREA[1] * die * die) & (sx > 0) & (sy > 0) & (
        sx + sw < x1 - x0) & (sy + sh < y1 - y0)
    if not fits.any():
        return None
    brightest = np.zeros(n, np.float64)
    np.maximum.at(brightest, np.asarray(labels, np.intp).ravel(), grey.ravel())
    top = 1 + int(np.argmax(np.where(fits, brightest[1:], -1.0)))
    px, py = float(centroids[top][0]) + x0, float(centroids[top][1]) + y0
    # (square_turn looks 0.8 of a side round the centre.)
    r = int(0.8 * die) + 3
    x0, y0 = max(0, int(px) - r), max(0, int(py) - r)
    around = np.asarray(cv2.cvtColor(frame[y0:int(py) + r + 1, x0:int(px) + r + 1], cv2.COLOR_BGR2GRAY), np.uint8)
    return (px, py), square_turn(around, (px - x0, py - y0), die)


def hidden_near_side(frame: U8, before: U8, face: tuple[tuple[float, float], float], others: list[Die], down: Down,
                     die: float, body: NDArray[np.float32], light_pips: bool = True) -> float:
    """The share of the near band (where a flat die's side face towards the camera shows) of a top face (its
    centre and turn, placed by its pips) that is a shade of what was there before, and for dark pips (white dice)
    also of its tint rather than the die's (nearer_hue, over pixels whose colour before was HUE_APART from the
    die's); 0 where the band is narrow or too little of it says anything (NEAR_AREA)."""
    (cx, cy), turn = face
    dx, dy = down((cx, cy))
    if math.hypot(dx, dy) < NEAR_MIN * die:
        return 0.0
    h, w = frame.shape[:2]
    hull = _outline((cx, cy), die, turn, down)
    x0, y0 = max(0, int(hull[:, 0].min()) - 1), max(0, int(hull[:, 1].min()) - 1)
    x1, y1 = min(w, int(hull[:, 0].max()) + 2), min(h, int(hull[:, 1].max()) + 2)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0
    # Within the flat outline by NEAR_EDGE (its far edge is the side face's bottom, blurred into the board), ...
    inner = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inner, np.rint(hull - (x0, y0)).astype(np.int32), 1)
    depth = cv2.distanceTransform(cv2.copyMakeBorder(inner, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0),
                                  cv2.DIST_L2, 3)[1:-1, 1:-1]
    ys, xs = np.nonzero(depth >= NEAR_EDGE * die)
    ys, xs = ys + y0, xs + x0
    # ... past the top face by as much (its rim, the outline's blur and the read's error), ...
    past = _along_axes(xs, ys, (cx, cy), turn) >= (0.5 + NEAR_EDGE) * die
    ys, xs = ys[past], xs[past]
    b = before[ys, xs]
    known = (b[:, 0] | b[:, 1] | b[:, 2]) != 0  # (black before: a die lay there, nothing known)
    ys, xs = ys[known], xs[known]
    if others and len(ys):  # ... clear of the other dice read (their bodies, their side faces), ...
        pts = np.column_stack([xs, ys]).astype(np.float64)
        clear = np.ones(len(ys), bool)
        for o in others:
            clear &= outside(pts, _outline(o.center, o.size or die, o.turn, down)) > OTHER_DIE * die
        ys, xs = ys[clear], xs[clear]
    # ... and not of the die's colour before (for white dice: of a hue apart from it).
    fresh = ~had_colour(before, ys, xs, body) if light_pips else hue_apart(before[ys, xs].astype(np.float32), body,
                                                                            HUE_APART)
    ys, xs = ys[fresh], xs[fresh]
    if len(ys) < NEAR_AREA * die * die:
        return 0.0
    now, was = frame[ys, xs].astype(np.float32), before[ys, xs].astype(np.float32)
    table = a_shade(now, was)
    return float((table if light_pips else table & nearer_hue(now, was, body)).mean())


def _ringed(spot: NDArray[np.bool_], dark: NDArray[np.bool_]) -> bool:
    """Whether the pixels 1-2 px round `spot` are lighter than a pip (`dark`: as dark as a pip and darker than
    before) but for at most RING of them: a side face's pip is ringed by its face; a corner of something as dark
    as a pip, new beside the die, is not."""
    m = spot.astype(np.uint8)
    ring = (cv2.dilate(m, _BOX5) > 0) & (cv2.dilate(m, _BOX3) == 0)
    return not ring.any() or float(dark[ring].mean()) <= RING


@dataclass(frozen=True)
class _Band:
    """Where a side face's pips are looked for beside a die: 0.1-0.45 of a side (BAND) past its flat outline
    `hull`, and more than OTHER_DIE past each of `others` (the other dice read's outlines); pixels of a patch
    whose corner is `off` in the frame, `centre` the die's centre there."""

    side: float
    off: tuple[int, int]
    centre: tuple[float, float]
    hull: F64
    others: tuple[F64, ...]

    @classmethod
    def of(cls, d: Die, side: float, turn: float, off: tuple[int, int], centre: tuple[float, float],
           others: list[Die], down: Down, die: float) -> _Band:
        """The band beside `d` (its outline at `side`, turned by `turn`); `die`: the side of another die read
        without a size."""
        return cls(side, off, centre, _outline(d.center, side, turn, down),
                   tuple(_outline(o.center, o.size or die, o.turn, down) for o in others))

    def holds(self, ys: NDArray[np.intp], xs: NDArray[np.intp]) -> NDArray[np.bool_]:
        side = self.side
        # (Within half a side of its centre is the top face itself.)
        keep = np.asarray(np.hypot(xs - self.centre[0], ys - self.centre[1]) >= 0.5 * side, bool)
        if not keep.any():
            return keep
        pts = np.column_stack([xs[keep] + self.off[0], ys[keep] + self.off[1]]).astype(np.float64)
        past = outside(pts, self.hull)
        near = (past >= BAND[0] * side) & (past <= BAND[1] * side)
        for hull in self.others:
            if near.any():
                near &= outside(pts, hull) > OTHER_DIE * side
        keep[keep] = near
        return keep


def _along_axes(xs: NDArray[np.intp], ys: NDArray[np.intp], centre: tuple[float, float], turn: float) -> F64:
    """Each pixel's distance from `centre` along the further of a square face's two axes (turned by `turn`): half a
    side on the face's edge."""
    c, s = math.cos(turn), math.sin(turn)
    ru, rv = xs - centre[0], ys - centre[1]
    return np.asarray(np.maximum(np.abs(ru * c + rv * s), np.abs(rv * c - ru * s)), np.float64)


def _outline(centre: tuple[float, float], side: float, turn: float, down: Down) -> F64:
    """A flat die's outline as the camera sees it (a convex polygon, frame pixels): its top face of `side` at
    `centre`, turned by `turn`, swept along `down` (its side faces)."""
    corners = square_corners(centre, side, turn)
    dv = np.array(down(centre), np.float64)
    return np.asarray(cv2.convexHull(np.vstack([corners, corners + dv]).astype(np.float32)).reshape(-1, 2),
                      np.float64)

"""Whether a face read lies flat: a leaning die shows another face of itself where a flat die shows nothing.

The pips-first passes (vision/darkpips.py) read a face from its pips; with the board camera's `down` (the
image vector from a flat die's top-face centre to its bottom, vision/camera.py) each face read is checked
here for the side face a die leaning on something opens beside it, or, far from overhead, the face of it
behind. Pure: spots and faces in, the face (refused or not) out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vision.change import THRESHOLD
from vision.lightface import SIDE_PER_G, Down, LightFace, clear_points, outside, square_corners
from vision.pips import Candidates, sample
from vision.reading import Die
from vision.rim import CLEAR
from vision.silhouette import Silhouette, known_before, of_colour, pip_hue, print_in_shade

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]
# Which of the spots at (N, 2) points, of (N,) peaks, were there before the throw.
OldSpots = Callable[[F64, F64], NDArray[np.bool_]]

# A side face's pip seen beside the top face further out than a flat die's side can reach (pitches).
SIDE_SLACK = 0.35
# How far from a face's centre (pitches) its lean check looks for an open side face's pips. An open side
# face begins at the top face's edge (1.93 pitches out) and shows its pips in two rows across its width,
# which grows with the lean (0.7 of a side, 2.7 pitches, at 45 degrees). Looking to 3.0 saw only the near
# row, which can sit within a flat die's reach plus slack: the simulated camera's cocked seed 194 (a die
# leaning on a hotel, 5 up, its 6 side open, far row 3.2 pitches out) was a wrong `ok`. A touching die's
# nearest pips are ~2.9 pitches out either way: they are left out as the pips of a face read, not by distance.
LEAN_REACH = 3.5
# A lone pip's die is tried turned every this many radians of a quarter turn (darkpips._ones); its lean
# check takes a spot for an open side face only if it is one at every turn within half a step of the guess.
ONE_STEP = np.pi / 12


def lean_check(f: LightFace, top: Candidates, c: Candidates, faces: list[LightFace], down: Down,
               colour: U8 | None = None, old: OldSpots | None = None, narrow: Candidates | None = None,
               bgr: U8 | None = None) -> LightFace:
    """A die leaning on something shows one side face wide open, its pips round enough to be found as
    spots as strong as the top face's pips. A flat die shows only the side faces turned away from the
    camera, each at most as wide as the die's height looks there (`down`). A strong pip-sized spot just
    beyond one of the top face's edges, further out than a flat die's side face reaches, is taken for
    the open side face of a cocked die (not a pip of another die read: those are excluded). `old`: which
    spots were there before the throw (the table's, not a side face's; vision/spots.py SpotsBefore).
    `narrow`: the spots not round, which a narrow side face's pips may be (_narrow_side); `bgr`: the colour frame
    of a pass of dark pips, where those are asked to be the colour of the face's pips (_tinted)."""
    if f.value is None or len(c) == 0:
        return f
    # (Each face pip's nearest spot, and which spots are pips of a face read, for all of them at once.)
    fp = np.array(f.pips, np.float64)
    near_pip = np.argmin(np.hypot(top.xy[None, :, 0] - fp[:, None, 0], top.xy[None, :, 1] - fp[:, None, 1]), axis=1)
    weak = float(top.peak[near_pip].min())
    own = np.array([p for o in faces for p in o.pips], np.float64).reshape(-1, 2)
    dv = np.array(down(f.centre))
    rel = c.xy - np.array(f.centre)
    reach = float(np.hypot(dv[0], dv[1]))
    pip_like = (c.peak >= 0.7 * weak) & (c.radius >= 0.2 * f.g) & (c.radius < 0.4 * f.g)
    mine = ((c.xy[:, None, 0] == own[None, :, 0]) & (c.xy[:, None, 1] == own[None, :, 1])).any(axis=1)
    side = 0.5 * f.side
    # Only the pip-like spots of no face read can be a side face's: the rest is measured for them alone.
    cand = pip_like & ~mine
    if cand.any():
        # (Nor the spots at the edge of a face read beside this one: the crevice of two dice touching.)
        cand[cand] = ~_at_other_faces(f, c.xy[cand], faces)
    if old is not None and cand.any():
        # (Asked of the spots near enough to count below: LEAN_REACH pitches out along both of the face's axes,
        # towards a corner, or LEAN_BEHIND from its centre.)
        ask = cand & (np.hypot(rel[:, 0], rel[:, 1]) <= max(np.sqrt(2.0) * LEAN_REACH, LEAN_BEHIND) * f.g)
        if ask.any():
            cand[ask] = ~old(c.xy[ask], c.peak[ask])
    sil = None
    if colour is not None and (cand.any() or reach > side):
        # Light pips: a light gap of board beside the die looks like one; a side face's pips lie on the die.
        sil = Silhouette.of(colour, f.centre, f.side, clear_points(f))
        cand[cand] = sil.holds(c.xy[cand]) if sil is not None else False
    # (With light pips, also where the die's body goes on behind the face: its top face's lone pip, or a
    # leaning die's upper face, need not be a spot near enough, or pip-like beside this face's pips.)
    if reach > side and (_behind(f, c.xy[cand], faces, down, dv / reach) or (
            sil is not None and sil.reaches_behind(f.centre, f.side, f.theta, -dv / reach))):
        return replace(f, value=None, confidence=0.0, reason="cocked: another face of it shows behind the top face")
    if narrow is not None and len(narrow) and f.value != 1:  # (a 1's turn, which gives its edges, is a guess)
        side_pips = _narrow_side(f, narrow, weak, dv, faces, down)
        if side_pips.any() and colour is None and bgr is not None:
            side_pips[side_pips] = ~_tinted(bgr, narrow.xy[side_pips], np.array(f.pips, np.float64))
        if side_pips.any() and colour is not None:
            if sil is None:
                sil = Silhouette.of(colour, f.centre, f.side, clear_points(f))
            side_pips[side_pips] = sil.holds(narrow.xy[side_pips]) if sil is not None else False
        if side_pips.any() and old is not None:
            side_pips[side_pips] = ~old(narrow.xy[side_pips], narrow.peak[side_pips])
        if side_pips.any():
            return replace(f, value=None, confidence=0.0, reason="cocked: a side face shows beside the top face")
    rel = rel[cand]
    if len(rel) == 0:
        return f
    odd = np.ones(len(rel), bool)
    if f.value == 1 and reach > side:
        # Far from overhead (a flat die's sides longer than half its face), a lone pip may be a leaning die's
        # lower face, its top face's pips just behind it (the simulated camera at 45 degrees, read from above:
        # three cocked throws of 40 accepted with such a 1), where a turn-by-turn square leaves them in its
        # corners. Turn-free: past the circle a face of any turn fits in (its rim ends 1.22 half-sides out
        # towards a corner, vision/rim.py) and past that circle swept towards the die's bottom.
        ring = 1.22 * side
        beyond = np.hypot(rel[:, 0], rel[:, 1]) - ring
        out = _from_segment(rel, dv) - ring
        odd &= (beyond > 0) & (beyond <= LEAN_REACH * f.g - side) & (out > SIDE_SLACK * f.g)
        return f if not odd.any() else replace(f, value=None, confidence=0.0,
                                              reason="cocked: a side face shows beside the top face")
    # A 1's turn is a guess (the rim fitted every ONE_STEP): a spot is taken for an open side face
    # only if it is one at every turn within half a step of the guess.
    half = 0.5 * ONE_STEP
    for theta in (f.theta - half, f.theta, f.theta + half) if f.value == 1 else (f.theta,):
        cth, sth = np.cos(theta), np.sin(theta)
        to_face = np.array([[cth, -sth], [sth, cth]])  # image offset @ to_face -> (u, v) along the face's axes
        uv = np.abs(rel @ to_face)
        # Past the top face's edge (pixels; 0 on it), beyond a corner as well as beyond a side: a die seen far
        # from overhead and read from above (vision/oblique.py) shows a leaning die's other faces beyond its
        # face's corners too (the simulated camera at 50 degrees: a die leaning on a hotel, read by a side
        # face turned 45 degrees, its top face's pips beyond that face's corner).
        beyond = np.hypot(np.maximum(uv[:, 0] - side, 0.0), np.maximum(uv[:, 1] - side, 0.0))
        # ... and past the footprint of a flat die there: its top face swept towards its bottom (`down`),
        # which is all of a flat die the camera can see.
        out = _past_footprint(rel, dv, to_face, side)
        near = (beyond > 0) & (beyond <= LEAN_REACH * f.g - side)
        odd &= near & (out > SIDE_SLACK * f.g)
    if not odd.any():
        return f
    return replace(f, value=None, confidence=0.0, reason="cocked: a side face shows beside the top face")


_SWEEP = np.linspace(0.0, 1.0, 9)  # steps of a flat die's top face towards its bottom, for lean_check
# How far behind a face (pitches from its centre, away from the camera) a leaning die's top face can show.
LEAN_BEHIND = 4.5


def _behind(f: LightFace, spots: F64, faces: list[LightFace], down: Down, away: F64) -> bool:
    """Far from overhead, whether a pip lies just behind the face `f` (away from the camera, where a flat die
    shows nothing of itself), unaccounted for by any other face read as a flat die's top or side faces.

    A die leaning away from the camera turns its lower side face up towards it: read from above that face
    looks like a flat top face, and the die's real top face lies a face's width behind it, its pips further
    out than LEAN_REACH (the simulated camera at 45 and 50 degrees: cocked throws accepted with the lower
    face read as a 4, a 3 or a 1). A die lying behind this one shows its own top face (its pips are a face
    read) and its side face towards the camera (within its footprint, `down`): those are not counted."""
    if len(spots) == 0:
        return False
    rel = spots - np.array(f.centre)
    ring = 1.22 * 0.5 * f.side
    dist = np.hypot(rel[:, 0], rel[:, 1])
    back = (rel @ away < 0) & (dist > ring) & (dist <= LEAN_BEHIND * f.g)
    return bool(_off_other_faces(f, spots, back, faces, down).any())


def _off_other_faces(f: LightFace, xy: F64, keep: NDArray[np.bool_], faces: list[LightFace],
                     down: Down) -> NDArray[np.bool_]:
    """`keep`, less the points `xy` within another read face's footprint (its rim's circle swept along `down`):
    that die's own top or side face."""
    keep = np.asarray(keep, bool).copy()
    for o in faces:
        if o is f or o.value is None or not keep.any():
            continue
        keep &= _from_segment(xy - np.array(o.centre), np.array(down(o.centre))) > 1.22 * 0.5 * o.side
    return keep


# How far past another read face's edge (sides) a spot is that die's own: its rim, its bevel, or the crevice
# between two dice touching, dark and pip-sized in the shade the two make. Asked only where the two faces lie
# within CREVICE of a side of each other: a die leaning with another against its open side face keeps the two
# top faces apart by that side face's width (sin 15 = 0.26 of a side at 15 degrees), while the crevice of two
# flat dice touching measured 0.01-0.31 of a side between the faces as fitted.
# White dice, two flat touching (the simulated camera 0, 8 and 18 degrees off vertical, seeds 20-79, with the
# table before): 169 of 180 read right without this, 179 with it (and without CREVICE); every refusal it lifts
# was "a side face shows beside the top face", the spots 0.002-0.09 of a side past the other face. A die leaning
# with a flat die against it (tests/vision/simthrows.py sim_leaning_touching, seeds 0-19, 60 throws a lean, with
# the table before), `ok` with neither rule / without CREVICE / with it: on its open side 32 / 41 / 35 leaning 10
# degrees, 9 / 12 / 9 at 15, 3 / 4 / 3 at 20, 1 / 1 / 1 at 25; on the side it tips towards 34 / 37 / 37, 12 / 13
# / 13, 4 / 4 / 4, 2 / 2 / 2.
OTHER_EDGE = 0.1
CREVICE = 0.2


def _at_other_faces(f: LightFace, xy: F64, faces: list[LightFace]) -> NDArray[np.bool_]:
    """Which points `xy` lie on another read face or within OTHER_EDGE of a side past its edge, where that face
    lies within CREVICE of a side of `f` (_gap). Past a 1 the points are measured from the circle any turn of it
    fits in (1.22 half sides), as lean_check asks a 1's turn no closer than half a ONE_STEP."""
    at = np.zeros(len(xy), bool)
    for o in faces:
        if o is f or o.value is None or _gap(f, o) > CREVICE * f.side:
            continue
        if o.value == 1:
            past = np.hypot(xy[:, 0] - o.centre[0], xy[:, 1] - o.centre[1]) - 1.22 * 0.5 * o.side
        else:
            past = outside(xy, square_corners(o.centre, o.side, o.theta))
        at |= past <= OTHER_EDGE * o.side
    return at


def _gap(f: LightFace, o: LightFace) -> float:
    """The least distance (pixels) between two faces' squares: for two squares apart, the nearest points include a
    corner of one of them; 0 where a corner lies inside the other. (Two squares crossing with no corner inside the
    other, as two turned about one centre, measure as apart, and their spots are asked as before.) A 1's square is
    turned as its edges say (darkpips._ones, calibrated, where this is asked)."""
    a, b = (square_corners(x.centre, x.side, x.theta) for x in (f, o))
    return float(min(outside(a, b).min(), outside(b, a).min()))


def _past_footprint(rel: F64, dv: F64, to_face: F64, side: float) -> F64:
    """How far (pixels) each point `rel` (from a face's centre) lies past a flat die's footprint there: its top
    face (half side `side`, axes `to_face`) swept towards its bottom (`dv`), all of a flat die the camera sees."""
    swept = (rel[:, None, :] - _SWEEP[None, :, None] * dv[None, None, :]) @ to_face
    return np.asarray(np.hypot(np.maximum(np.abs(swept[..., 0]) - side, 0.0),
                               np.maximum(np.abs(swept[..., 1]) - side, 0.0)).min(axis=1), np.float64)


# How far past the top face's edge (sides) a narrow side face's pip may lie: its centre is half the face's width
# out, and a face whose pips measure not round (MAX_ELONG, 2: sin 30 degrees) is at most half a side wide; the
# face's fit errs by a pixel or two.
NARROW_OUT = 0.3
# A flat die's side face this close (pixels) to edge on shows as a dark line along its edge (_narrow_side).
EDGE_ON = 1.0
# How far (radians) a narrow side face's pip's long axis may lie from the edge's direction: detect measures it in
# steps of 45 degrees (half a step off at most), and the face's turn errs a little more.
ALONG = np.pi / 6


def _narrow_side(f: LightFace, spots: Candidates, weak: float, dv: F64, faces: list[LightFace],
                 down: Down) -> NDArray[np.bool_]:
    """Which of `spots` may be a pip of a narrow side face beside the face `f`, where a flat die shows none.

    A die leaning a little (15-30 degrees: on a hotel, seen from the side and read from above) opens a side
    face too narrow for the lean check's pips: its pip centre lies a few pixels past the top face's edge,
    within the face fit's error of SIDE_SLACK (the simulated camera at 35 degrees: a 2 leaning on the hotel,
    its 1 side open 0.15 of a side past the edge). What tells it is its shape: squeezed across the edge, long
    along it, as no pip of a top face is (they are round, under MAX_ELONG) and no line of the board is (longer).
    Such a spot counts past the edge by any amount beyond a flat die's footprint (its top face swept along
    `down`), as strong as the face's pips and not inside another face's footprint (lean_check asks the rest:
    on the die's silhouette, new since before)."""
    rel = spots.xy - np.array(f.centre)
    side = 0.5 * f.side
    keep = (spots.peak >= 0.7 * weak) & (spots.radius >= 0.2 * f.g) & (spots.radius < 0.4 * f.g)
    keep &= np.hypot(rel[:, 0], rel[:, 1]) <= np.sqrt(2.0) * (side + NARROW_OUT * f.side)
    if not keep.any():
        return keep
    cth, sth = np.cos(f.theta), np.sin(f.theta)
    to_face = np.array([[cth, -sth], [sth, cth]])
    uv = rel @ to_face
    over = np.abs(uv) - side  # past the edges across u, across v (pixels)
    past_u = (over[:, 0] > 0) & (over[:, 1] < 0)
    past_v = (over[:, 1] > 0) & (over[:, 0] < 0)
    past = np.where(past_u, over[:, 0], np.where(past_v, over[:, 1], -1.0))
    keep &= (past > 0) & (past <= NARROW_OUT * f.side)
    # Only past an edge turned away from the camera, where a flat die shows no side face at all: past the others
    # a flat die's own side face shows a few pixels wide, its pips such ovals (the simulated camera 18 degrees off
    # vertical, plain white throws: 31 of 200 refused when every edge was asked). `towards`: how wide a flat
    # die's side face past the edge shows (pixels; negative, turned away); within EDGE_ON of 0 it is seen edge
    # on, a dark line along the edge.
    towards = np.where(past_u, np.sign(uv[:, 0]) * (dv[0] * cth + dv[1] * sth),
                       np.sign(uv[:, 1]) * (dv[1] * cth - dv[0] * sth))
    keep &= towards < -EDGE_ON
    # The edge runs along v past a u edge (theta + 90 degrees), along u past a v edge; detect's axis k is k * 45.
    edge = np.where(past_u, f.theta + 0.5 * np.pi, f.theta)
    turn = (spots.axis * (0.25 * np.pi) - edge) % np.pi
    keep &= np.minimum(turn, np.pi - turn) <= ALONG
    keep &= _past_footprint(rel, dv, to_face, side) > 0
    return _off_other_faces(f, spots.xy, keep, faces, down)


# How much more tinted (max-min channel spread, grey levels) than the face's own pips a narrow side face's dark
# pip may be: the same dark print, shaded. A sliver of the board's coloured print cut off by the die's edge is a
# spot as strong and as long (the simulated board's red lettering and the hotel beside a flat white die: 2 of 200
# plain throws at 18 degrees refused without this, when the check was asked there).
NARROW_TINT = 30.0


def _tinted(bgr: U8, xy: F64, pips: F64) -> NDArray[np.bool_]:
    """Which of the dark spots at `xy` are more tinted than the face's pips at `pips` by NARROW_TINT."""
    def spread(pts: F64) -> F64:
        px = sample(bgr, pts)  # (N, 3): nearest pixels, clipped to the frame
        return np.asarray(px.max(axis=1) - px.min(axis=1), np.float64)

    return np.asarray(spread(xy) > float(np.median(spread(pips))) + NARROW_TINT, bool)


def _from_segment(rel: F64, dv: F64) -> F64:
    """Each point's distance from the segment from the origin to `dv` (a flat die's centre swept to its
    bottom's): the points a circle round the top face, swept so, stays clear of by more than its radius."""
    t = np.clip((rel @ dv) / max(float(dv @ dv), 1e-9), 0.0, 1.0)
    return np.asarray(np.hypot(rel[:, 0] - t * dv[0], rel[:, 1] - t * dv[1]), np.float64)


# Near overhead, where a die's open side face is looked for in its silhouette (refuse_open_sides), in die
# sides past the top face's edge beyond what a flat die's own side faces show there: a die leaning 25
# degrees opens a side face 0.42 of a side wide (sin 25), two of them about 0.3 each where it leans across
# a corner; a flat die's sides near overhead reach 0.15 of a side at most, its rim and the blur a few pixels.
OPEN_SIDE = (0.12, 0.25)
# ... and where the side face must have ended (die sides past the edge and the flat die's sides): a side
# face is at most a side wide, and 0.7 of one at a 45-degree lean; the die's colour going on past that
# is something else of its colour the die lies against (a red die beside a red property bar or lettering,
# a die of its own colour touching it).
SIDE_ENDS = 0.85
# A side face's pip seen on a die leaning 25 degrees, in square sides: a pip 0.18 of a side across squashed
# to 0.42 (sin 25). Where the die's silhouette has less of its holes in the band past an edge, what goes on
# past the edge has no pip: it is something else of the die's colour.
SIDE_PIP = 0.01
# A point within this many sides of another die read's centre is that die's (dice of one colour touching
# make one silhouette, the pips of each holes in it): the open side face is not looked for there.
OTHER_DIE = 0.75
# Across the edge, the points looked at (die sides from the edge's middle): clear of the face's corners,
# where a flat die's rim rounds off.
ACROSS = 0.25


def refuse_open_sides(frame: U8, dice: list[Die], problems: list[str], down: Down, die: float,
                      colour: tuple[int, int, int], sils: Silhouettes | None = None,
                      before: U8 | None = None, pip: tuple[int, int, int] | None = None) -> None:
    """Near overhead, dice with light pips on a dark or coloured body (their look calibrated as `colour`):
    refuse (in place) every die read whose silhouette shows a side face open beside its top face.

    The pip-first passes' lean check (lean_check) looks for a side face's pips, and near overhead a die
    leaning 25-35 degrees shows them too close to the top face's edge to tell from a flat die's own side
    faces, its shadow's edge or its rim: on the simulated camera 0-18 degrees off vertical, the
    calibrated reader accepted a quarter of the throws with one such die (black and red dice, 43 and 42 of
    180; bench/refusals.py, docs/vision.md "Dice leaning near overhead"). The die's body shows it: its
    silhouette (vision/silhouette.py, grown from the calibrated colour, pips filled) goes on past an edge of
    the top face, all across the edge's middle, where a flat die's shows nothing of itself (`down`: its side
    faces are the top face swept that way) and no other die read lies, ends where a side face ends (past
    that, it is something else of the die's colour: a die touching it, the board's print) and has a pip in
    it (a hole in the silhouette: the simulated camera's red hotel, against which a flat red die lay, has
    none).

    Not for white dice: a white die's silhouette cannot be grown on a light board (its shaded sides are as
    dark as the board, and its hue the board's), and not on a view read from above (vision/oblique.py),
    where refuse_faces_with_more_behind asks the same of the face's far side. `sils`: the dice's silhouettes
    in `frame` as grown for another check (the same `die` and `colour`). `before`: the table before the throw
    (read_dice), where known: past an edge where the die's colour was there before (the board's print of it, a
    shadow on that), only holes new since then count for a pip (flat red dice on a brown property bar were
    refused at the Pi unit's view: docs/vision.md, "Red dice on the board's print of their colour"); with the
    pips' calibrated colour `pip`, nor holes that keep a print's hue in the die's shadow (_print_holes)."""
    sils = sils or Silhouettes(frame, die, colour)
    body = np.array(colour, np.float32)
    pips = None if pip is None else pip_hue(pip)
    for i, d in enumerate(dice):
        if d.value is None:
            continue
        side = d.size or die
        sil = sils.of(d)
        if sil is None:
            continue
        c, si = np.cos(d.turn), np.sin(d.turn)
        dv = np.array(down(d.center), np.float64)
        centre = np.array(d.center, np.float64)
        others = [o for o in dice if o is not d]
        lat = side * np.array([-ACROSS, 0.0, ACROSS])
        for out in (np.array([c, si]), np.array([-c, -si]), np.array([-si, c]), np.array([si, -c])):
            across = np.array([-out[1], out[0]])
            edge = 0.5 * side + max(0.0, float(dv @ out))  # a flat die's outline on this side
            ends = centre + (edge + SIDE_ENDS * side) * out + lat[:, None] * across
            if sil.holds(ends).mean() > 0.5:
                continue  # the die's colour goes on past where a side face could end: something else of it
            t = edge + side * np.linspace(OPEN_SIDE[0], OPEN_SIDE[1], 3)
            pts = (centre + t[:, None, None] * out + lat[None, :, None] * across).reshape(-1, 2)
            free = ~_on_others(pts, others, die)
            if 2 * free.sum() < len(pts) or not sil.holds(pts[free]).all():
                continue  # (mostly on another die: nothing to tell)
            # A side face carries a pip at least, a hole in the silhouette: the board's print of the die's
            # colour, a hotel, has none. (Pixels of the band, one apart, in the holes.)
            t = edge + np.arange(1.0, SIDE_ENDS * side)
            a = np.arange(-0.45 * side, 0.45 * side + 1e-9)
            band = (centre + t[:, None, None] * out + a[None, :, None] * across).reshape(-1, 2)
            band = band[~_on_others(band, others, die)]
            holes = band[sil.holed(band)]
            if before is not None and len(holes):
                ij = np.rint(pts[free]).astype(np.intp)
                if 2 * known_before(frame, before, ij[:, 1], ij[:, 0], body).sum() > len(ij):
                    # Mostly there before the throw: the board's print of the die's colour (a property bar, red
                    # lettering) or a shade of what was there (the die's shadow on a bar as dark as a black die).
                    # A flat die lies against it, or a leaning die's side face over it, whose pip is new there:
                    # lighter than the print, or unlike the board in a gap of the print. The print's own holes
                    # are not: its gaps as they were, and its specks (its pixels at the edge of the die's hue,
                    # with the sensor's noise, and in the die's shadow) no lighter than the print.
                    holes = holes[~_print_holes(frame, before, np.rint(holes).astype(np.intp), body, pips)]
            if len(holes) >= SIDE_PIP * side * side:
                dice[i] = replace(d, value=None, confidence=0.0)
                problems[i] = "cocked: a side face shows beside the top face (the die's body goes on past it)"
                break


def _print_holes(frame: U8, before: U8, xy: NDArray[np.intp], body: NDArray[np.float32],
                 pip: NDArray[np.float32] | None = None) -> NDArray[np.bool_]:
    """Whether each pixel (`xy`: frame columns and rows) is as it was before the throw (no channel moved by the
    roll watcher's change), or was of the die's colour `body` then and is no lighter now by that much (a light
    pip lying there would be), or (with the pips' calibrated colour `pip`, silhouette.pip_hue) is the print in the
    die's shadow, where a pip would show the pips' colour (silhouette.print_in_shade, as vision/sidepips.py asks
    of dark pips)."""
    now = frame[xy[:, 1], xy[:, 0]].astype(np.float32)
    was = before[xy[:, 1], xy[:, 0]].astype(np.float32)
    same = np.abs(now - was).max(axis=-1) <= THRESHOLD
    grey = np.array([0.114, 0.587, 0.299], np.float32)  # (BGR: OpenCV's luma weights)
    lighter = now @ grey > was @ grey + THRESHOLD
    known = same | ((of_colour(was, body) > 0) & ~lighter)
    if pip is not None:
        known |= print_in_shade(now, was, pip)
    return np.asarray(known, bool)


class Silhouettes:
    """The silhouettes of the dice read in one frame (silhouette_of: a die of `die` px, of the calibrated
    `colour`), each grown once however many checks ask for it."""

    def __init__(self, frame: U8, die: float, colour: tuple[int, int, int] | None) -> None:
        self._frame, self._die, self._colour = frame, die, colour
        self._grown: dict[Die, Silhouette | None] = {}

    def of(self, d: Die) -> Silhouette | None:
        if d not in self._grown:
            self._grown[d] = silhouette_of(self._frame, d, self._die, self._colour)
        return self._grown[d]


def silhouette_of(frame: U8, d: Die, die: float, colour: tuple[int, int, int] | None) -> Silhouette | None:
    """The silhouette of the die `d` read (`die`: the die's side), grown from the points of its face between the
    pips, whatever its value (the die's colour there, or the calibrated `colour`)."""
    c, si = np.cos(d.turn), np.sin(d.turn)
    body = np.array(d.center) + (CLEAR * (die / SIDE_PER_G)) @ np.array([[c, si], [-si, c]])
    return Silhouette.of(frame, d.center, die, body, colour)


def _on_others(pts: F64, others: list[Die], die: float) -> NDArray[np.bool_]:
    """Whether each point (N, 2) lies within OTHER_DIE of a side of one of the dice `others`."""
    near = np.zeros(len(pts), bool)
    for o in others:
        near |= np.hypot(pts[:, 0] - o.center[0], pts[:, 1] - o.center[1]) <= OTHER_DIE * (o.size or die)
    return near


def refuse_faces_with_more_behind(frame: U8, dice: list[Die], problems: list[str], down: Down, die: float,
                                  colour: tuple[int, int, int] | None) -> None:
    """Read from above, dice with light pips: refuse (in place) every die read whose silhouette goes on behind
    its face (vision/silhouette.py, `reaches_behind`), whichever pass read it. The pip-first passes ask this
    of their own faces (lean_check); the body pass did not, and far from overhead a flat die's body seen
    from the camera is its top face and the side face below it, as large: with the top face's lone 1 not
    read, the body pass and the net read the side face's pips as the die (the simulated camera at 50
    degrees, red dice: plain throws of a 1 accepted as a 3 and as a 5). `down`: the board camera's, as
    seen from above (vision/oblique.py); `die`: the die's side there. The silhouette is grown from the
    dice's calibrated colour (`colour`): a red die's side face in shade, (16, 16, 80), is dark enough to be
    taken for a black die's body, whose silhouette stops at the top face's brighter red."""
    for i, d in enumerate(dice):
        if d.value is None:
            continue
        dx, dy = down(d.center)
        reach = float(np.hypot(dx, dy))
        if reach <= 0.5 * die:
            continue  # a flat die's sides shorter than half its face: no face of it to read below the top
        sil = silhouette_of(frame, d, die, colour)
        if sil is not None and sil.reaches_behind(d.center, die, d.turn, np.array([-dx, -dy]) / reach):
            dice[i] = replace(d, value=None, confidence=0.0)
            problems[i] = "cocked: another face of it shows behind the top face"

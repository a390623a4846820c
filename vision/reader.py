"""Frame -> DiceReading: find the dice, read each top face, decide whether the throw counts.

Pure: a BGR uint8 array (and optionally a Calibration) in, a frozen DiceReading out. The reader says `ok`
only when every die it found was read with a legal pip layout, the count is the expected one and every die
rests inside the play polygon; otherwise `reroll` (a die off the board) or `unreadable`, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations
from typing import Protocol, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.model import Calibration
from vision import closeup, view
from vision.bodies import Body, segment
from vision.camera import BoardCamera
from vision.candidates import BARE_SPOTS, spot_clusters
from vision.change import Box, cores, grow, inside, new_share
from vision.colourpips import read_colour_face
from vision.darkpips import NO_SPOTS, LightPass, big_ones_pass, light_pass
from vision.dicenet import NO_DIE, DiceNet, Glance, NetRead
from vision.faces import Face, motion_smear, outline, read_face
from vision.focus import MAX_BLUR, frame_blur
from vision.lean import Silhouettes, refuse_faces_with_more_behind, refuse_open_sides
from vision.lightface import SIDE_PER_G, Down, Level, LightFace
from vision.look import DieLook
from vision.netcheck import (
    NET_ACCEPT,
    NET_NO_DIE,
    NET_NOT_A_DIE,
    NetReader,
    Remembering,
    apart,
    consult_net,
    hard,
    net_sure,
)
from vision.oblique import rectified
from vision.pipshape import slant, white
from vision.reading import DiceReading, Die, Verdict
from vision.scale import (
    READ_DIE,
    die_and_scale,
    resized,
    resized_boxes,
    resized_size,
    resized_within,
    restored,
    uncalibrated_pip_d,
)
from vision.scene import neutral_gains
from vision.sidepips import refuse_hidden_near_side, refuse_new_body, refuse_new_side_pips

U8 = NDArray[np.uint8]

# A die read with less confidence than this is not trusted for an `ok` verdict.
MIN_CONFIDENCE = 0.35
# Edge steepness across vs along the worst direction beyond which a die is smeared by motion. Dice read on
# the Byler photos (at rest) measure 1.02-1.44; a smear of 1/8 of a die's side already gives about 1.5.
MAX_SMEAR = 1.8
# An unread die closer than this (top-face sides) to a die read is that die seen again (see _drop_twins).
TWIN = 0.9
# Reading only where the table changed (read_dice's `changed`): the area where a die's centre may lie
# (vision/change.py's cores) grows by CHANGED_PAD dice into the window read, so that every pass sees a die
# whole with the board around it (the lean check looks up to 1.1 dice beyond a face's edge, vision/lean.py).
CHANGED_PAD = 1.5
ALIGN = 12  # a window's corner lies on multiples of this (pixels): see _windows
# Given the table before the throw, a die read is this throw's only where at least NEW_FACE of its top face's middle
# (within FACE_DISC of a side of its centre) is new since then (_drop_unchanged, vision/change.py new_share): the
# board's print read as a die (a red "A"'s counter as a red die's 1) is as it was or shaded, 0% new at the Pi unit's
# view; a die thrown shows its pips new at least, and the least new measured was a red 2 on red print, 19%.
FACE_DISC = 0.35
NEW_FACE = 0.05
# Read resized where the table changed, the frames are resized this many dice round each window (_read_resized).
WITHIN_PAD = 1.0



def calibrated_die_size(cal: Calibration | None, frame_wh: tuple[int, int]) -> float | None:
    """The calibrated die side in pixels of a frame of `frame_wh` (the calibration may be for another size)."""
    if cal is None or not cal.die_size_px:
        return None
    cw, _ = cal.image_size
    return float(cal.die_size_px) * (frame_wh[0] / cw if cw else 1.0)


def _polygon(cal: Calibration | None, frame_wh: tuple[int, int]) -> NDArray[np.float32] | None:
    if cal is None:
        return None
    return np.array(cal.play_polygon_in(frame_wh), np.float32).reshape(-1, 1, 2)


def _covered(xy: tuple[float, float], light: list[LightFace]) -> bool:
    """Whether a pip-first face already accounts for the die centred at `xy`."""
    return any(np.hypot(xy[0] - f.centre[0], xy[1] - f.centre[1]) < 0.6 * f.side for f in light)


def _candidate_faces(frame: U8, seg_bodies: tuple[Body, ...], die: float, light: list[LightFace],
                     net: NetReader, look: DieLook | None = None, valleys: bool = False) -> list[tuple[Body, Face]]:
    """Each die-sized body's face. `valleys` (uncalibrated): the colour reader's packed pips measured to the
    valleys between them, as the pip passes' are (pips.VALLEY_ELONG)."""
    todo: list[tuple[Body, Square, float, bool]] = []
    for b in seg_bodies:
        side = max(float(np.sqrt(b.area)), 0.5 * (b.size[0] + b.size[1]))
        if side < 0.5 * die or side > 2.0 * die:
            continue
        if _covered(b.center, light):
            continue  # already read from its pips: reading its body too (the costly part) would be wasted
        if look is not None and look.unlike(frame, b.center, side, die):
            continue  # not the colour of this table's dice: the board's letters, squares, tokens
        raw = (b.center, side, b.angle)
        split = b.split
        # The blob's outline is smoothed by morphology and may carry a shadow: re-find the die locally.
        tight = outline(frame, b.center, side, die)
        if tight is not None and (not b.split or tight[1][0] * tight[1][1] < 1.3 * die * die):
            b = Body(tight[0], tight[1], tight[2], False, tight[1][0] * tight[1][1], b.overlap)
            side = 0.5 * (tight[1][0] + tight[1][1])
        todo.append((b, raw, side, split))
    # One batch for the net (remembered: consult_net asks again at the same centres).
    reads = net.read(frame, [b.center for b, _, _, _ in todo], die)
    out = []
    for (b, raw, side, split), n in zip(todo, reads, strict=True):
        if b.overlap:
            face = Face(None, 0.0, "stacked or overlapping dice", (b.center,))
        else:
            w, h = b.size
            squarish = min(w, h) > 0 and max(w, h) / min(w, h) < 1.35
            face = _read_body(frame, raw, (b.center, side, b.angle), split, n, look.dark_pips if look else None,
                              squarish, valleys)
            if face.value in (2, 3) and not squarish:
                # Two or three pips lie on a line, whose slant cannot be measured: on an oblong body they may
                # be a side face seen obliquely (the simulated camera's stacked pair, seed 93: the lower
                # die's side face, cut from the top die by carving, read as a 3).
                face = Face(None, 0.0, "a 2 or 3 on an oblong body: maybe a side face at a slant", face.pips)
            if (face.value is not None or squarish) and motion_smear(frame, b.center, side) > MAX_SMEAR:
                # Smeared pips may vanish altogether: a smeared die-shaped blob still counts as a die.
                face = Face(None, 0.0, "motion blur", face.pips or (b.center,))
        out.append((b, face))
    return _dedupe(out, die)


Square = tuple[tuple[float, float], float, float]  # centre, side, angle (degrees)


def _read_body(frame: U8, blob: Square, tight: Square, split: bool, n: NetRead,
               dark_pips: bool | None = None, squarish: bool = False, valleys: bool = False) -> Face:
    """A die's face from its body: pips in any colour channel (around the segmented blob: the colour
    reader finds the die's outline itself, and a tight outline that lost part of the die let it read 6s
    as 4s), else the Lab-contrast reader (around the tight outline). Two values read must agree.

    On a part cut out of a larger blob, a Lab read of 1-3 pips is not trusted: a die cut in two reads as two
    such faces (a 6 as two 3s, a 2 as two 1s; Byler: 5 of 8 wrong values), while the colour reader, whose
    window takes in the whole die, is.

    The colour reader is the costly part of a frame's read (eight morphological maps per die), and is not
    run where a third opinion adds nothing, where its answer could not change the verdict, or where the net
    is sure there is no die at all:
    - the Lab reader and the net (`n`) agree, the net sure: the face has the surer one's confidence, as a die
      the net reads alone has the net's;
    - the net sees no die's top face (>= NET_NO_DIE) where the Lab reader found pips: consult_net refuses
      any value read there, so the body is an unreadable die whatever the colour reader says;
    - the net is sure there is no die (>= NET_NOT_A_DIE) where the Lab reader found nothing pip-like: the
      body stays pipless and is passed over, where pips the colour reader found would have made it an
      unreadable die;
    - the Lab reader found no value for no physical reason (not cocked, stacked, smeared) on a square body
      (`squarish`), and the net is sure of one: consult_net gives the die the net's value. Held out on Byler
      the colour reader was asked 813 times; in 506 of them this was the case, and it read the net's value
      (155) or nothing (351), never another value: its answer changed the die's confidence only. An oblong
      body is still read (a 2 or 3 there is refused, _candidate_faces), as is a Lab refusal for a physical
      reason (which a colour read overrules).
    Byler, held out, against the colour reader always run: the same reads, bar 4 more dice read (all right:
    Lab reads below MIN_CONFIDENCE that now carry the net's confidence), and 13% less time per 640x640
    photo (58.6 -> 51.1 ms); the simulated camera's verdicts over 240 throws of each kind are unchanged."""
    lab = read_face(frame, *tight)
    if split and lab.value is not None and lab.value <= 3:
        lab = Face(None, 0.0, "a part of a larger blob read as a face of 3 or fewer pips", lab.pips)
    if lab.value is not None and n.value == lab.value and net_sure(n, NET_ACCEPT):
        return replace(lab, confidence=max(lab.confidence, n.confidence))
    if n.probs[NO_DIE] >= (NET_NO_DIE if lab.value is not None or lab.pips else NET_NOT_A_DIE):
        return lab
    if squarish and lab.value is None and not hard(lab.reason) and net_sure(n, NET_ACCEPT):
        return lab  # consult_net gives it the net's value
    col = read_colour_face(frame, *blob, dark_pips=dark_pips, valleys=valleys)
    if col.value is not None and lab.value is not None and col.value != lab.value:
        return Face(None, 0.0, "the face's pips read two ways", col.pips)
    if col.value is not None and hard(lab.reason) and not (n.value == col.value and net_sure(n, NET_ACCEPT)):
        # The Lab reader measured the top face at a slant (M.DICE.2): the colour reader's value overrules that
        # only where the net is sure of the same value. A red 6 leaning 53 degrees (bench/refusals.py, squash
        # 0.6, turned 70) was read a 4 from four of its pips, the net backing 4 at 0.52 only.
        return Face(None, 0.0, lab.reason, col.pips)
    if col.value is not None:
        return col
    return lab


def _dedupe(found: list[tuple[Body, Face]], die: float) -> list[tuple[Body, Face]]:
    """Two candidates closer than half a die are one die seen twice (a blob cut in two): keep the better."""
    def rank(bf: tuple[Body, Face]) -> tuple[bool, float, int]:
        return (bf[1].value is not None, bf[1].confidence, len(bf[1].pips))

    ranked = sorted(found, key=rank, reverse=True)
    return [ranked[i] for i in apart([b.center for b, _ in ranked], 0.5 * die)]


@dataclass(frozen=True)
class _Window:
    """A part of the frame read on its own: where the table changed, with room around it (see read_dice)."""

    box: Box
    cores: tuple[Box, ...] | None  # a candidate counts only if centred in one of these (None: anywhere)

    @property
    def offset(self) -> tuple[int, int]:
        return self.box[0], self.box[1]

    def holds(self, xy: tuple[float, float]) -> bool:
        """Whether a candidate centred at `xy` (window pixels) is this window's to read."""
        return self.cores is None or inside((xy[0] + self.box[0], xy[1] + self.box[1]), self.cores)


def _windows(changed: Sequence[Box], die: float, w: int, h: int) -> list[_Window]:
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
    return [_Window((b[0] - b[0] % ALIGN, b[1] - b[1] % ALIGN, b[2], b[3]), core) for b, core in wins]


class _Shifted:
    """The net asked about a window's points, answered from the whole frame (a crop near the window's edge
    sees what is beyond it, and the answers are remembered across windows and passes)."""

    def __init__(self, net: NetReader, frame: U8, offset: tuple[int, int]) -> None:
        self.net, self.frame, self.offset = net, frame, offset

    def read(self, frame: U8, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
        ox, oy = self.offset
        return self.net.read(self.frame, [(x + ox, y + oy) for x, y in centres], die)


@dataclass
class _Part:
    """One window's pixels and what the pip-first passes found in it (faces in window pixels)."""

    win: _Window
    bgr: U8
    gray: U8
    grey: LightPass
    faces: list[LightFace]
    down: Down | None
    level: Level | None
    before: U8 | None = None  # the window of the table before the throw (read_dice), if given
    gray_before: U8 | None = None  # ... in grey, where the grey pass took it already

    def plane_before(self, channel: int | None) -> U8 | None:
        """The table before's grey (channel None) or colour plane of this window, as the inverted passes take
        it (turned over), if given."""
        if self.before is None:
            return None
        if channel is not None:
            plane = self.before[..., channel]
        elif self.gray_before is not None:
            plane = self.gray_before
        else:
            plane = np.asarray(cv2.cvtColor(self.before, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
        return np.ascontiguousarray(255 - plane)


_R = TypeVar("_R")


def _at(fn: Callable[[tuple[float, float]], _R], off: tuple[int, int]) -> Callable[[tuple[float, float]], _R]:
    """`fn` of frame points, taking a window's points instead."""
    if off == (0, 0):
        return fn
    return lambda xy: fn((xy[0] + off[0], xy[1] + off[1]))


def read_dice(frame: U8, calibration: Calibration | None = None, expect: int | None = 2, *,
              net: DiceNet | None = None, changed: Sequence[Box] | None = None,
              before: U8 | None = None) -> DiceReading:
    """Read the dice in one frame. `expect` is the number of dice in a throw (None: any number).

    `net` is the dice net to check and complete the pip readers with (default: the shipped model, trained on
    every Byler photo); the photo tests pass the one fold model that never saw the photo.

    `changed`: boxes (x0, y0, x1, y1 in frame pixels, vision/change.py) where the frame differs from how the
    table looked before the throw; the roll watcher passes them. Only there is anything read: a thrown die
    rests where the table changed, and the rest of the board (its lettering, pieces and houses, which the
    body-first pass would otherwise read one by one where a throw is not two plain dice) is left alone.
    Needs a calibration with a die size (the windows are measured in dice).

    `before`: the table as the same camera saw it before the throw (the roll watcher passes it; black where it is
    not known). Calibrated with the board's homography, a die is refused as cocked where pips of a side face show
    beside its top face that were not there before, or where the side face a flat die shows the camera is the table
    as it was, or, with light pips, its body (vision/sidepips.py); the lean check does not take spots that were
    there for a side face's pips (vision/darkpips.py SpotsBefore); and a die read on what is as it was (the board's
    print) is no die of the throw (_drop_unchanged). Far from overhead the table before is read from above with the
    frame (vision/oblique.py).

    Dice larger than the reader's working size are read on the frame shrunk to it (vision/scale.py): a
    phone's photo reads as fast and as well as a camera's frame; dice smaller than the development photos'
    are read on the frame enlarged. Dice and boxes stay in `frame`'s pixels. Uncalibrated, a close-up (dice
    of a fifth of the frame's short side or more) is read again at its dice's size where the usual read shows
    one (vision/closeup.py), and a photo taken at a slant, where three dice or more agree on how the view
    squashes them, with that squash undone (vision/view.py)."""
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError("read_dice wants a BGR uint8 frame (H x W x 3)")
    if frame.size == 0:
        raise ValueError(f"read_dice: the frame is empty ({frame.shape[1]}x{frame.shape[0]} pixels)")
    if expect is not None and (isinstance(expect, bool) or not isinstance(expect, (int, np.integer)) or expect < 1):
        raise ValueError(f"read_dice: expect is a number of dice, 1 or more, or None for any, not {expect!r}")
    if before is not None and (before.shape != frame.shape or before.dtype != np.uint8):
        raise ValueError(f"read_dice: the frame before the throw ({'x'.join(map(str, before.shape))} {before.dtype}) "
                         f"is not shaped as the frame ({'x'.join(map(str, frame.shape))} uint8)")
    h, w = frame.shape[:2]
    if calibration is not None:
        calibration.check_frame((w, h))  # (a calibration scales to frames of its own shape only)
    hint = calibrated_die_size(calibration, (w, h))
    if calibration is not None and calibration.homography and hint:
        # A camera far from overhead: read from above (vision/oblique.py).
        cam = _camera_of(calibration, (w, h), hint)
        rect = rectified(calibration, cam, (w, h))
        if rect is not None:
            boxes = None if changed is None else rect.boxes(changed)
            # (Where the table changed, the table before is warped only round it: the windows read reach CORE +
            # CHANGED_PAD dice past each box, and the checks half a die past a die at a window's edge.)
            was, die = before, rect.calibration.die_size_px
            if before is not None:
                was = rect.work(before) if boxes is None or not die else rect.work_within(before, boxes,
                                                                                         (CHANGED_PAD + 1) * die)
            return _in_focus(frame, rect.restored(_read_frame(rect.work(frame), rect.calibration, expect, net, boxes,
                                                              rect.calibration.die_size_px, camera=rect.camera,
                                                              before=was)), hint, calibration)
    if calibration is None:
        # A photo taken at a slant: read again with the squash its dice agree on undone (vision/view.py).
        return view.reread(frame, _read_as_taken(frame, None, expect, net, changed),
                           lambda work: _read_as_taken(work, None, expect, net, changed), MIN_CONFIDENCE)
    return _in_focus(frame, _read_as_taken(frame, calibration, expect, net, changed, before), hint, calibration)


def _in_focus(frame: U8, reading: DiceReading, die: float | None, calibration: Calibration) -> DiceReading:
    """`reading`, or where it is `ok` and the picture at its dice is softer than the lean checks were shown to hold
    at (vision/focus.py), the throw refused (M.DICE.2: whether a die leans cannot be told). Calibrated reads only
    (uncalibrated, the lean checks that a soft lens defeats are not made), and not for dice calibrated with light
    pips, whose lean checks go by the die's colour, which blur does not take away (the simulated camera, red and
    black dice blurred up to 2 px: no wrong `ok`)."""
    look = DieLook.of(calibration)
    if die is None or reading.verdict is not Verdict.OK or (look is not None and not look.dark_pips):
        return reading
    blur = frame_blur(frame, reading.dice, die)
    if blur is None or blur <= MAX_BLUR:
        return reading
    why = f"blur {blur:.3f} of a die's side, the checks hold to {MAX_BLUR}"
    return DiceReading(Verdict.UNREADABLE,
                       f"the picture is too soft to tell a leaning die ({why}): focus the camera, or bring it nearer",
                       reading.dice)


def _read_as_taken(frame: U8, calibration: Calibration | None, expect: int | None, net: DiceNet | None,
                   changed: Sequence[Box] | None, before: U8 | None = None) -> DiceReading:
    """`frame` read at the scale its dice call for (vision/scale.py), not rectified."""
    hint = calibrated_die_size(calibration, (frame.shape[1], frame.shape[0]))
    die, scale = die_and_scale(frame, hint, camera=bool(calibration and calibration.homography))
    if scale == 1.0:
        reading = _read_frame(frame, calibration, expect, net, changed, die, before=before)
    else:
        assert die is not None  # (a frame is read resized only for a die of known size)
        reading = _read_resized(frame, scale, die, calibration, expect, net, changed, before=before)
    if calibration is None:
        # Uncalibrated, a close-up's dice may be larger than anything the frame was read for (vision/closeup.py):
        # read as holding dice of `size` px, shrunk so that they measure READ_DIE, the body finder told so too
        # (in a frame so small, its own measure would pass over dice that large again).
        return closeup.reread(frame, reading, die, lambda size: _read_resized(frame, READ_DIE / size, size, None,
                                                                              expect, net, None, body_die=True))
    return reading


def _read_resized(frame: U8, scale: float, die: float, calibration: Calibration | None, expect: int | None,
                  net: DiceNet | None, changed: Sequence[Box] | None, *, body_die: bool = False,
                  before: U8 | None = None) -> DiceReading:
    """`frame` read resized by `scale`, its dice measuring `die` px as taken (`body_die`: that size given to
    the body finder too), the dice and boxes in `frame`'s pixels; `before`, the table before the throw, alike."""
    sw, sh = resized_size(frame, scale)
    fx, fy = sw / frame.shape[1], sh / frame.shape[0]
    boxes = None if changed is None else resized_boxes(changed, fx, fy, (sw, sh))
    size = die * 0.5 * (fx + fy)
    hint = calibrated_die_size(calibration, (sw, sh))
    if boxes is None or not hint:
        work = resized(frame, scale)[0]
        was = None if before is None else resized(before, scale)[0]
    else:
        # Where the table changed only that is read (_read_frame's windows), with room round it for the checks
        # that look past a die (a die's silhouette, its side faces' pips: within a die of its window's edge):
        # only there are the frame and the table before resized (the simulated table's throws at 1920x1440, where
        # the windows cover half the frame: 20.8 -> 15.2 ms a read on the median; docs/vision.md).
        parts = [grow(win.box, WITHIN_PAD * hint, (sw, sh)) for win in _windows(boxes, hint, sw, sh)]
        work = resized_within(frame, scale, parts)
        was = None if before is None else resized_within(before, scale, parts)
    return restored(_read_frame(work, calibration, expect, net, boxes, size, body_die=size if body_die else None,
                                before=was), fx, fy)


class ViewCamera(Protocol):
    """Where a flat die's side faces show and how its top face is squashed, at a point of the frame read."""

    def down(self, top_xy: tuple[float, float]) -> tuple[float, float]: ...

    def level(self, top_xy: tuple[float, float]) -> NDArray[np.float64]: ...


def _read_frame(frame: U8, calibration: Calibration | None, expect: int | None, net: DiceNet | None,
                changed: Sequence[Box] | None, measured: float | None = None,
                camera: ViewCamera | None = None, body_die: float | None = None,
                before: U8 | None = None) -> DiceReading:
    """`measured`: the die size in `frame`'s pixels that chose its scale (vision/scale.py: the calibrated one,
    else as measured in the frame), if any. `camera`: the view's camera where the calibration (of a frame
    read rectified, vision/oblique.py) carries no homography to pose one from. `body_die`: the die size the
    body finder works at, uncalibrated, where it is known (a close-up); else it measures the frame. `before`:
    the table before the throw (read_dice)."""
    h, w = frame.shape[:2]
    hint = calibrated_die_size(calibration, (w, h))
    # Uncalibrated, the pip passes' scale comes from the frame's size, as the reader was developed, unless
    # the die measured in the frame is far from it: a wide view holds small dice, a tight crop large ones.
    # (The measured die alone, everywhere, was tried and not kept: see docs/vision.md.)
    pip_d = None if hint else uncalibrated_pip_d(measured, w, h)
    if changed is not None and not hint:
        raise ValueError("read_dice: reading only where the table changed needs a calibration with a die size")
    poly = _polygon(calibration, (w, h))
    # Light dice with dark pips first (white dice, the usual kind): pips, a legal layout, a light face.
    # With the board's homography, where a flat die's side faces can show: a leaning die shows others.
    cam: ViewCamera | None = camera
    if cam is None and calibration is not None and calibration.homography and hint:
        cam = _camera_of(calibration, (w, h), hint)
    reader = Remembering(net or DiceNet.shipped())
    g_known = hint / SIDE_PER_G if hint else None
    windows = [_Window((0, 0, w, h), None)] if changed is None else _windows(changed, hint or 0.0, w, h)
    # With the dice's look calibrated, pips darker than the body are the grey pass's to find, lighter ones
    # the inverted passes' (below): the other kind is something else's (vision/look.py).
    look = DieLook.of(calibration) if hint else None
    light_pips = look is not None and not look.dark_pips
    # ... and the inverted passes read lone light pips (1s) too: with the die's size known, as the grey pass
    # does, rather than leave every 1 to the body pass (the simulated camera, red dice, seeds 40-119: plain
    # throws read 67 -> 72 of 80). Not read from above (`camera`): there a leaning die turns a face towards
    # the camera that looks flat, and a lone light pip's slant is not measured (vision/pipshape.py measures
    # dark pips on white faces): at 50 degrees two cocked throws of 40 with black dice were `ok`s.
    light_ones = light_pips and camera is None
    parts: list[_Part] = []
    for win in windows:
        x0, y0, x1, y1 = win.box
        sub = frame if changed is None else np.ascontiguousarray(frame[y0:y1, x0:x1])
        gray = np.asarray(cv2.cvtColor(sub, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
        down = _at(cam.down, win.offset) if cam else None
        level = _at(cam.level, win.offset) if cam else None
        was = None if before is None or cam is None else before if changed is None else before[y0:y1, x0:x1]
        # Near overhead, given the table before, the grey pass's lean check passes over the board's spots that were
        # there (darkpips.SpotsBefore), as the inverted passes' does: a flat die beside a hotel's corner or a board
        # line's end is no longer taken for leaning (the simulated camera at 960x720, plain throws seeds 0-79: 72 ->
        # 76 read). With them left out it also looks for a narrow side face's pips, as read from above (vision/lean.py
        # _narrow_side), which without the table before the board's lines along a flat die's edge measured so (the
        # Pi unit's view, white plain throws seeds 1-95, 93 -> 91 read): near overhead a die leaning 15 degrees,
        # seeds 20-49 at 0, 8 and 18 degrees, 32 -> 27 `ok`s of 90. Not read from above: there the same made two
        # dice leaning 15 degrees of 240 `ok`s (seeds 20-59 at 35 and 45 degrees), whose refusals had rested on the
        # board's print beside them.
        grey_before = None if was is None or camera is not None or light_pips else np.ascontiguousarray(
            cv2.cvtColor(was, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
        grey = LightPass((), NO_SPOTS) if light_pips else light_pass(
            gray, g_known, sub, down, level=level, pip_d=pip_d, narrow=camera is not None or grey_before is not None,
            above=camera is not None, before=grey_before)
        parts.append(_Part(win, sub, gray, grey, [f for f in grey.faces if win.holds(f.centre)], down, level, was,
                           grey_before))
    # 1s marked by one large pip (Japanese dice: vision/darkpips.py, BIG_ONE_R), where the grey pass did not
    # find every die the throw should have. Calibrated only: uncalibrated, on the Byler photos (none of whose
    # 1s is large), the search found 1s where no die is (32 photos fewer read right, coverage 91.7% -> 87.9%).
    if g_known and not light_pips and not _count_met(hint, expect, parts):
        for p in parts:
            p.faces += [f for f in big_ones_pass(p.gray, g_known, p.grey, p.bgr, p.down) if p.win.holds(f.centre)]
    # Light pips on dark or coloured dice: the same reader on the inverted grey image (pips become dark
    # spots on a light face). Byler: 297 of 298 such faces of 2-6 pips right, none off a die; its lone
    # pips (1s) were not precise enough and are left to the body-first pass. Then the same on the red and
    # green planes, inverted: red, yellow and white pips on black, blue, teal or green dice stand out there
    # more than in grey (Byler: +42 dice read, none wrong; the blue plane added none, and dark-pip passes on
    # single planes misread 2-7 faces, so they are not run). A face already found in an earlier plane wins.
    # Calibrated, once a pass has found the dice the throw should have at the calibrated size, they are
    # trusted to be all there is (as for the body-first pass below): the other planes are not read.
    # With the dice's look calibrated as dark pips on a light body, light pips are something else's.
    if not (look is not None and look.dark_pips):
        for channel in (None, 2, 1):  # grey, red, green
            if _count_met(hint, expect, parts):
                break
            for p in parts:
                plane = p.gray if channel is None else p.bgr[..., channel]
                # (The grey plane's noise floors, where its pass ran, are the inverted plane's: scene.noise_sigma.)
                known = p.grey.floors if channel is None and not light_pips else None
                more = light_pass(np.ascontiguousarray(255 - plane), g_known, None, p.down, ones=light_ones,
                                  level=p.level, pip_d=pip_d, colour=p.bgr, before=p.plane_before(channel),
                                  floors=known, narrow=camera is not None, above=camera is not None,
                                  others=p.faces).faces
                p.faces += [f for f in more if p.win.holds(f.centre) and all(
                    np.hypot(f.centre[0] - o.centre[0], f.centre[1] - o.centre[1]) >= 0.8 * max(f.side, o.side)
                    for o in p.faces)]
    dice: list[Die] = []
    problems: list[str] = []
    marks: list[int] = []  # pip-like marks the pip readers saw on each die, read or not
    for p in parts:
        for f in p.faces:
            dice.append(_light_die(f, poly, p.win.offset))
            problems.append(f.reason)
            marks.append(len(f.pips))
    sides = [f.side for p in parts for f in p.faces]
    unit = float(np.median(sides)) if sides else (hint or 0.0)
    outline_size = hint or 0.0  # a die's visible outline (side faces and all), as the net's crops are scaled
    pipless: list[Die] = []  # die-sized bodies with nothing pip-like to the pip readers: the net may read them
    groups: list[Die] = []  # groups of loose dark spots (uncalibrated): the net may read them
    # Dice of other colours (and light dice the pip-first pass could not place) from their bodies: only
    # when the light pass has not already accounted for every die the throw should have.
    # Calibrated, the pip-first pass's dice at the calibrated size are trusted to be all there is once
    # the count is met (uncalibrated, the body-first pass still looks: on Byler skipping it turned one
    # throw with a missed die from `unreadable` into a wrong `ok`).
    if not _count_met(hint, expect, parts):
        for p in parts:
            off = p.win.offset
            seg = segment(p.bgr, hint or body_die, expect)
            unit = unit or seg.die_size
            outline_size = seg.die_size
            bodies = tuple(b for b in seg.bodies if p.win.holds(b.center))
            if p.before is not None and camera is None and hint:
                # Given the table before the throw, a body whose middle did not change since then is no die of
                # this throw (_drop_unchanged drops what is read there): not read. Read whole, most of a board's
                # bodies are its lettering, houses and pieces, each read and asked of the net.
                bodies = tuple(b for b in bodies if new_share(p.bgr, p.before, b.center, FACE_DISC * hint) >= NEW_FACE)
            net_here = reader if changed is None else _Shifted(reader, frame, off)
            for body, face in _candidate_faces(p.bgr, bodies, seg.die_size, p.faces, net_here, look,
                                               valleys=not hint):
                if face.value is None and not face.pips:
                    # Nothing pip-like to the pip readers: a die-sized blob that may not be a die (a marker, a
                    # token, a stain); it counts only if the net reads a die there.
                    pipless.append(_body_die(body, face, poly, off))
                    continue
                if _covered(body.center, p.faces):
                    continue  # the same die, already read from its pips
                dice.append(_body_die(body, face, poly, off))
                problems.append(face.reason)
                marks.append(len(face.pips))
            # Dark spots in tight groups that no die found accounts for (vision/candidates.py): a die whose
            # body did not stand out and whose pips no layout fitted. Like the re-centring search
            # (consult_net), only where the die's size and the pips' scale are guesses: calibrated, the
            # passes work at the known size, and on the simulated board the searches found board lettering
            # and grid crossings (ten groups a stacked throw), tripling its time for one more throw read
            # right in 960.
            if not hint:
                taken = [(d.center[0] - off[0], d.center[1] - off[1]) for d in dice + pipless]
                groups += [Die(None, (xy[0] + off[0], xy[1] + off[1]), 0.0,
                               _on_board(poly, (xy[0] + off[0], xy[1] + off[1])), 0.0)
                           for xy in _spot_groups(p.bgr, p.grey, seg.die_size, taken)]
    if dice or pipless or groups:
        # (Uncalibrated, the re-centring search chooses its points by one view of each crop and takes both views'
        # read at the point chosen: vision/netcheck.py recentre. A stand-in net, as the tests pass, answers the
        # search itself.)
        glance = Remembering(Glance(reader.net)) if not hint and isinstance(reader.net, DiceNet) else None
        consult_net(reader, frame, outline_size, dice, problems, marks, pipless, groups, search=not hint, glance=glance,
                    keep_unread=expect is None, read_pipless=not (look is not None and look.dark_pips))
    if cam is None or camera is not None:
        # With the board's homography a leaning die is refused where its side faces show (vision/camera.py:
        # the simulated camera's cocked throws, 240 of 240), and the perspective squashes flat dice's pips;
        # read from above (`camera`, vision/oblique.py) the perspective is undone and a flat die's pips are
        # round again, while the side faces, long on a steep view, no longer tell a lean (two leaning 2s at
        # 35 degrees and one at 45 were `ok`s without this).
        _refuse_slanted(frame, dice, problems, outline_size or unit)
    if camera is not None and light_pips:
        refuse_faces_with_more_behind(frame, dice, problems, camera.down, hint or unit,
                                      calibration.die_color_bgr if calibration else None)
    if cam is not None:
        _drop_side_faces(dice, problems, cam, unit, expect)
    sils = None
    if cam is not None and camera is None and light_pips and calibration and calibration.die_color_bgr:
        # Near overhead, where a leaning die's open side face lies too close to its top face for the lean
        # check's pips: its body (vision/lean.py).
        sils = Silhouettes(frame, hint or unit, calibration.die_color_bgr)
        refuse_open_sides(frame, dice, problems, cam.down, hint or unit, calibration.die_color_bgr, sils,
                          before, calibration.pip_color_bgr)
    if cam is not None and before is not None:
        # ... and from the table before the throw: the side face's pips are new there (white dice, whose side
        # face the board hides, and the rest). Read from above too (the simulated camera 35 degrees off vertical,
        # cocked throws seeds 1-280: a white die leaning on the hotel, seed 252, was `ok` without it).
        refuse_new_side_pips(frame, before, dice, problems, cam.down, hint or unit, light_pips, TWIN,
                             calibration.pip_color_bgr if calibration else None)
        if light_pips and calibration and calibration.die_color_bgr and camera is None:
            # (Light pips on a side face turned from the light are dim, and on a light board no darker than it
            # was: the side face's body tells, new since before. The simulated camera, seeds 20-49, one die
            # leaning: wrong `ok`s red 14 -> 2, black 7 -> 2 of 180; flat and touching pairs read the same.)
            refuse_new_body(frame, before, dice, problems, cam.down, hint or unit, calibration.die_color_bgr, TWIN,
                            sils)
            # (Not read from above: there it refused red and black plain throws at 35 degrees, seeds 1-40, 1 and 2
            # more, and no more cocked throws.)
        if calibration and calibration.die_color_bgr:
            # (A die leaning towards a camera off vertical hides the side face a flat die shows it: the simulated
            # camera at 18 degrees, seeds 20-49, one die leaning 25 degrees, red and black 2 wrong `ok`s of 180
            # each, white 4; read from above at 45 degrees, a red die leaning on the hotel, seed 63.)
            refuse_hidden_near_side(frame, before, dice, problems, cam.down, hint or unit, calibration.die_color_bgr,
                                    TWIN, light_pips)
        _drop_unchanged(frame, before, dice, problems, hint or unit)
    if expect is not None and hint:
        # Calibrated only. Uncalibrated, on the photos as other cameras take them, dropping twins turned two
        # photo reads with a die misread elsewhere (a dark 2 read as 3) into wrong oks: a stray unread die,
        # which refuses the throw, is a safety there that the known die size and look give calibrated.
        _drop_twins(dice, problems, unit, expect)
    # Reading order: top to bottom, then left to right, so "die 2" means the same die to a person.
    order = sorted(range(len(dice)), key=lambda i: (round(dice[i].center[1] / max(unit, 1.0)),
                                                   dice[i].center[0]))
    return _verdict(tuple(dice[i] for i in order), [problems[i] for i in order], expect)


def _spot_groups(bgr: U8, grey: LightPass, die: float, taken: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Centres of the groups of loose dark spots (vision/candidates.py) to ask the net about: groups of round
    spots, then groups of round and long spots (pips blurred together) away from those, of BARE_SPOTS or more.

    A soft lens or a small die merges a 6's rows into long spots: its two round corners alone are no group
    of three, and no layout fits (the pip pass needs a round diagonal pair). Grouped with the long spots too,
    the die is found; the net reads such 6s at 0.82-0.97. A second set, not every spot grouped at once: a
    neighbour's long spot joining a group of round ones moves its centre off the die, which lost two white
    dice the round group alone had read (soft focus: IMG_20191208_111246's 6, 111352's 1). Half a die is
    closer than two dice's centres can be. A group of the second set too wide for a face is grouped again from its
    strong spots (candidates.SIMILAR): a blurred die's bevel and its neighbours' edges link weakly into it."""
    found = [xy for xy, n in spot_clusters(grey.spots.xy, grey.spots.peak, die, taken)
             if n >= BARE_SPOTS or outline(bgr, xy, die, die) is not None]
    if len(grey.merged) == 0:
        return found
    both = grey.spots.joined(grey.merged)
    return found + [xy for xy, n in spot_clusters(both.xy, both.peak, die, taken, regroup=True)
                    if n >= BARE_SPOTS and all(np.hypot(xy[0] - o[0], xy[1] - o[1]) >= 0.5 * die for o in found)]


def _refuse_slanted(frame: U8, dice: list[Die], problems: list[str], die: float) -> None:
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


def _drop_side_faces(dice: list[Die], problems: list[str], cam: ViewCamera, unit: float,
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
      is); an unread one only where the throw then has its count exactly, as for twins (_drop_twins: "die 2
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


def _drop_twins(dice: list[Die], problems: list[str], unit: float, expect: int) -> None:
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


def _drop_unchanged(frame: U8, before: U8, dice: list[Die], problems: list[str], die: float) -> None:
    """Drop (in place) every die, read or not, whose top face is no part of this throw: within FACE_DISC of a
    side of its centre, less than NEW_FACE of it differs from the table before (vision/change.py new_share)."""
    keep = [i for i, d in enumerate(dice) if new_share(frame, before, d.center, FACE_DISC * die) >= NEW_FACE]
    if len(keep) < len(dice):
        dice[:] = [dice[i] for i in keep]
        problems[:] = [problems[i] for i in keep]


def _camera_of(calibration: Calibration, frame_wh: tuple[int, int], die: float) -> BoardCamera:
    """The board camera of a calibration with a homography, for frames of `frame_wh` with dice of `die` px."""
    assert calibration.homography is not None
    # (As tuples: a calibration built by hand may hold lists, which the cache cannot key on.)
    return _board_camera(tuple(tuple(r) for r in calibration.homography), tuple(calibration.image_size),
                         tuple(tuple(p) for p in calibration.board_polygon), frame_wh, die, calibration.focal_px)


@lru_cache(maxsize=8)
def _board_camera(homography: tuple[tuple[float, float, float], ...], cal_wh: tuple[int, int],
                  board_polygon: tuple[tuple[float, float], ...], frame_wh: tuple[int, int], die: float,
                  focal_px: float | None = None) -> BoardCamera:
    """The camera posed over the board, for frames of `frame_wh` (a table's frames all share one: kept).
    `focal_px`: the lens's focal length in the calibration's pixels, where the calibration knows it."""
    (cw, ch), (w, h) = cal_wh, frame_wh
    # The homography is for the calibration's frame size: rescale this frame's pixels to it first.
    to_cal = np.diag([cw / w if cw else 1.0, ch / h if ch else 1.0, 1.0])
    board = np.array(board_polygon, np.float64) * np.array([w / cw if cw else 1.0, h / ch if ch else 1.0])
    # The calibrated die size is the one at the board's centre (calibration.model).
    centre = (float(board[:, 0].mean()), float(board[:, 1].mean()))
    return BoardCamera(np.array(homography, np.float64) @ to_cal, (w, h), die, centre,
                       focal_px * w / cw if focal_px and cw else None)


def _count_met(hint: float | None, expect: int | None, parts: Sequence[_Part]) -> bool:
    return bool(hint) and expect is not None and sum(len(p.faces) for p in parts) >= expect


def _on_board(poly: NDArray[np.float32] | None, xy: tuple[float, float]) -> bool:
    return poly is None or cv2.pointPolygonTest(poly, (float(xy[0]), float(xy[1])), False) >= 0


def _light_die(f: LightFace, poly: NDArray[np.float32] | None, off: tuple[int, int] = (0, 0)) -> Die:
    """The die of a face read in a window at `off`, in frame pixels."""
    box = cv2.boxPoints((f.centre, (f.side, f.side), float(np.degrees(f.theta))))
    xy = (float(f.centre[0]) + off[0], float(f.centre[1]) + off[1])
    return Die(value=f.value, center=xy, confidence=f.confidence, on_board=_on_board(poly, xy), size=f.side,
               corners=tuple((float(x) + off[0], float(y) + off[1]) for x, y in box))


def _body_die(body: Body, face: Face, poly: NDArray[np.float32] | None, off: tuple[int, int] = (0, 0)) -> Die:
    """The die of a body read in a window at `off`, in frame pixels."""
    box = cv2.boxPoints((body.center, body.size, body.angle))
    xy = (float(body.center[0]) + off[0], float(body.center[1]) + off[1])
    return Die(value=face.value, center=xy, confidence=face.confidence, on_board=_on_board(poly, xy),
               size=float(np.sqrt(body.area)), corners=tuple((float(x) + off[0], float(y) + off[1]) for x, y in box))


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

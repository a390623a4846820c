"""Frame -> DiceReading: find the dice, read each top face, decide whether the throw counts.

Pure: a BGR uint8 array (and optionally a Calibration) in, a frozen DiceReading out. The reader says `ok`
only when every die it found was read with a legal pip layout, the count is the expected one and every die
rests inside the play polygon; otherwise `reroll` (a die off the board) or `unreadable`, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.model import Calibration
from vision import closeup, view
from vision.bodies import Body, segment
from vision.bodyread import candidate_faces, covered
from vision.camera import camera_of
from vision.candidates import BARE_SPOTS, spot_clusters
from vision.change import Box, grow, new_share
from vision.darkpips import NO_SPOTS, LightPass, big_ones_pass, light_pass
from vision.dicenet import DiceNet, Glance
from vision.faces import Face, outline
from vision.focus import Fault, frame_blurs, too_soft
from vision.lean import Silhouettes, refuse_faces_with_more_behind, refuse_open_sides
from vision.lightface import SIDE_PER_G, Down, Level, LightFace
from vision.look import DieLook
from vision.netcheck import Remembering, consult_net
from vision.oblique import rectified
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
from vision.sidepips import refuse_hidden_near_side, refuse_new_body, refuse_new_side_pips
from vision.throwchecks import (
    FACE_DISC,
    NEW_FACE,
    TWIN,
    ViewCamera,
    drop_side_faces,
    drop_twins,
    drop_unchanged,
    refuse_slanted,
)
from vision.windows import CHANGED_PAD, WITHIN_PAD, Shifted, Window, windows_for

U8 = NDArray[np.uint8]

# A die read with less confidence than this is not trusted for an `ok` verdict.
MIN_CONFIDENCE = 0.35


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


@dataclass
class _Part:
    """One window's pixels and what the pip-first passes found in it (faces in window pixels)."""

    win: Window
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
    there for a side face's pips (vision/spots.py SpotsBefore); and a die read on what is as it was (the board's
    print) is no die of the throw (drop_unchanged). Far from overhead the table before is read from above with the
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
        cam = camera_of(calibration, (w, h), hint)
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
    (uncalibrated, the lean checks that a soft lens defeats are not made). Softer in one direction than the lean
    checks hold at (a motion's smear), likewise. Dice calibrated with light pips are refused for more blur: their lean
    checks go by the die's colour too, which blur takes away more slowly (MAX_BLUR_LIGHT_PIPS, MAX_SMEAR_LIGHT_PIPS);
    for dice under the Pi unit's 26 px, less (vision/focus.py blur_limit, smear_limit)."""
    if die is None or reading.verdict is not Verdict.OK:
        return reading
    look = DieLook.of(calibration)
    soft = too_soft(*frame_blurs(frame, reading.dice, die), light_pips=look is not None and not look.dark_pips,
                    die=die)
    if soft is None:
        return reading
    # (A motion's smear softens the edges along it only, which the steepest edges do not show, and takes a leaning
    # die's side-face pips as a soft lens does: vision/focus.py too_soft.)
    m, most = f"{soft.measured:.3f}", f"{soft.limit:.3f}"
    reason = {
        Fault.SOFT: f"the picture is too soft to tell a leaning die (blur {m} of a die's side, the checks hold to "
                    f"{most}): focus the camera, or bring it nearer",
        Fault.SMEARED: f"the picture is smeared by motion (blur {m} of a die's side one way, the checks hold to "
                       f"{most}): hold the camera and the table still",
        Fault.SOFT_OR_SMEARED: f"the picture is soft or smeared at the dice (blur {m} of a die's side in its softest "
                               f"direction, the checks hold to {most}): focus the camera, and hold it and the table "
                               "still",
    }[soft.fault]
    return DiceReading(Verdict.UNREADABLE, reason, reading.dice)


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
        parts = [grow(win.box, WITHIN_PAD * hint, (sw, sh)) for win in windows_for(boxes, hint, sw, sh)]
        work = resized_within(frame, scale, parts)
        was = None if before is None else resized_within(before, scale, parts)
    return restored(_read_frame(work, calibration, expect, net, boxes, size, body_die=size if body_die else None,
                                before=was), fx, fy)


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
        cam = camera_of(calibration, (w, h), hint)
    reader = Remembering(net or DiceNet.shipped())
    g_known = hint / SIDE_PER_G if hint else None
    windows = [Window((0, 0, w, h), None)] if changed is None else windows_for(changed, hint or 0.0, w, h)
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
        # there (spots.SpotsBefore), as the inverted passes' does: a flat die beside a hotel's corner or a board
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
                # this throw (drop_unchanged drops what is read there): not read. Read whole, most of a board's
                # bodies are its lettering, houses and pieces, each read and asked of the net.
                bodies = tuple(b for b in bodies if new_share(p.bgr, p.before, b.center, FACE_DISC * hint) >= NEW_FACE)
            net_here = reader if changed is None else Shifted(reader, frame, off)
            for body, face in candidate_faces(p.bgr, bodies, seg.die_size, p.faces, net_here, look,
                                              valleys=not hint):
                if face.value is None and not face.pips:
                    # Nothing pip-like to the pip readers: a die-sized blob that may not be a die (a marker, a
                    # token, a stain); it counts only if the net reads a die there.
                    pipless.append(_body_die(body, face, poly, off))
                    continue
                if covered(body.center, p.faces):
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
        refuse_slanted(frame, dice, problems, outline_size or unit)
    if camera is not None and light_pips:
        refuse_faces_with_more_behind(frame, dice, problems, camera.down, hint or unit,
                                      calibration.die_color_bgr if calibration else None)
    if cam is not None:
        drop_side_faces(dice, problems, cam, unit, expect)
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
        drop_unchanged(frame, before, dice, problems, hint or unit)
    if expect is not None and hint:
        # Calibrated only. Uncalibrated, on the photos as other cameras take them, dropping twins turned two
        # photo reads with a die misread elsewhere (a dark 2 read as 3) into wrong oks: a stray unread die,
        # which refuses the throw, is a safety there that the known die size and look give calibrated.
        drop_twins(dice, problems, unit, expect)
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

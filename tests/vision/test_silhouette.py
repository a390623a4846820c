"""Coloured and dark dice with light pips on the product path: a board gap beside a die is no side face.

The lean check (vision/lean.py) takes a pip-like spot beyond a flat die's reach for a leaning die's
open side face; with light pips a light gap of board between the die and a line, a bar or lettering looks
like one, and plain throws were refused as cocked (the simulated camera: red dice 21 of 40 plain throws
read, black 28). vision/silhouette.py keeps only the spots on the die itself (M.DICE.2: a leaning die is
still refused)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.simcam import DICE_LOOKS, SimulatedCamera
from vision import Verdict, read_dice
from vision.silhouette import Silhouette, hue_apart, nearer_hue


def _throw(look: str, kind: str, seed: int, tilt: float = 18.0) -> tuple[np.ndarray, SimulatedCamera]:
    body, pip = DICE_LOOKS[look]
    cam = SimulatedCamera(seed=seed, script=[kind], hands=False, tilt_deg=tilt, die_bgr=body, pip_bgr=pip)
    return list(cam)[-1].image, cam


def _scene(body: tuple[int, int, int]) -> np.ndarray:
    """A die's top face (40 px) and its side face below it (14 px, darker, two light pips), beside a dark
    bar 6 px to its right, on a light board."""
    frame = np.full((200, 200, 3), (200, 215, 205), np.uint8)
    shaded = tuple(int(0.6 * c) for c in body)
    cv2.rectangle(frame, (80, 80), (119, 119), body, -1)
    cv2.rectangle(frame, (80, 120), (119, 133), shaded, -1)
    for x in (90, 109):
        cv2.circle(frame, (x, 127), 3, (150, 150, 150), -1)
    cv2.rectangle(frame, (126, 60), (140, 150), (30, 30, 30), -1)
    cv2.rectangle(frame, (120, 60), (140, 66), (30, 30, 30), -1)  # the bar's arm closing the gap from above
    return frame


def _clear(centre: tuple[float, float], g: float) -> np.ndarray:
    return np.array([(centre[0] + a * g, centre[1] + b * g) for a in (-0.5, 0.5) for b in (-0.5, 0.5)])


@pytest.mark.parametrize("body", [(40, 40, 190), (38, 36, 34)])
def test_a_pip_on_the_die_counts_and_a_gap_of_board_beside_it_does_not(body: tuple[int, int, int]) -> None:
    frame = _scene(body)
    spots = np.array([(90.0, 127.0), (109.0, 127.0), (123.0, 90.0), (160.0, 100.0)])
    sil = Silhouette.of(frame, (99.5, 99.5), 40.0, _clear((99.5, 99.5), 10.0))
    assert sil is not None
    got = sil.holds(spots)
    # Side-face pips (holes in the die's silhouette) yes; the board between the die and the bar, and the
    # open board, no.
    assert got.tolist() == [True, True, False, False]


def test_a_face_at_the_frames_edge_is_measured() -> None:
    frame = _scene((40, 40, 190))
    # The window is cut by the frame: the die in the corner still holds its side face's pip, not the board
    # nor a point off the window.
    corner = np.ascontiguousarray(frame[70:, 70:])
    sil = Silhouette.of(corner, (29.5, 29.5), 40.0, _clear((29.5, 29.5), 10.0))
    assert sil is not None
    assert sil.holds(np.zeros((0, 2))).shape == (0,)
    assert sil.holds(np.array([(20.0, 57.0), (29.5, 2.0), (129.5, 29.5)])).tolist() == [True, False, False]


@pytest.mark.parametrize("look, seed", [("red", 3), ("red", 4), ("black", 8), ("black", 9)])
def test_a_plain_throw_of_light_pipped_dice_beside_the_boards_lines_is_read(look: str, seed: int) -> None:
    # Refused as "cocked: a side face shows beside the top face" before: a gap of board next to a line,
    # a bar or the hotel, found by the inverted passes as a light spot.
    frame, cam = _throw(look, "ok", seed)
    r = read_dice(frame, cam.calibration(), expect=2)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(cam.throws[0].values)  # type: ignore[type-var]


@pytest.mark.slow
@pytest.mark.parametrize("look", ["red", "black"])
def test_light_pipped_dice_are_read_and_leaning_ones_refused(look: str) -> None:
    """Seeds 40-59 (the seeds looked at while developing were 0-39), measured 2026-11-27: plain throws
    red 19 and black 20 of 20 read right (before: 10 and 14), every cocked throw refused, no wrong `ok`."""
    read = 0
    for seed in range(40, 60):
        frame, cam = _throw(look, "ok", seed)
        r = read_dice(frame, cam.calibration(), expect=2)
        truth = sorted(cam.throws[0].values)  # type: ignore[type-var]
        assert r.verdict is not Verdict.OK or sorted(r.values) == truth, (seed, r.values)  # type: ignore[type-var]
        read += r.verdict is Verdict.OK
        frame, cam = _throw(look, "cocked", seed)
        r = read_dice(frame, cam.calibration(), expect=2)
        assert r.verdict is Verdict.UNREADABLE, (seed, r.verdict, r.values)
    assert read >= 18, read


@pytest.mark.parametrize("look", ["red", "black"])
def test_from_above_a_face_with_more_of_the_die_behind_it_is_not_taken_for_the_top(look: str) -> None:
    # 50 degrees off vertical, read from above: a flat 1's near side face (a 3) is read and the 1's lone
    # light pip is not; the die's body going on behind the 3 refuses it (a wrong `ok` (3, 4) for (1, 4)
    # once board gaps no longer refused it by chance).
    frame, cam = _throw(look, "ok", 93, tilt=50.0)
    r = read_dice(frame, cam.calibration(), expect=2)
    assert r.verdict is Verdict.UNREADABLE and "behind the top face" in r.reason, (r.verdict, r.reason, r.values)


def test_a_die_lying_flat_has_nothing_of_itself_behind_its_top_face() -> None:
    frame = _scene((40, 40, 190))
    sil = Silhouette.of(frame, (99.5, 99.5), 40.0, _clear((99.5, 99.5), 10.0))
    assert sil is not None
    # Away from the camera (up) there is board past the rim; towards it (down) the side face, 14 px of a
    # 40 px die, is too short to be more of the die behind a face.
    assert not sil.reaches_behind((99.5, 99.5), 40.0, 0.0, np.array([0.0, -1.0]))
    assert not sil.reaches_behind((99.5, 99.5), 40.0, 0.0, np.array([0.0, 1.0]))
    # The side face read as the face: the top face lies behind it.
    side = Silhouette.of(frame, (99.5, 126.5), 14.0, np.array([(86.0, 123.0), (113.0, 123.0), (99.5, 131.0)]))
    assert side is not None and side.reaches_behind((99.5, 126.5), 14.0, 0.0, np.array([0.0, -1.0]))


@pytest.mark.parametrize("seed", [46, 64])
def test_from_above_a_side_face_read_by_the_body_pass_is_refused(seed: int) -> None:
    """Red dice 50 degrees off vertical, read from above: a flat 1 whose lone pip no pass read, and whose
    body (top face and the large side face below it) the body pass and the net read by the side face's 3
    or 5 pips: the throw was a wrong `ok` ((3, 3) for (1, 3); (5, 6) for (6, 1)). Its silhouette, grown from
    the dice's calibrated red (the side face in shade is dark enough to pass for a black die's body), goes on
    behind the face read: refused, never a wrong roll."""
    body, pip = DICE_LOOKS["red"]
    cam = SimulatedCamera(seed=seed, script=["ok"], hands=False, tilt_deg=50.0, die_bgr=body, pip_bgr=pip)
    frame = list(cam)[-1].image
    (truth,) = cam.throws
    assert 1 in truth.values
    r = read_dice(frame, calibration=cam.calibration(), expect=2)
    assert r.verdict is not Verdict.OK, r.values


def test_a_silhouette_grows_from_the_calibrated_colour_where_given() -> None:
    """A red die's top face beside its side face in shade: grown from the shaded face's own colour (dark
    enough to count as a black die's), the silhouette stops at the brighter top; from the calibrated red it
    holds both."""
    img = np.full((120, 120, 3), (200, 215, 220), np.uint8)
    img[20:60, 30:70] = (40, 40, 190)  # top face
    img[60:95, 30:70] = (16, 16, 79)  # side face below it, in shade
    shade = np.array([[50.0, 78.0], [45.0, 80.0]])  # points on the side face
    own = Silhouette.of(img, (50.0, 78.0), 40.0, shade)
    calibrated = Silhouette.of(img, (50.0, 78.0), 40.0, shade, colour=(40, 40, 190))
    assert own is not None and calibrated is not None
    top = np.array([[50.0, 40.0]])
    assert not own.holds(top)[0]
    assert calibrated.holds(top)[0]


def test_a_shadow_keeps_the_boards_tint_and_a_white_dies_grey_its_own() -> None:
    """nearer_hue and hue_apart (vision/sidepips.py's near band, white dice): the pale green board's shadow points
    the board's way, a grey side face the white die's, at any light; a board of the die's own hue is not apart."""
    white = np.array((236, 238, 240), np.float32)
    board = np.array([(190, 205, 190), (190, 205, 190)], np.float32)
    now = np.array([(95, 103, 95), (140, 141, 142)], np.float32)  # the board at half its light; a grey
    assert nearer_hue(now, board, white).tolist() == [True, False]
    assert hue_apart(board, white, float(np.cos(np.radians(1.5)))).all()
    tray = np.array([(228, 230, 233)], np.float32)
    assert not hue_apart(tray, white, float(np.cos(np.radians(1.5)))).any()

"""M.DICE.2: a red or black die (light pips) leaning near overhead, told from the table before the throw by its body
(vision/sidepips.py refuse_new_body).

A side face turned from the light shows its light pips dimmer than the top face's, and on a light board no darker
than the board was, so the side-pip check finds little on such dice; their open side face is of the die's colour
where the table before had none. Synthetic frames for each rule, then the simulated camera's 3-D dice (seeds 0-19
chose NEW_BODY; the slow test reads seeds 50-59).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.simcam import DICE_LOOKS, SimulatedCamera
from tests.vision.simthrows import sim_table, sim_touching
from vision import Verdict, read_dice
from vision.reading import Die
from vision.sidepips import NEW_BODY_REASON, refuse_new_body

SIDE = 40.0
CENTRE = (200.0, 150.0)
RED = (40, 40, 190)
BLACK = (38, 36, 34)
SHADE = 0.5  # a side face turned from the light


def _table() -> np.ndarray:
    return np.full((300, 400, 3), (190, 205, 190), np.uint8)


def _die(img: np.ndarray, colour: tuple[int, int, int] = RED, at: tuple[float, float] = CENTRE) -> Die:
    """A flat 3 with light pips, square to the frame, drawn on `img` at `at`."""
    x, y, h = int(at[0]), int(at[1]), int(SIDE / 2)
    cv2.rectangle(img, (x - h, y - h), (x + h - 1, y + h - 1), colour, -1)
    for k in (-1, 0, 1):
        cv2.circle(img, (x + k * 11, y + k * 11), 4, (240, 240, 240), -1)
    corners = ((x - h, y + h), (x - h, y - h), (x + h, y - h), (x + h, y + h))
    return Die(3, at, 0.9, size=SIDE, corners=tuple((float(a), float(b)) for a, b in corners))


def _side_face(img: np.ndarray, colour: tuple[int, int, int] = RED, wide: int = 17) -> None:
    """A side face `wide` px past the die's right edge (17: 0.42 of a side, a 25-degree lean), in shade, a pip on
    it squashed so."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    cv2.rectangle(img, (x + h, y - h), (x + h + wide - 1, y + h - 1), tuple(int(SHADE * c) for c in colour), -1)
    cv2.ellipse(img, (x + h + wide // 2, y), (2, 4), 0, 0, 360, (150, 150, 150), -1)


def _refused(frame: np.ndarray, before: np.ndarray, die: Die, colour: tuple[int, int, int] = RED,
             others: tuple[Die, ...] = ()) -> bool:
    dice, problems = [die, *others], [""] * (1 + len(others))
    refuse_new_body(frame, before, dice, problems, lambda _xy: (0.0, 0.0), SIDE, colour)
    assert all(d.value is not None for d in dice[1:])
    return dice[0].value is None and problems[0] == NEW_BODY_REASON


@pytest.mark.parametrize("colour", [RED, BLACK])
def test_an_open_side_face_new_since_before_refuses_the_die(colour: tuple[int, int, int]) -> None:
    before = _table()
    frame = before.copy()
    die = _die(frame, colour)
    assert not _refused(frame, before, die, colour)  # flat: nothing of it past its edge
    _side_face(frame, colour)
    assert _refused(frame, before, die, colour)


def test_a_rim_within_the_bands_start_is_no_side_face() -> None:
    """A flat die's rounded rim and blur reach a few pixels past its edge: the band begins 0.1 of a side out."""
    before = _table()
    frame = before.copy()
    die = _die(frame)
    _side_face(frame, wide=3)
    assert not _refused(frame, before, die)


def test_the_boards_print_of_the_dies_colour_was_there_before() -> None:
    """A red property bar beside a red die, in the table before too; and where before is black (a die lay there:
    nothing known), nothing is new either."""
    before = _table()
    _side_face(before)
    frame = before.copy()
    die = _die(frame)
    assert not _refused(frame, before, die)
    frame = _table()
    die = _die(frame)
    _side_face(frame)
    blacked = _table()
    cv2.circle(blacked, (int(CENTRE[0]), int(CENTRE[1])), int(1.2 * SIDE), (0, 0, 0), -1)
    assert not _refused(frame, blacked, die)


def test_the_boards_print_a_little_off_since_before_is_still_the_print() -> None:
    """A camera knocked between the table before and the throw moves the board's print by a few pixels: a red bar
    against a flat red die, 3 px further out than before, is no new side face."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    before = _table()
    cv2.rectangle(before, (x + h - 3, y - h), (x + h + 9, y + h - 1), RED, -1)
    frame = _table()
    cv2.rectangle(frame, (x + h, y - h), (x + h + 12, y + h - 1), RED, -1)
    die = _die(frame)
    assert not _refused(frame, before, die)


def test_a_shadow_is_a_shade_of_what_was_there() -> None:
    """A black die's shadow falling on a dark red bar beside it makes the bar as dark as the die; the shadow keeps
    the bar's hue and half its light, a side face does not."""
    bar = (30, 30, 120)
    before = _table()
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    cv2.rectangle(before, (x + h, y - h), (x + h + 16, y + h - 1), bar, -1)
    frame = before.copy()
    die = _die(frame, BLACK)
    frame[y - h:y + h, x + h:x + h + 17] = (frame[y - h:y + h, x + h:x + h + 17] * 0.5).astype(np.uint8)
    assert int(frame[y, x + h + 8].max()) <= BLACK[0] + 35  # (as dark as the die's body: of its colour)
    assert not _refused(frame, before, die, BLACK)
    _side_face(frame, BLACK)
    assert _refused(frame, before, die, BLACK)


def test_another_die_beside_it_is_not_its_side_face() -> None:
    before = _table()
    frame = before.copy()
    die = _die(frame)
    other = _die(frame, at=(CENTRE[0] + 1.05 * SIDE, CENTRE[1]))
    assert not _refused(frame, before, die, others=(other,))


@pytest.mark.parametrize("gain", [0.8, 1.25])
def test_the_table_before_taken_at_another_exposure_changes_nothing(gain: float) -> None:
    """A camera's exposure may move between the table before and the throw: what was there scaled is a shade of
    it, not new."""
    before = _table()
    cv2.putText(before, "TABLESIDE", (100, 150), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (50, 50, 180), 4)
    other = np.clip(before.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    frame = before.copy()
    die = _die(frame)
    assert not _refused(frame, other, die)
    _side_face(frame)
    assert _refused(frame, other, die)


def _camera(tilt: float, look: str) -> SimulatedCamera:
    body, pip = DICE_LOOKS[look]
    return SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt, die_bgr=body, pip_bgr=pip)


@pytest.mark.parametrize(("look", "tilt", "seed", "lean"), [
    ("red", 8.0, 8, 25.0), ("red", 18.0, 15, 25.0),
    ("black", 8.0, 17, 35.0), ("black", 18.0, 11, 25.0), ("black", 18.0, 8, 25.0)])
def test_coloured_dice_leaning_near_overhead_are_refused_given_the_table_before(look: str, tilt: float, seed: int,
                                                                              lean: float) -> None:
    """The simulated camera, one die flat and one leaning, calibrated: accepted without the table before the throw
    and, before refuse_new_body, with it; refused by their body now. (Red, 0 degrees, seed 8 was one too, until the
    lean check took a 1's turn from its edges: tests/vision/test_side_pips.py.)"""
    frame, _, _, before = sim_table(tilt, seed, 1, 1, lean, look)
    cal = _camera(tilt, look).calibration()
    assert read_dice(frame, cal).verdict is Verdict.OK
    r = read_dice(frame, cal, before=before)
    assert r.verdict is Verdict.UNREADABLE and r.reason.endswith(NEW_BODY_REASON), r.reason


@pytest.mark.parametrize("look", ["red", "black"])
def test_flat_and_touching_coloured_dice_read_the_same_given_the_table_before(look: str) -> None:
    for tilt in (0.0, 18.0):
        cal = _camera(tilt, look).calibration()
        for seed in range(20, 26):
            frame, truth, _, before = sim_table(tilt, seed, 2, 0, 25.0, look)
            plain = read_dice(frame, cal)
            if plain.verdict is Verdict.OK:
                assert read_dice(frame, cal, before=before) == plain, (tilt, seed, truth)
            frame, values, before = sim_touching(tilt, seed, look)
            plain = read_dice(frame, cal)
            if plain.verdict is Verdict.OK:
                assert read_dice(frame, cal, before=before) == plain, (tilt, seed, values)


@pytest.mark.slow
def test_coloured_dice_leaning_near_overhead_held_out_seeds() -> None:
    """Seeds 50-59 (not seen choosing NEW_BODY), red and black dice, the camera 0, 8 and 18 degrees off vertical:
    one die flat and one leaning 25 or 35 degrees (120 throws), two flat and two touching (120). Measured
    2026-11-29 with the table before: wrong `ok`s 2 -> 0 (black 2 -> 0, red none either way); pairs read right 97
    -> 97, then 109 once the lean check no longer took the board's spots for a side face's (red 39 -> 51 of 60:
    red dice on red lettering; vision/spots.py SpotsBefore)."""
    wrong, right = 0, 0
    for look in ("red", "black"):
        for tilt in (0.0, 8.0, 18.0):
            cal = _camera(tilt, look).calibration()
            for seed in range(50, 60):
                for lean in (25.0, 35.0):
                    frame, _, _, before = sim_table(tilt, seed, 1, 1, lean, look)
                    wrong += read_dice(frame, cal, before=before).verdict is Verdict.OK
                frame, truth, _, before = sim_table(tilt, seed, 2, 0, 25.0, look)
                r = read_dice(frame, cal, before=before)
                right += r.verdict is Verdict.OK and sorted(r.values) == sorted(v for v, _, _ in truth)  # type: ignore[type-var]
                frame, values, before = sim_touching(tilt, seed, look)
                r = read_dice(frame, cal, before=before)
                right += r.verdict is Verdict.OK and sorted(r.values) == sorted(values)  # type: ignore[type-var]
    assert wrong == 0, wrong
    assert right >= 106, right

"""M.DICE.2: a white die leaning near overhead, told from the table before the throw (vision/sidepips.py).

A white die's open side face is the board's shade and hue, and the board's print makes pip-sized dark spots
beside any die; the table before the throw has the print and not the die, so a side face's pips are what is
new there. Synthetic frames for each rule, then the simulated camera's 3-D dice (seeds 0-19 chose the
constants; the slow test reads seeds 50-59).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from hardware.simcam import DICE_LOOKS, SimulatedCamera
from tests.vision.simthrows import sim_table, sim_throw_before, sim_touching
from vision import Verdict, read_dice, sidepips, silhouette
from vision.reading import Die
from vision.rim import square_turn
from vision.sidepips import refuse_new_side_pips

SIDE = 40.0
CENTRE = (200.0, 150.0)
REASON = "cocked: a side face's pips show beside the top face (not there before the throw)"


def _table() -> np.ndarray:
    board = np.full((300, 400, 3), 190, np.uint8)
    cv2.putText(board, "TABLESIDE", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (60, 60, 60), 3)
    return board


def _die(img: np.ndarray) -> Die:
    """A flat white 3, square to the frame, drawn on `img` at CENTRE."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    cv2.rectangle(img, (x - h, y - h), (x + h - 1, y + h - 1), (235, 235, 235), -1)
    for k in (-1, 0, 1):
        cv2.circle(img, (x + k * 11, y + k * 11), 4, (25, 25, 25), -1)
    corners = ((x - h, y + h), (x - h, y - h), (x + h, y - h), (x + h, y + h))
    return Die(3, CENTRE, 0.9, size=SIDE, corners=tuple((float(a), float(b)) for a, b in corners))


def _refused(frame: np.ndarray, before: np.ndarray, die: Die) -> bool:
    dice, problems = [die], [""]
    refuse_new_side_pips(frame, before, dice, problems, lambda _xy: (0.0, 0.0), SIDE)
    return dice[0].value is None and problems[0] == REASON


def _side_face(img: np.ndarray, pip: bool = True, shade: int = 165) -> None:
    """A side face 0.42 of a side wide (a 25-degree lean) past the die's right edge, a pip on it squashed so."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    cv2.rectangle(img, (x + h, y - h), (x + h + 16, y + h - 1), (shade, shade, shade), -1)
    if pip:
        cv2.ellipse(img, (x + h + 8, y), (2, 4), 0, 0, 360, (25, 25, 25), -1)


def _refused_with_side_face(before: np.ndarray, pip: bool = True, shade: int = 165) -> bool:
    """Whether the die drawn on a copy of `before`, a side face beside it (_side_face), is refused."""
    frame = before.copy()
    die = _die(frame)
    _side_face(frame, pip=pip, shade=shade)
    return _refused(frame, before, die)


def test_a_side_face_pip_new_since_before_refuses_the_die() -> None:
    before = _table()
    frame = before.copy()
    die = _die(frame)
    assert not _refused(frame, before, die)  # flat: nothing past its edge
    _side_face(frame)
    assert _refused(frame, before, die)


def test_a_pip_on_a_side_face_in_shade_counts_against_the_side_faces_own_level() -> None:
    """A side face turned from the light (grey 90 beside a top face of 235) holds pips that stand out from it by
    less than the top face's pips do: the growth asked is the share of what a pip can stand out there."""
    before = _table()
    assert _refused_with_side_face(before, shade=90)
    assert not _refused_with_side_face(before, pip=False, shade=90)  # the shaded face alone is no pip


@pytest.mark.parametrize(("w", "h"), [(18, 18), (20, 28), (24, 20), (29, 29)])
def test_a_dark_block_new_beside_the_die_is_no_pip(w: int, h: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Something as dark as a pip and larger than one, new beside the die (a piece knocked there): its corners
    answer the black-hat as a pip does, but a pip is ringed by its lighter face and a corner is not (RING)."""
    before = _table()
    frame = before.copy()
    die = _die(frame)
    x, y, half = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    cv2.rectangle(frame, (x + half + 1, y - h // 2), (x + half + w, y + h // 2), (30, 30, 30), -1)
    assert not _refused(frame, before, die)
    monkeypatch.setattr(sidepips, "RING", 1.0)
    assert _refused(frame, before, _die(frame.copy()))  # without the ring, a corner counts


def test_a_side_face_without_a_pip_is_no_lean_to_this_check() -> None:
    before = _table()
    frame = before.copy()
    die = _die(frame)
    _side_face(frame, pip=False)
    assert not _refused(frame, before, die)


def test_a_shadow_beside_the_die_is_not_a_pip() -> None:
    """A shadow multiplies the board by a factor (here 0.5, a narrow one the black-hat fills): not as dark as
    a pip, nor as dark as the die's own pips."""
    before = _table()
    frame = before.copy()
    die = _die(frame)
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    frame[y - 6:y + 2, x + h + 3:x + h + 9] = (frame[y - 6:y + 2, x + h + 3:x + h + 9] * 0.5).astype(np.uint8)
    assert not _refused(frame, before, die)
    # ... while a spot as dark as a pip there is one.
    frame[y - 6:y + 2, x + h + 3:x + h + 9] = 25
    assert _refused(frame, before, die)


def test_the_boards_print_beside_the_die_was_there_before() -> None:
    """A pip-sized dark mark of the board's print past the die's edge is in `before` too: not new."""
    before = _table()
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    cv2.ellipse(before, (x + h + 8, y), (2, 4), 0, 0, 360, (25, 25, 25), -1)
    frame = before.copy()
    die = _die(frame)
    assert not _refused(frame, before, die)
    # ... and where before is black (a die lay there: nothing known), nothing is new either.
    frame2 = _table()
    die = _die(frame2)
    _side_face(frame2)
    blacked = _table()
    cv2.circle(blacked, (x, y), int(1.2 * SIDE), (0, 0, 0), -1)
    assert not _refused(frame2, blacked, die)


def test_black_print_darker_in_the_dies_shadow_is_no_new_pip() -> None:
    """A blue bar's black border passing the die's edge, in its contact shadow (the board and the bar at half their
    grey, the border's end from 20 to 7): with the die's shadowed side above it, the border's end answers the
    black-hat more than before, as a pip would, and is under DARKER of before. But it was as dark as a pip before
    the throw, and nothing new shows as a pip within that (the Pi unit's view, white seeds 43, 183 and 236: flat
    dice refused so). A side face's pip over print that was not as dark as a pip (grey 70, a red bar) is still
    new."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    before = _table()
    before[y - 40:y + 40, x + h + 8:x + h + 50] = 55  # a blue bar ...
    before[y - 40:y + 40, x + h + 5:x + h + 8] = 20  # ... and its black border
    frame = before.copy()
    die = _die(frame)
    shade = (slice(y - 12, y + 12), slice(x + h, x + h + 20))
    frame[shade] = (before[shade] * 0.5).astype(np.uint8)
    frame[y - 3:y + 3, x + h + 5:x + h + 8] = 7
    assert not _refused(frame, before, die)
    dark_print = _table()
    dark_print[y - 40:y + 40, x + h:x + h + 60] = 70  # (a bar wider than the black-hat)
    frame = dark_print.copy()
    die = _die(frame)
    _side_face(frame)
    assert _refused(frame, dark_print, die)


def test_a_side_face_pip_over_a_stroke_of_print_is_new(monkeypatch: pytest.MonkeyPatch) -> None:
    """A side face's pip where the board's print had a stroke narrower than the black-hat (a letter of red print):
    the table before answered the black-hat there as strongly as the pip does now, so nothing grew, but the pip is
    as dark as the die's own, under DARKER of the print, and black where the print was red (the simulated table at
    0 and 8 degrees, seed 47: a white 2 leaning 25 degrees, its side face's 6 over "TABLESIDE", was `ok`). The
    side face alone over the stroke is no pip, nor is the stroke in a deep shadow (it keeps its hue: touching
    pairs on red lettering)."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    before = _table()
    stroke = (slice(y - 30, y + 30), slice(x + h + 6, x + h + 11))
    before[stroke] = (40, 40, 200)  # a red letter's stroke, 5 px wide (grey 88)
    assert _refused_with_side_face(before, shade=100)
    assert not _refused_with_side_face(before, pip=False, shade=100)
    shadowed = before.copy()
    die = _die(shadowed)
    shade = (slice(y - 4, y + 4), slice(x + h + 1, x + h + 20))
    shadowed[shade] = (before[shade] * 0.35).astype(np.uint8)  # the stroke (14, 14, 70): as dark as a pip, red
    assert not _refused(shadowed, before, die)
    monkeypatch.setattr(silhouette, "SAME_HUE", 2.0)  # (every pixel's hue taken as changed)
    assert _refused(shadowed, before, _die(shadowed.copy()))


def test_coloured_print_in_a_deep_shadow_keeps_its_hue_and_is_no_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    """A red bar wider than the black-hat past the die's edge, a pip-sized patch of it darkened to 0.35 of its light
    (the crevice where two white dice touching on red print shade it: past DARKER, as dark as a pip, grown since
    before, ringed by the lighter bar): it stays red, a shade of the print, and is no pip (the Pi unit's view, white
    touching pairs, seeds 20-59 at 0, 8 and 18 degrees: 112 -> 118 of 120 read). A black pip on the same bar is one;
    and the shade is taken for one without the rule."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    before = _table()
    before[y - 40:y + 40, x + h:x + h + 60] = (40, 40, 200)  # a red bar (grey 88)
    patch = (slice(y - 3, y + 4), slice(x + h + 5, x + h + 12))
    shaded = before.copy()
    die = _die(shaded)
    shaded[patch] = (before[patch] * 0.35).astype(np.uint8)  # (14, 14, 70)
    assert not _refused(shaded, before, die)
    pip = before.copy()
    die = _die(pip)
    pip[patch] = 25
    assert _refused(pip, before, die)
    monkeypatch.setattr(sidepips, "_print_in_shade", lambda *_a: False)
    assert _refused(shaded, before, _die(shaded.copy()))


def test_light_pips_are_asked_the_same_with_the_grey_levels_turned_over() -> None:
    """A dark die with light pips on a dark board (the synthetic frames turned over): its side face's light pip,
    new since before, refuses it; where before is black (not known), nothing is new, turned over or not."""
    before = _table()
    frame = before.copy()
    die = _die(frame)
    _side_face(frame)
    dark_before, dark_frame = 255 - before, 255 - frame
    dice, problems = [die], [""]
    refuse_new_side_pips(dark_frame, dark_before, dice, problems, lambda _xy: (0.0, 0.0), SIDE, light_pips=True)
    assert dice[0].value is None and problems[0] == REASON
    dice = [die]
    refuse_new_side_pips(dark_frame, dark_before, dice, [""], lambda _xy: (0.0, 0.0), SIDE)
    assert dice[0].value == 3  # (as dark pips, its light pip is no spot)
    unknown = dark_before.copy()
    x, y = int(CENTRE[0]), int(CENTRE[1])
    cv2.circle(unknown, (x, y), int(1.2 * SIDE), (0, 0, 0), -1)
    refuse_new_side_pips(dark_frame, unknown, dice, [""], lambda _xy: (0.0, 0.0), SIDE, light_pips=True)
    assert dice[0].value == 3


def test_another_die_beside_it_is_not_its_side_face() -> None:
    before = _table()
    frame = before.copy()
    die = _die(frame)
    _side_face(frame)
    other = Die(5, (CENTRE[0] + 1.05 * SIDE, CENTRE[1]), 0.9, size=SIDE)
    dice, problems = [die, other], ["", ""]
    refuse_new_side_pips(frame, before, dice, problems, lambda _xy: (0.0, 0.0), SIDE)
    assert dice[0].value == 3  # the spot lies on the other die's outline


def test_an_unread_die_on_its_side_face_does_not_hide_that_side_face() -> None:
    """A die read without a value closer than `twin` of a side (the reader's TWIN) is no flat die of its own:
    two flat dice's centres are a whole side apart. It is this die's side face read again (the simulated
    camera, seed 11 straight down, a 3 leaning 35 degrees: its side face's 6 was found as a die and unread),
    and its outline does not cover the side face's pips."""
    before = _table()
    frame = before.copy()
    die = _die(frame)
    _side_face(frame)
    twin = Die(None, (CENTRE[0] + 0.7 * SIDE, CENTRE[1]), 0.0, size=SIDE)
    dice, problems = [die, twin], ["", "pips of unequal size"]
    refuse_new_side_pips(frame, before, dice, problems, lambda _xy: (0.0, 0.0), SIDE)
    assert dice[0].value == 3  # without `twin`: every other die's outline is kept clear
    refuse_new_side_pips(frame, before, dice, problems, lambda _xy: (0.0, 0.0), SIDE, twin=0.9)
    assert dice[0].value is None and problems[0] == REASON
    # A die read at the same place still counts as a die of its own (the reader refuses the pair elsewhere).
    dice, problems = [_die(frame), Die(5, twin.center, 0.9, size=SIDE)], ["", ""]
    refuse_new_side_pips(frame, before, dice, problems, lambda _xy: (0.0, 0.0), SIDE, twin=0.9)
    assert dice[0].value == 3


def test_a_leaning_die_whose_side_face_was_found_as_a_die_is_refused() -> None:
    frame, _, _, before = sim_table(0.0, 11, 1, 1, 35.0)
    cal = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=0.0).calibration()
    r = read_dice(frame, cal, expect=2, before=before)
    assert r.verdict is Verdict.UNREADABLE, (r.values, r.reason)


def test_a_lone_pips_turn_comes_from_its_edges() -> None:
    for deg in (0.0, 10.0, 25.0, 40.0, 80.0):
        img = np.full((200, 200), 190, np.uint8)
        box = cv2.boxPoints(((100.0, 100.0), (SIDE, SIDE), deg))
        cv2.fillPoly(img, [np.round(box * 16).astype(np.int32)], 235, cv2.LINE_AA, 4)
        cv2.circle(img, (100, 100), 4, 25, -1)
        got = math.degrees(square_turn(img, (100.0, 100.0), SIDE)) % 90.0
        assert min(abs(got - deg % 90.0), 90.0 - abs(got - deg % 90.0)) < 2.0, (deg, got)


def test_a_frame_before_of_another_shape_is_a_one_line_error() -> None:
    frame = _table()
    with pytest.raises(ValueError, match=r"the frame before the throw \(150x200x3 uint8\) is not shaped as the frame"):
        read_dice(frame, before=np.zeros((150, 200, 3), np.uint8))


@pytest.mark.parametrize(("tilt", "seed", "lean"), [(0.0, 3, 25.0), (0.0, 6, 35.0),
                                                    (8.0, 1, 25.0), (18.0, 6, 25.0), (0.0, 40, 25.0)])
def test_white_dice_leaning_near_overhead_are_refused_given_the_table_before(tilt: float, seed: int,
                                                                            lean: float) -> None:
    """The simulated camera, one white die flat and one leaning, calibrated: accepted without the table before
    the throw (the board hides a white die's side face), refused with it. (0.0, 40): its side face is shaded to
    100 of the top face's 237 grey levels, and its pips stand out from it by less than the top face's do; given the
    table before, the grey pass's narrow side face check (tests/vision/test_grey_before.py) now refuses it first."""
    frame, _, _, before = sim_table(tilt, seed, 1, 1, lean)
    cal = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt).calibration()
    assert read_dice(frame, cal).verdict is Verdict.OK
    r = read_dice(frame, cal, before=before)
    reasons = (REASON, "cocked: a side face shows beside the top face") if (tilt, seed) == (0.0, 40) else (REASON,)
    assert r.verdict is Verdict.UNREADABLE and r.reason.endswith(reasons), r.reason


@pytest.mark.parametrize("tilt", [0.0, 8.0, 18.0])
def test_flat_and_touching_white_dice_still_read_given_the_table_before(tilt: float) -> None:
    """Seeds 0-9 (touching seed 10: the two dice's shadows overlap in the crevice, 0.29 of the board's grey and
    0.14 of the way from the pips' grey to the face's: not a pip)."""
    cal = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt).calibration()
    for seed in range(0, 11):
        frame, truth, _, before = sim_table(tilt, seed, 2, 0)
        plain = read_dice(frame, cal)
        if plain.verdict is Verdict.OK:
            assert read_dice(frame, cal, before=before) == plain, (seed, truth)
        frame, values, before = sim_touching(tilt, seed)
        plain = read_dice(frame, cal)
        if plain.verdict is Verdict.OK:
            assert read_dice(frame, cal, before=before) == plain, (seed, values)


@pytest.mark.parametrize("look", ["white", "red"])
def test_a_leaning_one_is_refused_by_its_side_face_turned_as_its_edges_say(look: str) -> None:
    """Seed 8 at 0 degrees: the leaning die is a 1. Its turn, which its pip does not give, is taken from its edges
    (square_turn) by the pip passes' lean check as by the side-pip check, which was all that refused it before
    (with the table before, as `refuse_new_side_pips` for white dice and `refuse_new_body` for red ones): now its
    side face's pips refuse it without the table before too, and with it."""
    frame, _, _, before = sim_table(0.0, 8, 1, 1, 25.0, look)
    cal = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=0.0, die_bgr=DICE_LOOKS[look][0],
                          pip_bgr=DICE_LOOKS[look][1]).calibration()
    for r in (read_dice(frame, cal), read_dice(frame, cal, before=before)):
        assert r.verdict is Verdict.UNREADABLE and r.reason.endswith("cocked: a side face shows beside the top face"), \
            r.reason


@pytest.mark.parametrize("gain", [0.8, 1.25])
def test_the_table_before_taken_at_another_exposure_changes_nothing(gain: float) -> None:
    """A camera's exposure may move between the table before and the throw: the growth is of a spot's response
    and the darkness a share of before's grey, so a before a fifth darker or a quarter brighter reads the same
    (seeds 0-9 at 0, 8 and 18 degrees, scratch run: pairs right 53 of 60, leaning `ok` 2 of 30, at 0.8, 0.9,
    1.1 and 1.25)."""
    cal = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=8.0).calibration()
    for seed in range(0, 5):
        frame, _, _, before = sim_table(8.0, seed, 2, 0)
        other = np.clip(before.astype(np.float32) * gain, 0, 255).astype(np.uint8)
        assert read_dice(frame, cal, before=other) == read_dice(frame, cal, before=before), seed
    frame, _, _, before = sim_table(8.0, 1, 1, 1)  # a leaning die (as above): still refused
    other = np.clip(before.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    assert read_dice(frame, cal, before=other).reason.endswith(REASON)


def test_the_simulated_cameras_throws_read_the_same_given_the_table_before() -> None:
    """Its plain throws read right still; its cocked and stacked ones stay refused."""
    for kind in ("ok", "cocked", "stacked"):
        for seed in range(0, 6):
            frame, before, cal, truth = sim_throw_before(kind, seed)
            r = read_dice(frame, cal, before=before)
            assert r.verdict is truth.verdict, (kind, seed, r.reason)
            if kind == "ok":
                assert sorted(r.values) == sorted(truth.values), (seed, r.values)  # type: ignore[type-var]


@pytest.mark.slow
def test_white_dice_leaning_near_overhead_held_out_seeds() -> None:
    """Seeds 50-59 (not seen choosing the constants), the camera 0, 8 and 18 degrees off vertical: one die flat
    and one leaning 25 or 35 degrees (60 throws), two flat (30) and two touching (30). Measured 2026-11-27:
    wrong `ok`s 6 without the table before -> 2 with it; flat and touching pairs read right 55 -> 55."""
    wrong = [0, 0]
    right = [0, 0]
    for tilt in (0.0, 8.0, 18.0):
        cal = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt).calibration()
        for seed in range(50, 60):
            for lean in (25.0, 35.0):
                frame, _, _, before = sim_table(tilt, seed, 1, 1, lean)
                for k, was in enumerate((None, before)):
                    wrong[k] += read_dice(frame, cal, before=was).verdict is Verdict.OK
            frame, truth, _, before = sim_table(tilt, seed, 2, 0)
            pairs = [(frame, sorted(v for v, _, _ in truth), before)]
            frame, values, before = sim_touching(tilt, seed)
            pairs.append((frame, sorted(values), before))
            for frame, want, before in pairs:
                for k, was in enumerate((None, before)):
                    r = read_dice(frame, cal, before=was)
                    right[k] += r.verdict is Verdict.OK and sorted(r.values) == want  # type: ignore[type-var]
    assert wrong[1] <= 3 and wrong[1] < wrong[0], wrong
    assert right[1] >= 53, right

"""M.DICE.2: a die leaning towards a camera off vertical hides the side face a flat die shows it
(vision/sidepips.py refuse_hidden_near_side).

A flat die seen 18 degrees off vertical shows its side face towards the camera as a band 0.37 of a side wide
between its top face and its outline swept along `down`. A die leaning 25 degrees towards the camera turns that
face under itself; its top face, foreshortened by the lean and stretched by the view, looks square, and its other
side faces show less than the band where the side-pip and body checks look. What shows in the near band is the
board or the die's shadow on it: a shade of what was there. A white die's grey side face is a shade of a pale
board too; there the band must also keep the board's tint, not the die's. Synthetic frames for each rule, then the
simulated camera's 3-D dice (seeds 20-49 chose NEAR_SHADE, and with 80-139 NEAR_TABLE; the slow tests read seeds
50-79).
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware.simcam import DICE_LOOKS, SimulatedCamera
from tests.vision.simthrows import sim_table, sim_touching
from vision import Verdict, read_dice, sidepips
from vision.lightface import Down
from vision.reading import Die
from vision.sidepips import HIDDEN_NEAR_REASON, refuse_hidden_near_side

SIDE = 40.0
CENTRE = (200.0, 150.0)
RED = (40, 40, 190)
BLACK = (38, 36, 34)
WHITE = (236, 238, 240)
BOARD = (190, 205, 190)
NEAR = 15  # px: `down` at about 18 degrees off vertical (0.37 of a side)


def _down(length: float = NEAR) -> Down:
    return lambda _xy: (0.0, length)


def _die(img: np.ndarray, colour: tuple[int, int, int] = RED, at: tuple[float, float] = CENTRE,
         side_face: bool = True, value: int = 3) -> Die:
    """A 3 (or a 1) with light pips, square to the frame, drawn on `img` at `at`; with `side_face`, the face
    towards the camera (below it, NEAR px) in shade, as a flat die shows it."""
    x, y, h = int(at[0]), int(at[1]), int(SIDE / 2)
    if side_face:
        cv2.rectangle(img, (x - h, y + h), (x + h - 1, y + h + NEAR - 1), tuple(int(0.6 * c) for c in colour), -1)
    cv2.rectangle(img, (x - h, y - h), (x + h - 1, y + h - 1), colour, -1)
    for k in ((-1, 0, 1) if value == 3 else (0,)):
        cv2.circle(img, (x + k * 11, y + k * 11), 4, (240, 240, 240), -1)
    corners = ((x - h, y + h), (x - h, y - h), (x + h, y - h), (x + h, y + h))
    return Die(value, at, 0.9, size=SIDE, corners=tuple((float(a), float(b)) for a, b in corners))


def _table() -> np.ndarray:
    return np.full((300, 400, 3), BOARD, np.uint8)


def _refused(frame: np.ndarray, before: np.ndarray, die: Die, colour: tuple[int, int, int] = RED,
             others: tuple[Die, ...] = (), down: float = NEAR) -> bool:
    dice, problems = [die, *others], [""] * (1 + len(others))
    refuse_hidden_near_side(frame, before, dice, problems, _down(down), SIDE, colour, light_pips=colour != WHITE)
    return dice[0].value is None and problems[0] == HIDDEN_NEAR_REASON


def _shadow_below(frame: np.ndarray, at: tuple[float, float] = CENTRE) -> None:
    """The die's shadow over the band where its near side face would be: the board at half its light."""
    x, y, h = int(at[0]), int(at[1]), int(SIDE / 2)
    part = frame[y + h:y + h + NEAR, x - h:x + h]
    part[:] = (part * 0.5).astype(np.uint8)


@pytest.mark.parametrize("colour", [RED, BLACK])
def test_a_die_showing_no_side_face_towards_the_camera_is_refused(colour: tuple[int, int, int]) -> None:
    before = _table()
    frame = before.copy()
    assert not _refused(frame, before, _die(frame, colour), colour)  # flat: its side face in the band
    frame = before.copy()
    assert _refused(frame, before, _die(frame, colour, side_face=False), colour)  # the board as it was
    frame = before.copy()
    die = _die(frame, colour, side_face=False)
    _shadow_below(frame)
    assert _refused(frame, before, die, colour)  # the die's shadow on the board: a shade of it


def test_a_white_die_is_refused_where_the_band_keeps_the_boards_tint(monkeypatch: pytest.MonkeyPatch) -> None:
    """A white die's side face in shade is a neutral grey, within SAME_HUE of the pale green board and at its
    light, so a shade of the board alone says nothing; the board, or the die's shadow on it, keeps the board's tint,
    the side face the die's."""
    before = _table()
    frame = before.copy()
    assert not _refused(frame, before, _die(frame, WHITE), WHITE)
    frame = before.copy()
    assert _refused(frame, before, _die(frame, WHITE, side_face=False), WHITE)
    frame = before.copy()
    die = _die(frame, WHITE, side_face=False)
    _shadow_below(frame)
    assert _refused(frame, before, die, WHITE)
    # Asked for a shade of the board alone, the flat die's grey side face passes: it would be refused.
    monkeypatch.setattr(sidepips, "nearer_hue", lambda now, _was, _body: np.ones(len(now), bool))
    frame = before.copy()
    assert _refused(frame, before, _die(frame, WHITE), WHITE)


def test_a_white_die_on_a_board_of_its_own_hue_is_not_asked() -> None:
    """On a white tray (or the board's white print) the side face's grey is as near the table's hue as the die's:
    nothing tells, so nothing is refused, whatever shows in the band."""
    tray = np.full((300, 400, 3), (228, 230, 233), np.uint8)
    frame = tray.copy()
    assert not _refused(frame, tray, _die(frame, WHITE, side_face=False), WHITE)
    frame = tray.copy()
    assert not _refused(frame, tray, _die(frame, WHITE), WHITE)


def test_a_one_is_placed_by_its_lone_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1 read by its body is centred on the body, top face and side face together (and its shadow), towards
    the camera (the simulated black 1 touching a 5, seed 93 at 18 degrees: 6.6 px of a 7.8 px band): placed there,
    the band asked is the board past its side face. Placed by its lone pip, a flat 1 is not refused and a 1
    showing no side face towards the camera is."""
    def body_read(img: np.ndarray, side_face: bool) -> Die:
        d = _die(img, side_face=side_face, value=1)
        return replace(d, center=(CENTRE[0], CENTRE[1] + 0.85 * NEAR))

    before = _table()
    frame = before.copy()
    assert not _refused(frame, before, body_read(frame, side_face=True))
    frame = before.copy()
    assert _refused(frame, before, body_read(frame, side_face=False))
    monkeypatch.setattr(sidepips, "_placed_one", lambda _f, at, _d: (at, 0.0))  # (taken where it was read)
    frame = before.copy()
    assert _refused(frame, before, body_read(frame, side_face=True))


def test_a_camera_near_overhead_is_not_asked() -> None:
    """At 8 degrees a flat die's side face is 0.15 of a side wide: too narrow to tell, so nothing is refused."""
    before = _table()
    frame = before.copy()
    die = _die(frame, side_face=False)
    assert _refused(frame, before, die, down=0.3 * SIDE)
    assert not _refused(frame, before, die, down=0.2 * SIDE)


def test_the_boards_print_of_the_dies_colour_says_nothing() -> None:
    """A red die on the board's red bar: its side face would be a shade of the bar, so the band, where the bar
    was, is not asked; nor where the table before is black (a die lay there: nothing known)."""
    x, y, h = int(CENTRE[0]), int(CENTRE[1]), int(SIDE / 2)
    before = _table()
    cv2.rectangle(before, (x - h - 5, y - h - 5), (x + h + 5, y + h + NEAR + 5), RED, -1)
    frame = before.copy()
    assert not _refused(frame, before, _die(frame, side_face=False))
    before = _table()
    frame = before.copy()
    die = _die(frame, side_face=False)
    blacked = before.copy()
    cv2.circle(blacked, (x, y), int(1.2 * SIDE), (0, 0, 0), -1)
    assert not _refused(frame, blacked, die)


def test_another_die_in_front_of_it_is_not_asked_about() -> None:
    """A die read just in front of it covers its band: what shows there is the other die's."""
    before = _table()
    frame = before.copy()
    die = _die(frame, side_face=False)
    other = _die(frame, at=(CENTRE[0], CENTRE[1] + 1.05 * SIDE))
    assert not _refused(frame, before, die, others=(other,))


@pytest.mark.parametrize("gain", [0.8, 1.25])
def test_the_table_before_taken_at_another_exposure_changes_nothing(gain: float) -> None:
    before = _table()
    other = np.clip(before.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    frame = before.copy()
    assert not _refused(frame, other, _die(frame))
    frame = before.copy()
    assert _refused(frame, other, _die(frame, side_face=False))


def _camera(tilt: float, look: str) -> SimulatedCamera:
    body, pip = DICE_LOOKS[look]
    return SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt, die_bgr=body, pip_bgr=pip)


@pytest.mark.parametrize("look", ["red", "black"])
@pytest.mark.parametrize("seed", [20, 43])
def test_coloured_dice_leaning_towards_the_camera_are_refused(look: str, seed: int,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated camera 18 degrees off vertical, one die flat and one leaning 25 degrees towards it,
    calibrated, with the table before: every other check accepts it (the check switched off), this one refuses
    it."""
    frame, _, _, before = sim_table(18.0, seed, 1, 1, 25.0, look)
    cal = _camera(18.0, look).calibration()
    r = read_dice(frame, cal, before=before)
    assert r.verdict is Verdict.UNREADABLE and r.reason.endswith(HIDDEN_NEAR_REASON), r.reason
    monkeypatch.setattr(sidepips, "NEAR_SHADE", 1.01)
    assert read_dice(frame, cal, before=before).verdict is Verdict.OK


@pytest.mark.parametrize("seed", [20, 31, 42])
def test_white_dice_leaning_towards_the_camera_are_refused(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """As above, white dice: three of the four of seeds 20-49 that every other check accepted (a 3, a 5 and two 4s
    leaning), refused by the board's tint in the near band. (The fourth, seed 43, is now refused first by the grey
    pass's narrow side face check, asked near overhead given the table before: tests/vision/test_grey_before.py.)"""
    frame, _, _, before = sim_table(18.0, seed, 1, 1, 25.0, "white")
    cal = _camera(18.0, "white").calibration()
    r = read_dice(frame, cal, before=before)
    assert r.verdict is Verdict.UNREADABLE and r.reason.endswith(HIDDEN_NEAR_REASON), r.reason
    monkeypatch.setattr(sidepips, "NEAR_TABLE", 1.01)
    assert read_dice(frame, cal, before=before).verdict is Verdict.OK


def test_a_white_one_is_placed_where_its_pip_was_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dark pip is read where it is (not a body's centre), so a white 1 is asked where it was read: the search
    for a light-pipped 1's lone pip would find the brightest spot, the white face round a black pip."""
    def no_search(*_a: object) -> None:
        raise AssertionError("a white 1 searched for a light pip")

    monkeypatch.setattr(sidepips, "_placed_one", no_search)
    before = _table()
    frame = before.copy()
    assert _refused(frame, before, _die(frame, WHITE, side_face=False, value=1), WHITE)
    frame = before.copy()
    assert not _refused(frame, before, _die(frame, WHITE, value=1), WHITE)


def _held_out(looks: tuple[str, ...]) -> tuple[int, int, int]:
    """Seeds 50-79 of each look at 18 degrees off vertical: one die flat and one leaning 25 or 35 degrees read
    `ok` (wrong), two flat and two touching read right, and pairs not refused by this check."""
    wrong, right, not_hidden = 0, 0, 0
    for look in looks:
        cal = _camera(18.0, look).calibration()
        for seed in range(50, 80):
            for lean in (25.0, 35.0):
                frame, _, _, before = sim_table(18.0, seed, 1, 1, lean, look)
                wrong += read_dice(frame, cal, before=before).verdict is Verdict.OK
            frame, truth, _, before = sim_table(18.0, seed, 2, 0, 25.0, look)
            pairs = [(frame, before, sorted(v for v, _, _ in truth))]
            frame, values, before = sim_touching(18.0, seed, look)
            pairs.append((frame, before, sorted(values)))
            for frame, before, want in pairs:
                r = read_dice(frame, cal, before=before)
                right += r.verdict is Verdict.OK and sorted(r.values) == want  # type: ignore[type-var]
                not_hidden += not r.reason.endswith(HIDDEN_NEAR_REASON)
    return wrong, right, not_hidden


@pytest.mark.slow
def test_coloured_dice_leaning_towards_the_camera_held_out_seeds() -> None:
    """Seeds 50-79 (not seen choosing NEAR_SHADE), red and black dice, 18 degrees off vertical: one die flat and one
    leaning 25 or 35 degrees (120 throws) none `ok`; two flat and two touching (120) none refused by this check,
    116 read right (measured 2026-11-30, the same without the check). Seeds 80-199 (a scratch run, not here): wrong
    `ok`s red 12 -> 1, black 11 -> 1 of 240; pairs right 230 and 236 of 240 either way."""
    wrong, right, not_hidden = _held_out(("red", "black"))
    assert wrong == 0, wrong
    assert not_hidden == 120, not_hidden
    assert right >= 114, right


@pytest.mark.slow
def test_white_dice_leaning_towards_the_camera_held_out_seeds() -> None:
    """Seeds 50-79 (not seen choosing NEAR_TABLE), white dice, as above: of the 60 throws with one die leaning none
    `ok` (2 without the check, seeds 61 and 75); of the 60 pairs none refused by it, 58 read right (the same without
    it). Seeds 140-199 (a scratch run, not here): wrong `ok`s 7 -> 1 of 120."""
    wrong, right, not_hidden = _held_out(("white",))
    assert wrong == 0, wrong
    assert not_hidden == 60, not_hidden
    assert right >= 57, right

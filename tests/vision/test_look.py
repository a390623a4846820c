"""The calibrated look of the table's dice (vision/look.py) and what the reader skips with it."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.model import Calibration
from tests.vision.render import DieSpec, render
from tests.vision.simthrows import count_calls, sim_throw
from vision import Verdict, read_dice
from vision.colourpips import read_colour_face
from vision.look import DieLook

WHITE, BLACK = (236, 238, 240), (30, 30, 36)


def _cal(body: tuple[int, int, int] | None, pips: tuple[int, int, int] | None) -> Calibration:
    return Calibration(image_size=(640, 480), board_polygon=((0, 0), (640, 0), (640, 480), (0, 480)),
                       die_size_px=40.0, die_color_bgr=body, pip_color_bgr=pips)


def test_look_from_calibration() -> None:
    assert DieLook.of(None) is None
    assert DieLook.of(_cal(None, None)) is None
    assert DieLook.of(_cal(WHITE, None)) is None
    # Body and pips sampled nearly alike: not a die's face that was sampled, so no look to go by.
    assert DieLook.of(_cal((200, 200, 200), (185, 185, 185))) is None
    white = DieLook.of(_cal(WHITE, BLACK))
    assert white is not None and white.dark_pips
    dark = DieLook.of(_cal((40, 30, 30), (240, 240, 240)))
    assert dark is not None and not dark.dark_pips


def test_unlike_tells_the_table_dice_from_board_features() -> None:
    look = DieLook.of(_cal(WHITE, BLACK))
    assert look is not None
    frame = render([DieSpec(5, (150, 240)), DieSpec(1, (300, 240))], seed=3)
    cv2.rectangle(frame, (430, 220), (470, 260), (40, 40, 200), -1)  # a red hotel-sized block
    cv2.rectangle(frame, (530, 220), (570, 260), (20, 20, 20), -1)  # a black token
    assert not look.unlike(frame, (150.0, 240.0), 44.0, 40.0)
    assert not look.unlike(frame, (300.0, 240.0), 44.0, 40.0)
    # A body found off the die's centre (its shadow cut off as a second part) still holds the die's colour.
    assert not look.unlike(frame, (162.0, 252.0), 40.0, 40.0)
    assert look.unlike(frame, (450.0, 240.0), 40.0, 40.0)
    assert look.unlike(frame, (550.0, 240.0), 40.0, 40.0)
    assert look.unlike(frame, (-100.0, -100.0), 40.0, 40.0)  # nowhere in the frame


def test_colour_reader_keeps_to_the_polarity_it_is_given() -> None:
    yellow = render([DieSpec(4, (320, 240), size=44.0, angle=12, body=(40, 210, 235), pip=(25, 25, 25))], seed=7)
    red = render([DieSpec(5, (320, 240), size=44.0, angle=12, body=(40, 40, 190), pip=(235, 235, 235))], seed=7)
    for frame, value, dark_pips in ((yellow, 4, True), (red, 5, False)):
        assert read_colour_face(frame, (320.0, 240.0), 48.0, 12.0).value == value
        assert read_colour_face(frame, (320.0, 240.0), 48.0, 12.0, dark_pips=dark_pips).value == value
        assert read_colour_face(frame, (320.0, 240.0), 48.0, 12.0, dark_pips=not dark_pips).value is None


def _sim(kind: str, seed: int) -> tuple[np.ndarray, Calibration]:
    frame, cal, _ = sim_throw(kind, seed)
    return frame, cal


def test_dark_pip_look_skips_the_light_pip_planes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stacked throw (the grey pass cannot find both dice, so the count is not met): with white dice
    calibrated, only the grey plane is read for pips; without a look, all four planes are. The verdict is
    the same either way."""
    import vision.reader as reader

    frame, cal = _sim("stacked", 1)
    calls = count_calls(monkeypatch, reader, "light_pass")
    with_look = read_dice(frame, calibration=cal, expect=2)
    assert len(calls) == 1
    without = read_dice(frame, calibration=replace(cal, die_color_bgr=None, pip_color_bgr=None), expect=2)
    assert len(calls) == 1 + 4
    assert with_look.verdict is without.verdict is Verdict.UNREADABLE


def test_bodies_unlike_the_dice_are_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated board's red letters and green squares are die-sized bodies: with the look they are
    passed over before the net and the colour reader see them (fewer crops read), and the throw's verdict
    stays the same."""
    import vision.netcheck as netcheck

    frame, cal = _sim("stacked", 1)
    asked: list[int] = []
    plain = netcheck.Remembering.read

    def counting(self: netcheck.Remembering, f: np.ndarray, centres: list[tuple[float, float]],
                 die: float) -> object:
        asked.append(len(centres))
        return plain(self, f, centres, die)

    monkeypatch.setattr(netcheck.Remembering, "read", counting)
    with_look = read_dice(frame, calibration=cal, expect=2)
    n_look = asked[0]  # the body pass's batch
    asked.clear()
    bare = replace(cal, die_color_bgr=None, pip_color_bgr=None)
    without = read_dice(frame, calibration=bare, expect=2)
    assert n_look < asked[0] - 3, (n_look, asked[0])
    assert with_look.verdict is without.verdict is Verdict.UNREADABLE

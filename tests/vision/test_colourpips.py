"""The body-first colour reader (vision/colourpips.py) on dice the tests render: coloured and dark bodies with
light, dark or coloured pips, each face value, turned; and what it must refuse."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.render import DieSpec, render
from vision.bodies import segment
from vision.colourpips import read_colour_face
from vision.reader import read_dice

# (body, pip) in BGR: the kinds of dice the Byler photos hold beyond white ones.
COLOURS = {
    "red with white pips": ((40, 40, 200), (235, 235, 235)),
    "black with red pips": ((35, 35, 35), (40, 40, 190)),
    "teal with yellow pips": ((120, 110, 20), (40, 210, 225)),
    "yellow with black pips": ((40, 215, 235), (25, 25, 25)),
    "blue with white pips": ((170, 60, 20), (235, 235, 235)),
}


def _body_read(frame: np.ndarray, near: tuple[float, float]) -> tuple[int | None, str]:
    seg = segment(frame)
    body = min(seg.bodies, key=lambda b: np.hypot(b.center[0] - near[0], b.center[1] - near[1]))
    side = max(float(np.sqrt(body.area)), 0.5 * (body.size[0] + body.size[1]))
    face = read_colour_face(frame, body.center, side, body.angle)
    return face.value, face.reason


@pytest.mark.parametrize("kind", sorted(COLOURS))
@pytest.mark.parametrize("value", range(1, 7))
def test_reads_every_value_on_coloured_dice(kind: str, value: int) -> None:
    body, pip = COLOURS[kind]
    frame = render([DieSpec(value, (320, 240), 44.0, 17.0 * value, body=body, pip=pip)], seed=value)
    got, why = _body_read(frame, (320, 240))
    if (kind, value) == ("black with red pips", 1):
        # Known limit: a lone pip needs two planes to agree, and a red pip on black stands out in the red
        # plane only (in grey the bevel's rim responds nearly as strongly): refused, never misread.
        assert got in (None, 1), why
        return
    assert got == value, (kind, value, got, why)


@pytest.mark.parametrize("kind", sorted(COLOURS))
def test_the_reader_reads_a_throw_of_two_coloured_dice(kind: str) -> None:
    body, pip = COLOURS[kind]
    frame = render([DieSpec(3, (250, 240), 44.0, 10.0, body=body, pip=pip),
                    DieSpec(5, (400, 260), 44.0, 55.0, body=body, pip=pip)], seed=7)
    reading = read_dice(frame, expect=2)
    assert sorted(d.value for d in reading.dice if d.value is not None) == [3, 5], reading


def test_no_value_from_a_plain_body() -> None:
    """A die-coloured square with no pips (a token, a marker) reads as nothing."""
    frame = render([DieSpec(1, (320, 240), 44.0, 0.0, body=(40, 40, 200), pip=(40, 40, 200))], seed=3)
    got, _ = _body_read(frame, (320, 240))
    assert got is None


def test_a_mark_on_the_face_spoils_it() -> None:
    """A fourth light spot inside a 3's face (a chip, a crumb): not a legal 3, not a legal 4."""
    frame = render([DieSpec(3, (320, 240), 44.0, 0.0, body=(40, 40, 200), pip=(235, 235, 235))], seed=4)
    cv2.circle(frame, (320 + 9, 240 - 9), 3, (235, 235, 235), -1)
    got, why = _body_read(frame, (320, 240))
    assert got is None, why


def test_a_squashed_face_is_refused_as_cocked() -> None:
    frame = render([DieSpec(5, (320, 240), 44.0, 0.0, 0.55, body=(40, 40, 200), pip=(235, 235, 235))], seed=5)
    got, why = _body_read(frame, (320, 240))
    assert got is None, why

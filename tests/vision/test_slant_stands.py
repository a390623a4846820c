"""M.DICE.2: a top face measured at a slant by the Lab reader is not overruled by the colour reader's value unless
the net is sure of that value (vision/bodyread.py `read_body`).

bench/refusals.py renders a leaning die of every value beside a flat 4. A red 6 leaning about 53 degrees (its top
face squashed to 0.6, turned 70 degrees) was read as a 4 from four of its pips by the colour reader, the net backing
a 4 at 0.52 only, and the throw was `ok` with the wrong value, read with a die size and a board. On the Byler photos
(held out) the colour reader overruled such a slant 20 times, each a 6 the net read a 6 at 0.90-0.97: all still read.
"""

from __future__ import annotations

import numpy as np

from calibration.model import Calibration
from tests.vision.render import DieSpec, render
from vision import Verdict, read_dice
from vision.bodyread import read_body
from vision.colourpips import read_colour_face
from vision.dicenet import N_CLASSES, NetRead
from vision.faces import read_face

RED = ((40, 40, 170), (245, 245, 245))
W, H = 640, 480
TABLE = Calibration(image_size=(W, H), board_polygon=((0.0, 0.0), (W, 0.0), (W, H), (0.0, H)), die_size_px=40.0)
LEANING = (250.0, 220.0)


def _scene() -> np.ndarray:
    body, pip = RED
    # The bench's scene: value 6, squash 0.6, turned 70 degrees, the third look (its seed 5 * 100 + 3 * 10 + 2).
    return render([DieSpec(6, LEANING, angle=70.0, squash=0.6, body=body, pip=pip),
                   DieSpec(4, (420.0, 300.0), angle=30.0, body=body, pip=pip)], seed=532)


def _net(value: int, p: float) -> NetRead:
    probs = [0.0] * N_CLASSES
    probs[value] = p
    probs[0] = 1.0 - p  # the rest on "no die", under every threshold that refuses for it
    return NetRead.of(tuple(probs))


def test_the_leaning_red_6_is_refused_not_read_as_a_4() -> None:
    r = read_dice(_scene(), TABLE, expect=2)
    assert r.verdict is Verdict.UNREADABLE, (r.verdict, r.values)
    leaning = min(r.dice, key=lambda d: float(np.hypot(d.center[0] - LEANING[0], d.center[1] - LEANING[1])))
    assert leaning.value is None
    assert "cocked: the top face is seen at a slant" in r.reason


def test_a_colour_read_overrules_the_slant_only_with_the_net_sure_of_its_value() -> None:
    frame = _scene()
    # The body as the reader found it: the segmented blob and the outline re-found inside it. (The colour reader
    # reads the 4 at exactly this blob; rounded to 0.01 px it reads two channels as different faces.)
    blob = ((250.8029327392578, 218.20802307128906), 46.77608108520508, -19.98310661315918)
    tight = ((249.44822766053977, 217.49137136025973), 39.72205458248055, -19.98310661315918)
    assert read_colour_face(frame, *blob).value == 4
    assert read_face(frame, *tight).reason == "cocked: the top face is seen at a slant"
    unsure = read_body(frame, blob, tight, False, _net(4, 0.52), squarish=True)
    assert unsure.value is None and unsure.reason == "cocked: the top face is seen at a slant"
    # The same colour read (a 4) with the net sure of a 4 stands, as the Byler photos' 6s do.
    sure = read_body(frame, blob, tight, False, _net(4, 0.95), squarish=True)
    assert sure.value == 4
    # Sure of another value: still the slant's refusal.
    other = read_body(frame, blob, tight, False, _net(6, 0.95), squarish=True)
    assert other.value is None

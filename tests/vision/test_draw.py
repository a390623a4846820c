"""Where the annotated picture's labels go (vision/draw.py): clear of the dice, of each other and of the banner."""

from __future__ import annotations

import numpy as np

from vision.draw import _outline, _overlap, annotate, place_label
from vision.reading import DiceReading, Die, Verdict


def _die(value: int, x: float, y: float, size: float = 30.0) -> Die:
    return Die(value, (x, y), 0.95, True, size)


def test_labels_of_touching_dice_cover_neither_die_nor_each_other() -> None:
    # A stacked pair's or two touching dice's labels, each placed above its die, used to be drawn over each other.
    dice = (_die(3, 300, 200), _die(5, 330, 205), _die(1, 300, 232))
    outlines = [_outline(d) for d in dice]
    banner = (4, 4, 200, 30)
    taken = [banner, *outlines]
    placed = []
    for o in outlines:
        r = place_label((52, 16), o, (640, 480), taken)
        taken.append(r)
        placed.append(r)
    for i, r in enumerate(placed):
        assert min(r[0], r[1]) >= 0 and r[2] < 640 and r[3] < 480
        assert not any(_overlap(r, o) for o in outlines)
        assert not any(_overlap(r, q) for j, q in enumerate(placed) if j != i)
    assert placed[0][3] < outlines[0][1]  # the first goes above its die, as before


def test_a_label_at_the_frame_edge_goes_below_or_stays_in_the_frame() -> None:
    top = _outline(_die(2, 100, 18))
    r = place_label((52, 16), top, (640, 480), [])
    assert r[1] > top[3]  # no room above: below
    # Nowhere free (a frame the die fills): above it, moved into the frame.
    r = place_label((52, 16), (0, 0, 59, 59), (60, 60), [])
    assert r == (0, 0, 51, 15)


def test_annotate_draws_labels_on_a_light_backing() -> None:
    frame = np.full((480, 640, 3), 90, np.uint8)
    reading = DiceReading(Verdict.OK, "", (_die(4, 300, 240), _die(6, 332, 240)))
    out = annotate(frame, reading)
    assert np.array_equal(frame, np.full((480, 640, 3), 90, np.uint8))  # the frame itself untouched
    d0 = _outline(reading.dice[0])
    above = out[d0[1] - 14:d0[1] - 4, d0[0]:d0[0] + 40]
    assert (above == 255).all(axis=2).mean() > 0.5  # the label's white backing above the first die

"""Where the annotated picture's labels go (vision/draw.py): clear of the dice, of each other and of the banner; the
verdict's banner within the frame."""

from __future__ import annotations

import cv2
import numpy as np

from vision.draw import _outline, _overlap, annotate, place_label, wrap
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


def test_a_die_label_on_a_640x480_picture_is_drawn_large_enough_to_read() -> None:
    # The dashboard's roll pictures and `tableside read --annotate` on the product's frames: at the frame-relative
    # scale alone a label's text was 5 px tall, "1:6 0.95" a run of digits to the eye.
    frame = np.full((480, 640, 3), 90, np.uint8)
    reading = DiceReading(Verdict.OK, "", (_die(6, 320, 300),))
    out = annotate(frame, reading).astype(int)
    d0 = _outline(reading.dice[0])
    above = out[60:d0[1] - 1, d0[0] - 20:d0[0] + 120]
    text = (above[..., 1] - above[..., 2] > 40) & (above[..., 1] - above[..., 0] > 40)  # the label's green ink
    rows, cols = np.flatnonzero(text.any(axis=1)), np.flatnonzero(text.any(axis=0))
    assert rows.size and rows.max() - rows.min() + 1 >= 9
    assert cols.max() - cols.min() + 1 >= 36  # the whole label, "1:6 0.95", drawn at that size


LONG = "die 13 unreadable: no pips seen on a die, and the net not sure of its value (3 at p 0.64)"


def test_wrap_keeps_every_line_within_the_width_and_every_word() -> None:
    for width in (200, 300, 620, 2000):
        lines = wrap(LONG, width, 0.8, 1)
        assert all(cv2.getTextSize(line, cv2.FONT_HERSHEY_SIMPLEX, 0.8, 1)[0][0] <= width for line in lines)
        assert " ".join(lines) == LONG  # broken at spaces only: no word here is wider than 200 px
    assert wrap(LONG, 2000, 0.8, 1) == [LONG]
    # A word wider than the width is broken inside it, and nothing is lost.
    lines = wrap("x" * 80, 100, 0.8, 1)
    assert len(lines) > 1 and "".join(lines) == "x" * 80


def test_a_long_reason_wraps_inside_the_frame() -> None:
    # The reason ran off a 640 px frame's right edge as one line (`tableside read --annotate` on a Byler photo).
    frame = np.full((640, 640, 3), 90, np.uint8)
    dice = (Die(None, (300.0, 300.0), 0.0, True, 30.0), _die(4, 400, 300))
    out = annotate(frame, DiceReading(Verdict.UNREADABLE, LONG, dice))
    top = out[:80]
    red = (top[..., 2] > 150) & (top[..., 0] < 120) & (top[..., 1] < 120)  # the banner's red text
    ys, xs = np.nonzero(red)
    assert xs.max() < 640 - 4
    rows = np.unique(ys)
    assert rows.max() - rows.min() > 25  # two lines of text or more, not one
    # The white backing holds all of it and stays inside the frame.
    assert (out[6, 6:600] == 255).all()

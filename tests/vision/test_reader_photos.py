"""The reader on the real Byler photos (../shared/data/dice-byler: 250 photos, 1,795 dice, many colours).

Each photo is read with `expect=<labelled count>`; a labelled die counts as *accepted* when a read die
with a value and confidence >= MIN_CONFIDENCE has its centre inside the label's box (nearest first, one to
one). Accuracy is correct / accepted; values read where no die is labelled are counted apart and bound
too. Coverage is accepted / labelled. Colour classes come from the pixels, as described in byler_data.py.

Labels are scored with the corrections in byler_data.ERRATA (dice whose label disagrees with a top face that
is unambiguous by eye); bench/vision.py also prints the figures against the labels as published.

Every photo is read with the dice-net fold model that never saw it (byler_data.held_out; vision/dicenet.py),
so these are held-out figures; the product reads with the model trained on all the photos.

The floors are what this reader measured (2026-11-25; bench/vision.py prints the same figures) minus a small
margin. Accuracy among accepted dice (99.76%) and coverage (91.03%) are over the issue's 99.5% and 90%; white
coverage (96.46%) is still under its 98%. These tests keep the reader from sliding back.
"""

from __future__ import annotations

import pytest

from tests.vision import byler_data as byler
from vision.reader import MIN_CONFIDENCE, read_dice

pytestmark = [pytest.mark.photos, pytest.mark.skipif(not byler.available(), reason=byler.SKIP_REASON)]


@pytest.fixture(scope="module")
def score() -> byler.Score:
    s = byler.evaluate(byler.held_out(read_dice), MIN_CONFIDENCE)
    print("\n" + byler.report(s, "reader on Byler photos"))
    return s


def test_all_photos_and_dice_scored(score: byler.Score) -> None:
    assert score.images == 250
    assert score.overall.labelled == 1795


def test_accuracy_among_accepted_dice(score: byler.Score) -> None:
    # measured 99.76% (1630/1634); with the 7 values read where no die is labelled 99.33% (two of them are
    # real, unlabelled dice read right: a green 6 in IMG_20191209_095533.jpg at (339, 362), a black 3 in
    # IMG_20191208_112353.jpg at (313, 379))
    assert score.overall.accuracy >= 0.995
    assert score.accuracy_with_false >= 0.99
    assert score.false_dice <= 8


def test_coverage(score: byler.Score) -> None:
    # measured 91.03% overall
    assert score.overall.coverage >= 0.90


def test_by_colour(score: byler.Score) -> None:
    # measured: white 96.46% coverage / 100.00% accuracy (191/191), dark 85.78% / 99.49% (588/591), coloured
    # 93.83% / 99.88% (851/852)
    floors = {"white": (0.95, 0.985), "dark": (0.84, 0.985), "coloured": (0.925, 0.995)}
    for colour, (cov, acc) in floors.items():
        t = score.by_colour[colour]
        assert t.coverage >= cov, (colour, t.coverage)
        assert t.accuracy >= acc, (colour, t.accuracy)


def test_by_value(score: byler.Score) -> None:
    # measured coverage 1..6: 93.69 / 90.52 / 87.99 / 90.78 / 93.20 / 89.93 %
    floors = {1: 0.92, 2: 0.895, 3: 0.86, 4: 0.895, 5: 0.92, 6: 0.885}
    for value in range(1, 7):
        t = score.by_value[value]
        assert t.coverage >= floors[value], (value, t.coverage)
        assert t.accuracy >= 0.95, (value, t.accuracy)


def test_images_fully_correct_and_ok_verdicts_rarely_wrong(score: byler.Score) -> None:
    # measured: 148 of 250 photos `ok` with every die right; one `ok` with a die missed: IMG_20191209_095533.jpg
    # has 14 dice but 13 labelled, and the reader read 13 of the 14 (every value right)
    assert score.images_ok_correct >= 140
    assert score.images_ok_wrong <= 1

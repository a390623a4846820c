"""The reader on the real Byler photos (../shared/data/dice-byler: 250 photos, 1,795 dice, many colours).

Each photo is read with `expect=<labelled count>`; a labelled die counts as *accepted* when a read die
with a value and confidence >= MIN_CONFIDENCE has its centre inside the label's box (nearest first, one to
one). Accuracy is correct / accepted; values read where no die is labelled are counted apart and bound
too. Coverage is accepted / labelled. Colour classes come from the pixels, as described in byler_data.py.

Labels are scored with the three corrections in byler_data.ERRATA (dice whose label disagrees with a top
face that is unambiguous by eye); bench/vision.py also prints the figures against the labels as published.

The floors are what this reader measured (see bench/vision.py for the full print-out) minus a small margin.
Coverage is still far below the issue's targets (90% overall, 98% for white dice); accuracy among accepted
dice (99.62%) is now over its 99.5%. White dice (read pip-first, vision/darkpips.py) are at 92% coverage /
99.5% accuracy; dark and coloured dice (light pips read pip-first on the inverted image, the rest from their
bodies by vision/colourpips.py, then vision/faces.py) at 45.3% and 61.3%. These tests keep the reader from
sliding back while it gets there.
"""

from __future__ import annotations

import pytest

from tests.vision import byler_data as byler
from vision.reader import MIN_CONFIDENCE, read_dice

pytestmark = [pytest.mark.photos, pytest.mark.skipif(not byler.available(), reason=byler.SKIP_REASON)]


@pytest.fixture(scope="module")
def score() -> byler.Score:
    s = byler.evaluate(lambda p: read_dice(p.image, expect=len(p.dice)), MIN_CONFIDENCE)
    print("\n" + byler.report(s, "reader on Byler photos"))
    return s


def test_all_photos_and_dice_scored(score: byler.Score) -> None:
    assert score.images == 250
    assert score.overall.labelled == 1795


def test_accuracy_among_accepted_dice(score: byler.Score) -> None:
    # measured 99.66% (1190/1194); with the 4 values read where no die is labelled 99.33% (one of them is a
    # real, unlabelled die read right: a green 6 in IMG_20191209_095533.jpg at (339, 362))
    assert score.overall.accuracy >= 0.993
    assert score.accuracy_with_false >= 0.99
    assert score.false_dice <= 5


def test_coverage(score: byler.Score) -> None:
    # measured 66.52% overall
    assert score.overall.coverage >= 0.655


def test_by_colour(score: byler.Score) -> None:
    # measured: white 92.9% coverage / 99.5% accuracy (183/184), dark 53.6% / 99.2% (366/369), coloured
    # 70.6% / 100% (641/641)
    floors = {"white": (0.92, 0.985), "dark": (0.525, 0.98), "coloured": (0.70, 0.99)}
    for colour, (cov, acc) in floors.items():
        t = score.by_colour[colour]
        assert t.coverage >= cov, (colour, t.coverage)
        assert t.accuracy >= acc, (colour, t.accuracy)


def test_by_value(score: byler.Score) -> None:
    # measured coverage 1..6: 44.5 / 63.1 / 71.8 / 77.1 / 77.9 / 64.5 %
    floors = {1: 0.435, 2: 0.62, 3: 0.71, 4: 0.76, 5: 0.765, 6: 0.63}
    for value in range(1, 7):
        t = score.by_value[value]
        assert t.coverage >= floors[value], (value, t.coverage)
        assert t.accuracy >= 0.95, (value, t.accuracy)


def test_images_fully_correct_and_ok_verdicts_rarely_wrong(score: byler.Score) -> None:
    # measured: 52 of 250 photos `ok` with every die right; none `ok` with a die wrong or missed
    assert score.images_ok_correct >= 50
    assert score.images_ok_wrong <= 1

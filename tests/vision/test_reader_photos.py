"""The reader on the real Byler photos (../shared/data/dice-byler: 250 photos, 1,795 dice, many colours).

Each photo is read with `expect=<labelled count>`; a labelled die counts as *accepted* when a read die
with a value and confidence >= MIN_CONFIDENCE has its centre inside the label's box (nearest first, one to
one). Accuracy is correct / accepted; values read where no die is labelled are counted apart and bound
too. Coverage is accepted / labelled. Colour classes come from the pixels, as described in byler_data.py.

The floors are what this reader measured (see bench/vision.py for the full print-out) minus a small margin.
Overall they are far below the issue's targets (99.5% accuracy, 90% coverage, 98% for white dice): white
dice (read pip-first, vision/darkpips.py) are at 92% coverage / 99.4% accuracy; dark and coloured dice
(light pips read pip-first on the inverted image, the rest body-first) at 36% and 47%; these tests keep
the reader from sliding back while it gets there.
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
    # measured 99.19% (852/859); with the 2 values read off unlabelled spots 98.95%
    assert score.overall.accuracy >= 0.99
    assert score.accuracy_with_false >= 0.987
    assert score.false_dice <= 3


def test_coverage(score: byler.Score) -> None:
    # measured 47.9% overall
    assert score.overall.coverage >= 0.47


def test_by_colour(score: byler.Score) -> None:
    # measured: white 92.4% coverage / 99.5% accuracy (182/183), dark 36.4% / 98.8%, coloured 46.8% / 99.3%
    floors = {"white": (0.91, 0.985), "dark": (0.34, 0.975), "coloured": (0.45, 0.985)}
    for colour, (cov, acc) in floors.items():
        t = score.by_colour[colour]
        assert t.coverage >= cov, (colour, t.coverage)
        assert t.accuracy >= acc, (colour, t.accuracy)


def test_by_value(score: byler.Score) -> None:
    # measured coverage 1..6: 31 / 53 / 58 / 57 / 59 / 27 %; accuracy 98.9 / 98.2 / 100 / 99.4 / 99.5 / 98.7 %
    floors = {1: 0.30, 2: 0.51, 3: 0.55, 4: 0.54, 5: 0.56, 6: 0.25}
    for value in range(1, 7):
        t = score.by_value[value]
        assert t.coverage >= floors[value], (value, t.coverage)
        assert t.accuracy >= 0.95, (value, t.accuracy)


def test_images_fully_correct_and_ok_verdicts_rarely_wrong(score: byler.Score) -> None:
    # measured: 28 of 250 photos `ok` with every die right; 1 `ok` with a die wrong or missed
    assert score.images_ok_correct >= 25
    assert score.images_ok_wrong <= 2

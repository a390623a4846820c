"""The reader on the real Byler photos (../shared/data/dice-byler: 250 photos, 1,795 dice, many colours).

Each photo is read with `expect=<labelled count>`; a labelled die counts as *accepted* when a read die
with a value and confidence >= MIN_CONFIDENCE has its centre inside the label's box (nearest first, one to
one). Accuracy is correct / accepted; values read where no die is labelled are counted apart and bound
too. Coverage is accepted / labelled. Colour classes come from the pixels, as described in byler_data.py.

The floors are what this reader measured (see bench/vision.py for the full print-out) minus a small margin.
Overall they are far below the issue's targets (99.5% accuracy, 90% coverage, 98% for white dice): white
dice (read pip-first, vision/darkpips.py) are at 90% coverage / 99.4% accuracy, dark and coloured dice
(read body-first) at about a third; these tests keep the reader from sliding back while it gets there.
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
    # measured 98.79% (732/741); with the 2 values read off unlabelled spots 98.52%
    assert score.overall.accuracy >= 0.98
    assert score.accuracy_with_false >= 0.975
    assert score.false_dice <= 5


def test_coverage(score: byler.Score) -> None:
    # measured 41.3% overall
    assert score.overall.coverage >= 0.39


def test_by_colour(score: byler.Score) -> None:
    # measured: white 90.4% coverage / 99.4% accuracy (178/179), dark 32.4% / 98.7%, coloured 37.3% / 98.5%
    floors = {"white": (0.88, 0.985), "dark": (0.30, 0.97), "coloured": (0.35, 0.97)}
    for colour, (cov, acc) in floors.items():
        t = score.by_colour[colour]
        assert t.coverage >= cov, (colour, t.coverage)
        assert t.accuracy >= acc, (colour, t.accuracy)


def test_by_value(score: byler.Score) -> None:
    # measured coverage 1..6: 30 / 46 / 50 / 46 / 50 / 24 %; accuracy 98.9 / 97.9 / 99.4 / 98.5 / 99.4 / 98.5 %
    for value in range(1, 7):
        t = score.by_value[value]
        assert t.coverage >= (0.22 if value == 6 else 0.27), (value, t.coverage)
        assert t.accuracy >= 0.95, (value, t.accuracy)


def test_images_fully_correct_and_ok_verdicts_rarely_wrong(score: byler.Score) -> None:
    # measured: 27 of 250 photos `ok` with every die right; 1 `ok` with a die wrong or missed
    assert score.images_ok_correct >= 24
    assert score.images_ok_wrong <= 2

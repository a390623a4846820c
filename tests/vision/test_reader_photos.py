"""The reader on the real Byler photos (../shared/data/dice-byler: 250 photos, 1,795 dice, many colours).

Each photo is read with `expect=<labelled count>`; a labelled die counts as *accepted* when a read die
with a value and confidence >= MIN_CONFIDENCE has its centre inside the label's box (nearest first, one to
one). Accuracy is correct / accepted; values read where no die is labelled are counted apart and bound
too. Coverage is accepted / labelled. Colour classes come from the pixels, as described in byler_data.py.

The floors are what this reader measured (see bench/vision.py for the full print-out) minus a small margin.
They are far below the issue's targets (99.5% accuracy, 90% coverage, 98% for white dice): the reader is
not there yet, and these tests keep it from sliding back while it gets there.
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
    # measured 98.44% (630/640); with the 1 value read off an unlabelled spot 98.28%
    assert score.overall.accuracy >= 0.975
    assert score.accuracy_with_false >= 0.97
    assert score.false_dice <= 6


def test_coverage(score: byler.Score) -> None:
    # measured 35.7% overall
    assert score.overall.coverage >= 0.33


def test_by_colour(score: byler.Score) -> None:
    # measured: white 40.4% coverage / 97.5% accuracy, dark 32.2% / 98.7%, coloured 37.2% / 98.5%
    floors = {"white": (0.35, 0.95), "dark": (0.30, 0.97), "coloured": (0.33, 0.97)}
    for colour, (cov, acc) in floors.items():
        t = score.by_colour[colour]
        assert t.coverage >= cov, (colour, t.coverage)
        assert t.accuracy >= acc, (colour, t.accuracy)


def test_by_value(score: byler.Score) -> None:
    # measured coverage 1..6: 28 / 40 / 44 / 41 / 43 / 15 %; accuracy 98.8 / 96.8 / 99.3 / 98.4 / 99.3 / 97.7 %
    for value in range(1, 7):
        t = score.by_value[value]
        assert t.coverage >= 0.12, (value, t.coverage)
        assert t.accuracy >= 0.90, (value, t.accuracy)


def test_images_fully_correct_and_ok_verdicts_rarely_wrong(score: byler.Score) -> None:
    # measured: 18 of 250 photos `ok` with every die right; 2 `ok` with a die wrong or missed
    assert score.images_ok_correct >= 14
    assert score.images_ok_wrong <= 3

"""The photo scorer (tests/vision/byler_data.py): which read die answers for which labelled die, and the lines
`bench/vision.py --wrong` prints. Built from hand-made readings: no photos needed."""

from __future__ import annotations

import numpy as np

from tests.vision import byler_data as byler
from vision.reading import DiceReading, Die, Verdict

PHOTO = byler.Photo(0, "IMG_TEST.jpg", np.zeros((100, 200, 3), np.uint8), (
    byler.LabelledDie(3, (10.0, 10.0, 40.0, 40.0), "white"),
    byler.LabelledDie(5, (60.0, 10.0, 90.0, 40.0), "dark"),
    byler.LabelledDie(2, (110.0, 10.0, 140.0, 40.0), "coloured"),
))


def test_matched_takes_the_die_nearest_the_box_centre_once() -> None:
    # Two dice inside the first box: the one nearer its centre (25, 25) is its die; the other answers for none.
    reading = DiceReading(Verdict.UNREADABLE, "", (
        Die(3, (36.0, 36.0), 0.9), Die(None, (26.0, 24.0), 0.0), Die(5, (75.0, 25.0), 0.9)))
    assert byler.matched(PHOTO, reading) == {0: 1, 1: 2}


def test_mistakes_name_each_wrong_value_and_each_value_off_the_labels() -> None:
    reading = DiceReading(Verdict.UNREADABLE, "found 4 dice, expected 3", (
        Die(3, (25.0, 25.0), 0.9),      # right
        Die(4, (75.0, 25.0), 0.8),      # a dark 5 read 4
        Die(6, (125.0, 25.0), 0.1),     # below the confidence trusted: not counted as wrong
        Die(1, (180.0, 80.0), 0.7),     # where no die is labelled
    ))
    lines = byler.mistakes(PHOTO, reading, 0.35)
    assert lines == [
        "IMG_TEST.jpg: a dark 5 read 4 (confidence 0.80) at (75, 25); the throw unreadable",
        "IMG_TEST.jpg: 1 read where no die is labelled (confidence 0.70) at (180, 80); the throw unreadable",
    ]
    score = byler.Score()
    byler.score_photo(PHOTO, reading, 0.35, score)
    assert (score.overall.accepted - score.overall.correct, score.false_dice) == (1, 1)


def test_mistakes_name_a_die_an_ok_throw_leaves_out() -> None:
    reading = DiceReading(Verdict.OK, "", (Die(3, (25.0, 25.0), 0.9), Die(5, (75.0, 25.0), 0.9)))
    assert byler.mistakes(PHOTO, reading, 0.35) == ["IMG_TEST.jpg: a coloured 2 not read, in a throw read ok"]
    score = byler.Score()
    byler.score_photo(PHOTO, reading, 0.35, score)
    assert score.images_ok_wrong == 1
    right = DiceReading(Verdict.OK, "", (*reading.dice, Die(2, (125.0, 25.0), 0.9)))
    assert byler.mistakes(PHOTO, right, 0.35) == []

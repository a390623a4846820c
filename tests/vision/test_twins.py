"""A die seen twice (its shadow or a part of its body read as another, unreadable die) does not spoil a throw
whose count is otherwise right (calibrated reads; vision/throwchecks.py, drop_twins)."""

from __future__ import annotations

from tests.vision.simthrows import assert_read_right
from vision.reading import Die
from vision.throwchecks import TWIN, drop_twins


def _die(value: int | None, x: float, y: float = 100.0, size: float = 30.0) -> Die:
    return Die(value, (x, y), 0.9 if value else 0.0, True, size)


def test_an_unread_die_closer_than_a_side_to_a_read_one_is_dropped_when_the_count_is_then_right() -> None:
    dice = [_die(3, 100.0), _die(None, 100.0 + 0.6 * 30.0), _die(5, 300.0)]
    problems = ["", "a mark on the face that is not a pip", ""]
    drop_twins(dice, problems, 30.0, 2)
    assert [d.value for d in dice] == [3, 5] and problems == ["", ""]


def test_the_reason_stays_where_dropping_would_not_make_the_count() -> None:
    # One die read, one unread against it: short of dice either way, and "die 2 unreadable: ..." says more.
    dice = [_die(3, 100.0), _die(None, 118.0)]
    problems = ["", "pips do not form a d6 layout"]
    drop_twins(dice, problems, 30.0, 2)
    assert len(dice) == 2 and problems[1] == "pips do not form a d6 layout"


def test_dice_a_side_apart_and_physical_reasons_are_kept() -> None:
    # Two flat dice touching have their centres a whole side apart; a stacked or cocked die is never a twin.
    for why, x in (("pips do not form a d6 layout", 100.0 + TWIN * 30.0 + 1.0),
                   ("stacked or overlapping dice", 110.0), ("cocked: the top face is seen at a slant", 110.0)):
        dice = [_die(3, 100.0), _die(None, x), _die(5, 300.0)]
        problems = ["", why, ""]
        drop_twins(dice, problems, 30.0, 2)
        assert len(dice) == 3, why


def test_a_die_and_its_shadow_read_as_one_die_on_the_simulated_board() -> None:
    """Simulated camera, plain throw seed 12 (a 6 and a 1): the body pass cut the 6's shadow off as two more
    unreadable dice ("found 4 dice, expected 2") until they were taken for what they are."""
    assert_read_right(12)

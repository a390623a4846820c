"""A soft picture (vision/focus.py): the blur measured at the dice read, and a calibrated throw refused where it is
softer than the lean checks hold at (M.DICE.2: a cocked die means both dice again, so a picture too soft to tell one
must not give a roll)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.vision.camera_looks import blur
from tests.vision.render import DieSpec, motion_blur, render
from tests.vision.simthrows import sim_throw_before
from vision import Verdict, read_dice
from vision.change import changes
from vision.focus import (
    MAX_BLUR,
    MAX_BLUR_LIGHT_PIPS,
    MAX_SMEAR,
    MAX_SMEAR_LIGHT_PIPS,
    ROUND_SMEAR,
    SMEAR_LEAST_DIE,
    blur_limit,
    die_blur,
    die_smear,
    frame_blur,
    frame_blurs,
    one_way,
    smear_limit,
    smeared,
)
from vision.reading import Die


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    return blur(sigma)(img)


def _grey(img: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), np.uint8)


def test_the_blur_measured_grows_with_the_blur_added() -> None:
    frame = render([DieSpec(5, (320, 240), size=40.0, angle=20.0)], seed=3)
    die = Die(5, (320.0, 240.0), 1.0, size=40.0)
    got = [die_blur(_grey(_blur(frame, s) if s else frame), die) for s in (0.0, 1.0, 2.0, 3.0)]
    assert all(g is not None for g in got), got
    values = [float(g) for g in got if g is not None]
    # Measured 0.65, 1.07, 1.52, 1.90 px: a pip's edges are a disc's of 3.4 px radius, not a straight edge's, and once
    # the blur nears the pip's size the ratio reads short of it; it keeps growing, which is what the limit asks.
    assert all(b - a > 0.3 for a, b in itertools.pairwise(values)), values
    assert 0.4 <= values[0] <= 0.9, values  # (the render's own softness: anti-aliased pips)


def test_the_measure_does_not_depend_on_the_pips_contrast() -> None:
    # The same die with grey pips instead of black ones: the edges are half as steep, and as blurred.
    sharp = [DieSpec(4, (320, 240), size=40.0)]
    pale = [replace(sharp[0], pip=(130, 130, 130))]
    die = Die(4, (320.0, 240.0), 1.0, size=40.0)
    for sigma in (1.0, 2.0):
        a = die_blur(_grey(_blur(render(sharp, seed=1), sigma)), die)
        b = die_blur(_grey(_blur(render(pale, seed=1), sigma)), die)
        assert a is not None and b is not None
        assert abs(a - b) < 0.15 * a, (sigma, a, b)


def test_no_measure_without_a_die_to_measure() -> None:
    frame = _grey(render([DieSpec(3, (320, 240))], seed=2))
    assert die_blur(frame, Die(3, (5.0, 5.0), 1.0, size=40.0)) is None  # (too near the frame's edge)
    assert die_blur(frame, Die(3, (320.0, 240.0), 1.0)) is None  # (no size)
    assert frame_blur(frame, [Die(None, (320.0, 240.0), 0.0, size=40.0)], 40.0) is None  # (no die read)
    # A die read from a plain body (the net's value on a face with no pips) has no edge to measure.
    assert die_blur(frame, Die(2, (500.0, 300.0), 1.0, size=40.0)) is None
    assert frame_blur(frame, [Die(2, (500.0, 300.0), 1.0, size=40.0), Die(3, (320.0, 240.0), 1.0, size=40.0)],
                      40.0) == frame_blur(frame, [Die(3, (320.0, 240.0), 1.0, size=40.0)], 40.0)


def _as_taken(frame: np.ndarray) -> np.ndarray:
    return frame


def _read_changed(after: np.ndarray, before: np.ndarray, cal, look):  # type: ignore[no-untyped-def]
    a, b = look(after), look(before)
    return read_dice(a, calibration=cal, changed=changes(b, a, cal.die_size_px), before=b)


def _read_where_changed(after: np.ndarray, before: np.ndarray, cal, sigma: float):  # type: ignore[no-untyped-def]
    return _read_changed(after, before, cal, blur(sigma) if sigma else _as_taken)


@pytest.mark.parametrize("seed", [8, 51])
def test_a_soft_picture_of_a_cocked_die_is_no_roll(seed: int) -> None:
    """The simulated camera's die leaning on the hotel (seeds 8 and 51), blurred 1.5 px: the lean checks no longer see
    its side face's pips, and before vision/focus.py the throw was `ok` with the leaning die's value (read as the
    roll watcher reads it)."""
    after, before, cal, truth = sim_throw_before("cocked", seed)
    assert truth.verdict is Verdict.UNREADABLE
    assert _read_where_changed(after, before, cal, 0.0).verdict is Verdict.UNREADABLE
    soft = _read_where_changed(after, before, cal, 1.5)
    assert soft.verdict is Verdict.UNREADABLE, soft
    assert "too soft" in soft.reason


def test_a_soft_picture_of_a_plain_throw_says_why() -> None:
    after, before, cal, truth = sim_throw_before("ok", 3)
    sharp = _read_where_changed(after, before, cal, 0.0)
    assert sharp.verdict is Verdict.OK and sorted(sharp.values) == sorted(truth.values)  # type: ignore[type-var]
    soft = _read_where_changed(after, before, cal, 1.5)
    assert soft.verdict is Verdict.UNREADABLE
    assert soft.reason.startswith("the picture is too soft to tell a leaning die (blur 0.0")
    assert soft.reason.endswith(f"the checks hold to {MAX_BLUR}): focus the camera, or bring it nearer")
    # A little softness, as a real lens has, costs nothing: blurred 0.75 px, the same throw reads as before.
    assert _read_where_changed(after, before, cal, 0.75).values == sharp.values
    assert _read_where_changed(after, before, cal, 0.75).verdict is Verdict.OK


def test_dice_with_light_pips_are_refused_for_more_softness() -> None:
    """Red dice's lean checks go by the die's colour too, which blur takes more slowly: blurred 1.25 px (over MAX_BLUR)
    the simulated camera's red dice still read at 640x480 (dice of 31 px)."""
    after, before, cal, truth = sim_throw_before("ok", 4, look="red")
    r = _read_where_changed(after, before, cal, 1.25)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]
    b = frame_blur(blur(1.25)(after), r.dice, cal.die_size_px)
    assert b is not None and MAX_BLUR < b <= MAX_BLUR_LIGHT_PIPS, b


def test_a_soft_picture_of_a_red_die_leaning_at_the_pi_units_view_is_no_roll() -> None:
    """Red and black dice had no round-blur limit: at 640x480 blurred up to 2 px none leaning was `ok`. At the Pi
    unit's view (dice of 26 px) a red die leaning on the hotel, blurred 1.5 px, was `ok` with its top face's value
    (seed 109; 22 red of 360 blurred 1.25-2 px and 1 black of 240, seeds 1-120): now refused as too soft
    (MAX_BLUR_LIGHT_PIPS)."""
    after, before, cal, truth = sim_throw_before("cocked", 109, look="red", **PI_VIEW)
    assert truth.verdict is Verdict.UNREADABLE
    assert _read_changed(after, before, cal, _as_taken).verdict is Verdict.UNREADABLE
    r = _read_where_changed(after, before, cal, 1.5)
    assert r.verdict is Verdict.UNREADABLE, r
    assert r.reason.startswith("the picture is too soft to tell a leaning die (blur 0.0"), r.reason
    assert r.reason.endswith(f"the checks hold to {MAX_BLUR_LIGHT_PIPS}): focus the camera, or bring it nearer")


def test_uncalibrated_reads_are_not_refused_for_softness() -> None:
    after, _, _, _ = sim_throw_before("ok", 3)
    r = read_dice(_blur(after, 1.5), expect=2)
    assert "too soft" not in r.reason


def _smeared_where_changed(after: np.ndarray, before: np.ndarray, cal, length: int):  # type: ignore[no-untyped-def]
    return _read_changed(after, before, cal, (lambda f: motion_blur(f, length, 0.0)) if length else _as_taken)


def test_a_smear_is_measured_along_it_where_the_steepest_edges_miss_it() -> None:
    # A die smeared 6 px: die_blur, over the steepest edges (those across the motion), hardly moves; die_smear, in
    # the softest direction, grows as a round blur's does.
    frame = render([DieSpec(5, (320, 240), size=40.0, angle=20.0)], seed=3)
    die = Die(5, (320.0, 240.0), 1.0, size=40.0)
    sharp_b, sharp_s = die_blur(frame, die), die_smear(frame, die)
    smeared = motion_blur(frame, 6, 0.0)
    b, s = die_blur(smeared, die), die_smear(smeared, die)
    assert None not in (sharp_b, sharp_s, b, s)
    assert b - sharp_b < 0.3, (sharp_b, b)  # type: ignore[operator]
    assert s - sharp_s > 0.6, (sharp_s, s)  # type: ignore[operator]
    # A round blur: the softest direction about as soft as the steepest edges say (1.0-1.3 times).
    round_b, round_s = die_blur(_blur(frame, 1.5), die), die_smear(_blur(frame, 1.5), die)
    assert round_b is not None and round_s is not None
    assert 1.0 <= round_s / round_b <= 1.3, (round_b, round_s)


@pytest.mark.parametrize("seed", [7, 30])
def test_a_smeared_picture_of_a_cocked_die_is_no_roll(seed: int) -> None:
    """The simulated camera's die leaning on the hotel (seeds 7 and 30), both frames smeared 4 px along the frame's
    rows (a camera shaken at rest): the lean checks no longer see its side face's pips, and the soft-picture check,
    over the steepest edges, did not see the smear: the throw was `ok` with the leaning die's value."""
    after, before, cal, truth = sim_throw_before("cocked", seed)
    assert truth.verdict is Verdict.UNREADABLE
    assert _smeared_where_changed(after, before, cal, 0).verdict is Verdict.UNREADABLE
    smeared = _smeared_where_changed(after, before, cal, 4)
    assert smeared.verdict is Verdict.UNREADABLE, smeared
    assert smeared.reason.startswith("the picture is smeared by motion (blur 0.0"), smeared.reason
    limit = smear_limit(light_pips=False, die=cal.die_size_px)
    assert limit < MAX_SMEAR  # (dice of 31 px: vision/focus.py SMEAR_PX_PER_DIE_PX)
    assert smeared.reason.endswith(f"the checks hold to {limit:.3f}): hold the camera and the table still")


# The Pi unit's view: 1280x960, dice of 26 px read enlarged.
PI_VIEW = {"size": (1280, 960), "die_mm": 7.6}


@pytest.mark.parametrize(("view", "seed", "length", "angle"), [
    ("pi", 1, 3, 120.0), ("pi", 109, 3, 90.0), ("640", 110, 4, 150.0)])
def test_a_smaller_die_leaning_is_refused_at_a_smaller_smear(view: str, seed: int, length: int,
                                                              angle: float) -> None:
    """MAX_SMEAR, one share of a die's side for all sizes, was set at 640x480: at the Pi unit's view white dice
    leaning on the hotel and smeared only 3 px (a ninth of a die) were `ok` with the top face's value, measuring
    0.033-0.036 of a side, under it; and at 640x480 one smeared 4 px along 150 degrees, at 0.0388. The limit now falls
    with the die's size in pixels (vision/focus.py SMEAR_PX_PER_DIE_PX): both refused as smeared."""
    after, before, cal, truth = sim_throw_before("cocked", seed, **(PI_VIEW if view == "pi" else {}))
    assert truth.verdict is Verdict.UNREADABLE
    assert _read_changed(after, before, cal, _as_taken).verdict is Verdict.UNREADABLE
    r = _read_changed(after, before, cal, lambda f: motion_blur(f, length, angle))
    assert r.verdict is Verdict.UNREADABLE, r
    b, s = frame_blurs(motion_blur(after, length, angle), r.dice, cal.die_size_px)
    limit = smear_limit(light_pips=False, die=cal.die_size_px)
    assert s is not None and limit < s < MAX_SMEAR, (b, s)
    # (Pi seed 1 measures only 1.23 times its steepest edges' blur, under ROUND_SMEAR: not told from a soft lens.)
    said = "the picture is smeared by motion" if one_way(b, s) else "the picture is soft or smeared at the dice"
    assert r.reason.startswith(f"{said} (blur 0.0"), r.reason
    assert f"the checks hold to {limit:.3f})" in r.reason, r.reason


def test_a_lens_a_little_soft_at_the_pi_units_view_is_told_to_focus_too() -> None:
    """The lower limit for small dice catches a round blur too: at the Pi unit's view, plain throws blurred 0.75 px
    (seeds 1-80) were refused 74 of 80 (none before; such a blur made no wrong `ok`, the least 0.0367 of a side
    in its steepest edges, over MAX_BLUR). The verdict stands (a round blur and a small smear together were `ok` and
    wrong from 1.19 times the steepest edges' blur, so no line between them was drawn); the reason names both cures."""
    after, before, cal, truth = sim_throw_before("ok", 2, **PI_VIEW)
    r = _read_changed(after, before, cal, blur(0.75))
    assert r.verdict is Verdict.UNREADABLE, r
    assert r.reason.startswith("the picture is soft or smeared at the dice (blur 0.0"), r.reason
    assert r.reason.endswith("focus the camera, and hold it and the table still"), r.reason
    less = _read_changed(after, before, cal, blur(0.4))  # (a little less reads)
    assert less.verdict is Verdict.OK, less.reason
    assert sorted(less.values) == sorted(truth.values)  # type: ignore[type-var]


def test_one_way_is_softer_one_way_than_a_round_blur_makes_it() -> None:
    assert one_way(0.03, 0.045) and one_way(None, 0.03)
    assert not one_way(0.03, 0.033) and not one_way(0.03, None)


def test_at_the_pi_units_view_sharp_and_slightly_smeared_throws_still_read() -> None:
    """The lower limit for the Pi unit's 26 px dice sits over what its sharp throws measure (0.024-0.028 of a side,
    seeds 1-120) and most of a 2 px smear's (0.025-0.032): a plain throw, sharp and smeared 2 px, reads."""
    after, before, cal, truth = sim_throw_before("ok", 2, **PI_VIEW)
    for look in (_as_taken, lambda f: motion_blur(f, 2, 30.0)):
        r = _read_changed(after, before, cal, look)
        assert r.verdict is Verdict.OK, r.reason
        assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]


def test_the_smear_limit_follows_the_dice_size() -> None:
    """Less for smaller dice, on a line in pixels of blur (vision/focus.py SMEAR_PX_PER_DIE_PX); MAX_SMEAR from 33.5
    px; under SMEAR_LEAST_DIE held at its value there (lower, it would refuse sharp throws); light-pipped dice's own."""
    limits = [smear_limit(light_pips=False, die=d) for d in (SMEAR_LEAST_DIE, 28.0, 31.0, 33.0)]
    assert all(a < b for a, b in itertools.pairwise(limits)), limits
    assert 0.030 < limits[0] < 0.032 and 0.036 < limits[2] < 0.038, limits
    assert smear_limit(light_pips=False, die=34.0) == smear_limit(light_pips=False, die=47.0) == MAX_SMEAR
    assert smear_limit(light_pips=False, die=20.0) == limits[0]
    assert smear_limit(light_pips=False) == MAX_SMEAR
    assert smear_limit(light_pips=True, die=26.0) == smear_limit(light_pips=True, die=47.0) == MAX_SMEAR_LIGHT_PIPS
    # In pixels of blur, the limit grows with the die: a smaller die's side-face pips are lost to less.
    assert all(smear_limit(light_pips=False, die=a) * a < smear_limit(light_pips=False, die=b) * b
               for a, b in itertools.pairwise((SMEAR_LEAST_DIE, 28.0, 31.0)))


def test_a_slightly_smeared_plain_throw_still_reads() -> None:
    # Smeared 3 px (a tenth of a die), the simulated camera's plain throws of seeds 1-40 all read right; 4 px refuses
    # most (vision/focus.py MAX_SMEAR).
    after, before, cal, truth = sim_throw_before("ok", 3)
    r = _smeared_where_changed(after, before, cal, 3)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]


@pytest.mark.parametrize(("look", "seed", "length", "angle"), [("red", 75, 6, 0.0), ("black", 65, 8, 120.0)])
def test_a_smeared_picture_of_a_cocked_die_with_light_pips_is_no_roll(look: str, seed: int, length: int,
                                                                      angle: float) -> None:
    """Red and black dice were not checked for a smear (their lean checks go by the die's colour, which a round blur
    keeps): smeared 6-8 px along some directions, their die leaning on the hotel lost the side face the checks look
    for, and the throw was `ok` with its top face's value (these two; 73 of 61,200 cocked throws smeared 3-10 px, red
    and black, at 640x480; 5 of 7,200 at the Pi unit's view)."""
    after, before, cal, truth = sim_throw_before("cocked", seed, look=look)
    assert truth.verdict is Verdict.UNREADABLE
    assert _read_changed(after, before, cal, _as_taken).verdict is Verdict.UNREADABLE
    r = _read_changed(after, before, cal, lambda f: motion_blur(f, length, angle))
    assert r.verdict is Verdict.UNREADABLE, r
    assert r.reason.startswith("the picture is smeared by motion (blur 0.0"), r.reason
    assert f"the checks hold to {MAX_SMEAR_LIGHT_PIPS})" in r.reason


def test_light_pipped_dice_smeared_a_little_read_and_blurred_round_are_told_soft() -> None:
    """A red throw smeared 3 px reads (as all 240 such of seeds 1-40 do; at 4 px about half are refused); blurred
    round by 2 px its softest direction measures over MAX_SMEAR_LIGHT_PIPS, but a round blur is as soft every way:
    it is refused as too soft (over MAX_BLUR_LIGHT_PIPS), not as smeared."""
    after, before, cal, truth = sim_throw_before("ok", 1, look="red")
    r = _read_changed(after, before, cal, lambda f: motion_blur(f, 3, 0.0))
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]
    soft = _read_changed(after, before, cal, blur(2.0))
    assert soft.verdict is Verdict.UNREADABLE and soft.reason.startswith("the picture is too soft"), soft.reason
    b, s = frame_blurs(blur(2.0)(after), r.dice, cal.die_size_px)
    assert b is not None and s is not None and s > MAX_SMEAR_LIGHT_PIPS and s < ROUND_SMEAR * b, (b, s)


def test_a_smear_counts_whichever_way_it_runs() -> None:
    """Over the smear limit a frame is refused whether it is one way or round (a round blur nears the smear limit only
    where it nears the blur limit); under it, not."""
    limit = smear_limit(light_pips=True, die=31.0)
    assert smeared(1.2 * limit, light_pips=True, die=31.0) and not smeared(0.9 * limit, light_pips=True, die=31.0)
    assert not smeared(None, light_pips=True, die=31.0)


# A webcam at 1280x720 over a real board (16 mm dice on 508 mm): dice of 19.35 px, read enlarged.
WEBCAM_VIEW = {"size": (1280, 720), "die_mm": 7.6}


def test_the_light_pipped_limits_follow_the_dice_size() -> None:
    """Red and black dice's limits fall with the die's size under the Pi unit's 26 px, on lines in pixels of blur
    (vision/focus.py LIGHT_BLUR_PX_PER_DIE_PX, LIGHT_SMEAR_PX_PER_DIE_PX), the fixed ones over it; under
    LIGHT_LEAST_DIE held at its value there."""
    sizes = (19.35, 22.45, 25.0)
    for limit, most in ((blur_limit, MAX_BLUR_LIGHT_PIPS), (smear_limit, MAX_SMEAR_LIGHT_PIPS)):
        shares = [limit(light_pips=True, die=d) for d in sizes]
        assert all(a < b for a, b in itertools.pairwise([*shares, most])), (limit, shares)
        assert all(a * x < b * y for (a, x), (b, y) in itertools.pairwise(zip(shares, sizes, strict=True)))
        assert limit(light_pips=True, die=27.0) == limit(light_pips=True, die=47.0) == limit(light_pips=True) == most
        assert limit(light_pips=True, die=12.0) == limit(light_pips=True, die=18.0)
    # Under the least leaning throw `ok` at 19.35 px (0.0351 round, 0.0364 in the softest direction), over what sharp
    # throws measure there (at most 0.0256 and 0.0291).
    assert 0.0256 < blur_limit(light_pips=True, die=19.35) < 0.0351
    assert 0.0291 < smear_limit(light_pips=True, die=19.35) < 0.0364
    assert blur_limit(light_pips=False, die=19.35) == MAX_BLUR


@pytest.mark.parametrize(("seed", "look", "said"), [
    (5, "blur 1", "the picture is too soft to tell a leaning die"),
    (34, "smear 4 px along 120", "the picture is smeared by motion"),
    (18, "smear 4 px along 150", "the picture is soft or smeared at the dice")])
def test_a_soft_picture_of_a_small_red_die_leaning_is_no_roll(seed: int, look: str, said: str) -> None:
    """Red dice of 19.35 px (WEBCAM_VIEW), a die leaning on the hotel: blurred round 1 px or smeared 4 px, the throw
    was `ok` with the top face's value (seeds 1-60: 14 such), under MAX_BLUR_LIGHT_PIPS and MAX_SMEAR_LIGHT_PIPS, which
    were measured on dice of 26 px and more. Seed 18's smear measures 1.26 times its round blur in its softest
    direction, not one way: it is refused as soft or smeared."""
    after, before, cal, truth = sim_throw_before("cocked", seed, look="red", **WEBCAM_VIEW)
    assert truth.verdict is Verdict.UNREADABLE
    assert _read_changed(after, before, cal, _as_taken).verdict is Verdict.UNREADABLE
    change = blur(1.0) if look == "blur 1" else (lambda f: motion_blur(f, 4, float(look.rsplit(" ", 1)[1])))
    r = _read_changed(after, before, cal, change)
    assert r.verdict is Verdict.UNREADABLE, r
    assert r.reason.startswith(f"{said} (blur 0.0"), r.reason


def test_small_red_dice_sharp_or_a_little_soft_still_read() -> None:
    """At 19.35 px the lower limits sit over what sharp red throws measure and a round blur of 0.5 px's (seeds 1-60:
    all read as before) and a smear of 2 px's (359 of 360)."""
    after, before, cal, truth = sim_throw_before("ok", 5, look="red", **WEBCAM_VIEW)
    for look in (_as_taken, blur(0.5), lambda f: motion_blur(f, 2, 30.0)):
        r = _read_changed(after, before, cal, look)
        assert r.verdict is Verdict.OK, r.reason
        assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]



"""The reader's verdicts on scenes the tests render themselves (tests/vision/render.py)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.model import Calibration
from tests.vision.render import DieSpec, motion_blur, render
from vision import DiceReading, Verdict, read_dice
from vision.draw import annotate

W, H = 640, 480
WHOLE = ((0.0, 0.0), (W, 0.0), (W, H), (0.0, H))


def cal(polygon: tuple[tuple[float, float], ...] = WHOLE, die: float | None = 40.0) -> Calibration:
    return Calibration(image_size=(W, H), board_polygon=polygon, die_size_px=die)


@pytest.mark.parametrize("a,b", [(1, 4), (2, 5), (3, 6), (6, 6), (5, 1)])
@pytest.mark.parametrize("angle", [0.0, 22.0, 45.0])
def test_two_flat_dice_read_ok(a: int, b: int, angle: float) -> None:
    frame = render([DieSpec(a, (220, 200), angle=angle), DieSpec(b, (420, 300), angle=angle + 31)],
                   seed=a * 7 + b)
    r = read_dice(frame)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(v for v in r.values if v is not None) == sorted([a, b])
    assert r.total == a + b
    assert r.doubles == (a == b)
    assert all(d.confidence >= 0.35 for d in r.dice)


def test_calibrated_die_size_reads_the_same() -> None:
    frame = render([DieSpec(4, (200, 150), angle=12), DieSpec(2, (450, 330), angle=70)], seed=3)
    assert read_dice(frame, cal()).values == read_dice(frame).values == (4, 2)


def test_die_outside_play_polygon_is_reroll_naming_the_die() -> None:
    frame = render([DieSpec(3, (150, 120), angle=10), DieSpec(5, (500, 360), angle=40)], seed=4)
    board = ((0.0, 0.0), (400.0, 0.0), (400.0, 480.0), (0.0, 480.0))  # the second die lies right of x=400
    r = read_dice(frame, cal(board))
    assert r.verdict is Verdict.REROLL
    assert r.reason == "die 2 off the board"
    assert [d.on_board for d in r.dice] == [True, False]
    assert r.total is None


def test_wrong_count_is_unreadable_and_expect_any_accepts() -> None:
    frame = render([DieSpec(1, (150, 150)), DieSpec(4, (300, 300), angle=12), DieSpec(6, (480, 200), angle=60)])
    r = read_dice(frame)
    assert r.verdict is Verdict.UNREADABLE and r.reason == "found 3 dice, expected 2"
    r_any = read_dice(frame, expect=None)
    assert r_any.verdict is Verdict.OK and sorted(r_any.values) == [1, 4, 6]  # type: ignore[type-var]


def test_empty_table_is_unreadable() -> None:
    r = read_dice(render([]))
    assert r.verdict is Verdict.UNREADABLE and r.reason == "no dice found"


@pytest.mark.parametrize("angle", [25.0, 50.0])
def test_cocked_die_top_face_skewed_is_unreadable_with_reason(angle: float) -> None:
    # squash 0.7: the top face is foreshortened to 70% across, a side face shows beside it.
    frame = render([DieSpec(5, (250, 220), angle=angle, squash=0.7), DieSpec(4, (400, 260), angle=30)], seed=2)
    r = read_dice(frame)
    assert r.verdict is Verdict.UNREADABLE
    assert "cocked" in r.reason
    assert r.dice[0].value is None


@pytest.mark.parametrize("angle", [0.0, 25.0, 50.0])
def test_strongly_cocked_die_never_gets_a_value(angle: float) -> None:
    frame = render([DieSpec(5, (250, 220), angle=angle, squash=0.6), DieSpec(4, (400, 260), angle=30)], seed=2)
    r = read_dice(frame)
    assert r.verdict is Verdict.UNREADABLE
    assert 5 not in r.values


@pytest.mark.parametrize("angle", [0.0, 25.0, 50.0])
def test_stacked_dice_are_unreadable(angle: float) -> None:
    frame = render([DieSpec(4, (250, 220), angle=angle), DieSpec(2, (268, 236), angle=angle + 35)], seed=2)
    r = read_dice(frame, cal())
    assert r.verdict is Verdict.UNREADABLE
    assert r.total is None
    assert r.reason.startswith("die 1") or r.reason.startswith("found")


@pytest.mark.parametrize("angle", [0.0, 25.0, 50.0, 90.0])
def test_motion_blur_is_unreadable_with_reason(angle: float) -> None:
    frame = motion_blur(render([DieSpec(3, (250, 220), angle=angle), DieSpec(6, (380, 260), angle=-30)]), 15, angle)
    r = read_dice(frame)
    assert r.verdict is Verdict.UNREADABLE
    assert "motion blur" in r.reason


def test_reader_is_pure_and_rejects_bad_frames() -> None:
    frame = render([DieSpec(2, (200, 200)), DieSpec(3, (400, 300), angle=20)])
    before = frame.copy()
    first = read_dice(frame)
    assert np.array_equal(frame, before)
    assert read_dice(frame) == first
    with pytest.raises(ValueError):
        read_dice(frame[..., 0])
    with pytest.raises(ValueError):
        read_dice(frame.astype(np.float32))  # type: ignore[arg-type]
    for empty in (frame[:0], frame[:, :0]):  # (a crop cut past the frame's edge): named, not OpenCV's assertion
        with pytest.raises(ValueError, match="the frame is empty"):
            read_dice(empty)
    for count in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="expect is a number of dice"):
            read_dice(frame, expect=count)  # type: ignore[arg-type]


def test_to_json_contract() -> None:
    r = read_dice(render([DieSpec(6, (200, 200), angle=5), DieSpec(6, (400, 300), angle=50)]))
    js = r.to_json()
    assert set(js) == {"verdict", "reason", "dice", "total", "doubles"}
    assert js["verdict"] == "ok" and js["total"] == 12 and js["doubles"] is True
    assert set(js["dice"][0]) == {"value", "center", "confidence", "on_board"}


def test_annotate_draws_without_touching_the_frame() -> None:
    frame = render([DieSpec(1, (200, 200)), DieSpec(2, (400, 300))])
    r: DiceReading = read_dice(frame)
    out = annotate(frame, r, WHOLE)
    assert out.shape == frame.shape and not np.array_equal(out, frame)


@pytest.mark.parametrize("body", [(40, 38, 36), (40, 40, 170)], ids=["black", "red"])
@pytest.mark.parametrize(("a", "b"), [(2, 5), (3, 6), (4, 4)])
def test_dark_and_coloured_dice_with_light_pips_read_ok(a: int, b: int, body: tuple[int, int, int]) -> None:
    # Light pips on a darker face: read pip-first on the inverted grey image (vision/reader.py).
    white = (245, 245, 245)
    frame = render([DieSpec(a, (220, 200), angle=17, body=body, pip=white),
                    DieSpec(b, (420, 300), angle=58, body=body, pip=white)], seed=a + b)
    r = read_dice(frame, expect=2)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted((a, b))  # type: ignore[type-var]

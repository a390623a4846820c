"""The simulated camera: deterministic, truthful about its throws, and looking like dice on a board."""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np
import pytest

from hardware.simcam import DICE_LOOKS, THROW_KINDS, SimulatedCamera
from hardware.simrender import face_up, top_value
from vision.reading import Verdict


def _first(cam: SimulatedCamera, n: int) -> list[np.ndarray]:
    return [f.image for f in itertools.islice(cam, n)]


def test_face_up_puts_each_value_on_top_and_opposites_sum_to_seven() -> None:
    for v in range(1, 7):
        rot = face_up(v)
        assert top_value(rot) == v
        assert np.allclose(rot @ rot.T, np.eye(3))
        # the face on the bottom of a die showing v is 7 - v
        down = min(range(1, 7), key=lambda k: float((rot @ face_up(k).T @ np.array([0, 0, 1.0]))[2]))
        assert down == 7 - v


def test_same_seed_same_frames_and_truth() -> None:
    a = SimulatedCamera(seed=42, script=["ok", "stacked"])
    b = SimulatedCamera(seed=42, script=["ok", "stacked"])
    fa, fb = _first(a, 150), _first(b, 150)
    assert all(np.array_equal(x, y) for x, y in zip(fa, fb, strict=True))
    list(a), list(b)
    assert a.throws == b.throws and a.actions == b.actions
    c = SimulatedCamera(seed=43, script=["ok", "stacked"])
    list(c)
    assert [t.values for t in c.throws] != [t.values for t in a.throws] or c.throws[0].dice != a.throws[0].dice


def test_global_random_state_is_untouched() -> None:
    np.random.seed(5)
    expected = np.random.random()
    np.random.seed(5)
    list(SimulatedCamera(seed=1, script=["ok"]))
    assert np.random.random() == expected


@pytest.mark.parametrize("kind,verdict", [("ok", Verdict.OK), ("off_board", Verdict.REROLL),
                                          ("cocked", Verdict.UNREADABLE), ("stacked", Verdict.UNREADABLE),
                                          ("spinner", Verdict.UNREADABLE)])
def test_each_kind_has_its_verdict(kind: str, verdict: Verdict) -> None:
    cam = SimulatedCamera(seed=9, script=[kind], hands=False)
    frames = list(cam)
    (truth,) = cam.throws
    assert truth.verdict is verdict
    assert truth.t_start < truth.t_rest <= frames[-1].t
    if kind == "off_board":
        assert [d.on_board for d in truth.dice].count(False) == 1
    if kind == "cocked":
        assert truth.values[1] is None and truth.dice[1].cocked
    if kind == "stacked":
        assert all(d.stacked for d in truth.dice)
    # At rest the oracle agrees with the log.
    assert cam.truth_reading().verdict is verdict or kind == "spinner"


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown throw kind"):
        SimulatedCamera(script=["bounce"])


def test_rest_frame_shows_the_dice_where_the_truth_says() -> None:
    cam = SimulatedCamera(seed=4, script=["ok"], hands=False)
    frames = list(cam)
    last = frames[-1].image
    (truth,) = cam.throws
    die_px = cam.die_size_px()
    assert 25 < die_px < 40
    empty = cam.render(type(cam.current_scene)([]))
    diff = cv2.cvtColor(cv2.absdiff(last, empty), cv2.COLOR_BGR2GRAY)
    for die in truth.dice:
        x, y = (round(c) for c in die.center_px)
        r = round(die_px * 0.35)
        patch = diff[y - r:y + r, x - r:x + r]
        # white on a cream board: the pips and the rim make the difference
        assert patch.mean() > 15, "a die is drawn at its true centre"
        body = last[y - r:y + r, x - r:x + r]
        # white body with dark pips: both very bright and very dark pixels on the top face
        assert (body.max(axis=2) > 200).mean() > 0.3
        assert (body.max(axis=2) < 80).mean() > 0.03
    # the dice cover about two top faces plus visible sides, not more
    changed = (diff > 12).sum()
    assert 1.5 * die_px**2 < changed < 6 * die_px**2


@pytest.mark.parametrize("look", ["red", "black"])
def test_dice_of_another_look_have_light_pips_and_the_calibration_says_so(look: str) -> None:
    body, pip = DICE_LOOKS[look]
    cam = SimulatedCamera(seed=4, script=["ok"], hands=False, die_bgr=body, pip_bgr=pip)
    last = list(cam)[-1].image
    cal = cam.calibration()
    assert (cal.die_color_bgr, cal.pip_color_bgr) == (body, pip)
    r = round(cam.die_size_px() * 0.35)
    for die in cam.throws[0].dice:
        x, y = (round(c) for c in die.center_px)
        face = last[y - r:y + r, x - r:x + r].reshape(-1, 3).astype(int)
        # mostly the body's colour, with a few light pips on it
        assert np.median(np.abs(face - np.array(body)).max(axis=1)) < 30
        assert (face.min(axis=1) > 180).mean() > 0.03


def test_calibration_of_the_rendered_board() -> None:
    cam = SimulatedCamera(seed=0)
    cal = cam.calibration()
    assert cal.image_size == (640, 480)
    poly = np.array(cal.board_polygon)
    assert (poly[:, 0] >= 0).all() and (poly[:, 0] < 640).all() and (poly[:, 1] >= 0).all()
    # perspective: the far edge (top of the image) is shorter than the near one
    assert math.dist(poly[0], poly[1]) < math.dist(poly[3], poly[2])
    assert cal.homography is not None
    hom = np.array(cal.homography)
    mapped = cv2.perspectiveTransform(poly[None].astype(np.float64), hom)[0]
    b = cam.board_mm
    assert np.allclose(mapped, [[0, 0], [b, 0], [b, b], [0, b]], atol=1e-3)
    assert cal.die_size_px == pytest.approx(cam.die_size_px(), abs=0.01)


def test_overhead_camera_renders_and_reads() -> None:
    """A camera straight over the board (tilt 0) once rendered NaN frames (its "right" vector was a cross
    product with the vertical, nought overhead). Its frames are finite, its calibration carries the lens
    (which a homography without perspective cannot measure), and a plain throw reads as thrown."""
    from vision import read_dice

    cam = SimulatedCamera(seed=2, script=["ok"], hands=False, tilt_deg=0.0)
    frame = list(cam)[-1].image
    assert frame.dtype == np.uint8 and frame.std() > 10.0
    cal = cam.calibration()
    poly = np.array(cal.board_polygon)
    # overhead: the board is a square, near and far edges alike
    assert math.dist(poly[0], poly[1]) == pytest.approx(math.dist(poly[3], poly[2]), rel=1e-6)
    assert cal.focal_px is not None and cal.focal_px > 0
    (truth,) = cam.throws
    r = read_dice(frame, calibration=cal, expect=2)
    assert r.verdict is Verdict.OK and sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]


@pytest.mark.parametrize("tilt", [-5.0, 90.0, 120.0])
def test_a_camera_that_does_not_look_down_is_refused(tilt: float) -> None:
    with pytest.raises(ValueError, match="tilt_deg"):
        SimulatedCamera(tilt_deg=tilt)


def test_endless_programme_keeps_going() -> None:
    cam = SimulatedCamera(seed=8, fps=10)
    for frame in cam:
        if frame.t > 60:
            break
    assert len(cam.throws) >= 5
    assert {t.kind for t in cam.throws} <= set(THROW_KINDS)

"""vision.darkpips: which long spots may stand for a pip blurred into its neighbours; pips placed to a fraction
of a pixel."""


from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.darkpips import _between_pips, _refined
from vision.layout import fit_layout
from vision.pips import black_hat, detect
from vision.spots import spots

ALONG_X = np.zeros(6, np.int64)  # every spot's long axis along the image's x (columns run along y)
ALONG_Y = np.full(6, 2, np.int64)


def _six(g: float = 6.0) -> np.ndarray:
    return np.array([(x * g + 100.0, y * g + 80.0) for x in (-1, 1) for y in (-1, 0, 1)])


def test_a_long_spot_between_two_round_pips_of_a_column_may_be_a_pip() -> None:
    pts = _six()
    fit = fit_layout(pts, with_skew=False)
    long = np.zeros(6, bool)
    long[1] = True  # the middle pip of the left column
    assert _between_pips(fit, pts, long, ALONG_X)


def test_a_long_spot_at_a_corner_is_a_mark_unless_it_reaches_along_its_column() -> None:
    pts = _six()
    fit = fit_layout(pts, with_skew=False)
    long = np.zeros(6, bool)
    long[0] = True  # a corner: no pips either side of it on the face
    assert not _between_pips(fit, pts, long, ALONG_X)  # long across the column: a mark
    # Long along its column, towards the pip next to it: the end pip of a squeezed 6 blurred into its
    # neighbour (Byler IMG_20191208_111228.jpg at (485, 203), in a picture darkened by gamma 1.6).
    assert _between_pips(fit, pts, long, ALONG_Y)


def test_a_long_spot_at_a_fives_corner_reaching_for_the_centre_is_a_mark() -> None:
    g = 6.0
    pts = np.array([(100.0 + u * g, 80.0 + v * g) for u, v in ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1))])
    fit = fit_layout(pts, with_skew=False)
    long = np.zeros(5, bool)
    long[0] = True
    diagonal = np.full(5, 1, np.int64)  # long axis at 45 degrees: towards the centre pip
    assert not _between_pips(fit, pts, long, diagonal)


def test_a_long_spot_between_a_round_pip_and_another_long_one_is_a_mark() -> None:
    pts = _six()
    fit = fit_layout(pts, with_skew=False)
    long = np.zeros(6, bool)
    long[[0, 1]] = True
    assert not _between_pips(fit, pts, long, ALONG_X)


def test_on_face_is_within_the_turned_face() -> None:
    from vision.darkpips import _on_face

    g = 8.0
    # 2 pitches along one axis of a face turned 30 degrees: a 4's neighbouring pip, on the face.
    th = np.deg2rad(30.0)
    beside = 2.0 * g * np.array([[np.cos(th), np.sin(th)]])
    assert not _on_face(beside, float(th), g)  # 2.0 pitches is past ONE_FACE: beyond the face's pip zone
    assert _on_face(1.41 * g * np.array([[np.cos(th + np.pi / 4), np.sin(th + np.pi / 4)]]), float(th), g)
    # 2.2 pitches along the diagonal (1.56 along each axis) is on the face; straight out, past the edge.
    diag = 2.2 * g * np.array([[np.cos(th + np.pi / 4), np.sin(th + np.pi / 4)]])
    assert _on_face(diag, float(th), g)
    assert not _on_face(2.2 * g * np.array([[np.cos(th), np.sin(th)]]), float(th), g)


def test_calibrated_lone_pips_beside_lettering_or_side_faces_are_read() -> None:
    """Simulated camera, plain throws whose 1 had a dark spot 2.1-2.3 pitches from its pip, beyond its
    face's edge (a side face's pip, the board's red lettering): the grey pass once refused the 1 as
    crowded, the body pass read it and the die's shadow too, and the throw came out "found 3 dice". Now
    the spot must lie on the 1's face (known in size once calibrated) to spoil it. Seeds 86 and 200: a flat
    1 beside a side face's pip was refused as leaning under its guessed turn; the lean check now asks that
    the pip be an open side face at every turn within half a guessing step."""
    from tests.vision.simthrows import assert_read_right

    for seed in (65, 134, 151, 179, 209, 86, 200):
        assert_read_right(seed)


def test_pips_of_a_face_missing_one_are_not_read_as_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 4 with one pip missed (worn, or lost in glare) shows three pips in an L: no legal layout, so each
    pip is tried as a lone 1. Calibrated, its neighbours 2 pitches away no longer spoil it by distance
    alone; what refuses it is that no die's face is centred on it (and the net). Never a 1."""
    from calibration.model import Calibration
    from tests.vision import render as rd
    from vision import read_dice

    monkeypatch.setitem(rd.PIPS, 4, ((-1, -1), (1, -1), (-1, 1)))
    cal = Calibration(image_size=(640, 480), board_polygon=((0, 0), (640, 0), (640, 480), (0, 480)),
                      die_size_px=40.0)
    for angle in (0.0, 20.0, 40.0, 65.0):
        frame = rd.render([rd.DieSpec(4, (320, 240), angle=angle)], seed=int(angle))
        for r in (read_dice(frame, calibration=cal, expect=1), read_dice(frame, expect=1)):
            assert 1 not in r.values, (angle, r)


@pytest.mark.slow
def test_sixes_near_overhead_are_read() -> None:
    """The simulated camera 8 degrees off vertical, plain throws whose 6 was missed: its pips found to the
    pixel fitted a grid a pixel or two off, and a point between its cells fell on a pip's dark edge, so the
    rim test (vision/rim.py) took the face for uneven and no pass read the die ("found 1 dice"). A point on
    a pip's own edge (PIP_TAIL) is now the pip's, on a square grid."""
    from hardware.simcam import SimulatedCamera
    from vision import Verdict, read_dice

    for seed in (5, 25, 34, 72):
        cam = SimulatedCamera(seed=seed, script=["ok"], hands=False, tilt_deg=8.0)
        frame = list(cam)[-1].image
        (truth,) = cam.throws
        assert 6 in truth.values
        r = read_dice(frame, calibration=cam.calibration(), expect=2)
        assert r.verdict is Verdict.OK, (seed, r.reason)
        assert sorted(r.values) == sorted(truth.values), seed  # type: ignore[type-var]


@pytest.mark.parametrize("centre", [(40.4, 30.6), (41.5, 29.5), (40.3, 31.3)])
def test_a_pip_is_placed_to_a_fraction_of_a_pixel(centre: tuple[float, float]) -> None:
    """The rim test of a calibrated face takes its pips placed to a fraction of a pixel (_refined): placed to the
    pixel, at a 9 px pitch a point between the cells fell a pixel nearer a pip than the grid puts it, on its dark
    edge (the simulated camera at a real board's proportions: a 5 and a 3 beside the board's lines refused)."""
    img = np.full((64, 80), 230, np.uint8)
    cv2.circle(img, (round(centre[0] * 16), round(centre[1] * 16)), 3 * 16, 30, -1, cv2.LINE_AA, 4)
    resp = black_hat(cv2.GaussianBlur(img, (5, 5), 1.0), 11)
    spots = detect(resp, 20.0, 6, True)
    near = np.hypot(spots.xy[:, 0] - centre[0], spots.xy[:, 1] - centre[1]) < 3.0
    k = int(np.argmax(np.where(near, spots.peak, -1.0)))  # (a flat top may give a second maximum a cell away)
    got = _refined(resp, spots.xy[k:k + 1])[0]
    # (Over REFINE_REACH only, a large pip's centre comes out a little short of the truth, towards the pixel.)
    to_pixel = np.hypot(spots.xy[k, 0] - centre[0], spots.xy[k, 1] - centre[1])
    assert np.hypot(got[0] - centre[0], got[1] - centre[1]) < 0.6 * to_pixel, (spots.xy[k], got)


def _pips(centres: list[tuple[float, float]], radius: float, blur: float = 0.0) -> np.ndarray:
    img = np.full((60, 80), 235, np.uint8)
    for x, y in centres:  # (drawn to a sixteenth of a pixel, black and flat-bottomed)
        cv2.circle(img, (round(x * 16), round(y * 16)), round(radius * 16), 25, -1, cv2.LINE_AA, 4)
    return np.asarray(cv2.GaussianBlur(img, (0, 0), blur), np.uint8) if blur else img


@pytest.mark.parametrize("radius", [3.5, 4.0, 4.5, 5.0])
def test_a_flat_bottomed_pip_is_one_spot(radius: float) -> None:
    """A sharp black pip 8-10 px across (a die of 46 px, or a close camera) answers the black-hat with a plateau wider
    than pips.detect's 3x3 cells, whose maxima at either side were two spots: a 6 of seven, never read (the simulated
    camera at 960x720, seed 9: "no dice found"). Before spots.ONE_PIP_SPAN 2-15 of the 20 placements gave two."""
    for k in range(20):
        centre = (30 + (k % 5) * 0.2, 30 + (k // 5) * 0.25)
        found, _ = spots(_pips([centre], radius), 2 * radius)
        # (The spot stands on the pip, somewhere on its flat bottom; calibrated reads place it to a fraction of a
        # pixel after, _refined.)
        assert len(found) == 1 and np.hypot(*(found.xy[0] - centre)) < radius, (k, found.xy)


@pytest.mark.parametrize(("radius", "blur"), [(3.0, 0.0), (4.0, 0.0), (5.0, 0.0), (4.0, 1.0), (5.0, 1.0)])
def test_two_pips_a_pitch_apart_stay_two_spots(radius: float, blur: float) -> None:
    """Pips of a face lie a pitch apart (2.6 of a pip's radius): the response dips between them, so they are never
    one plateau. (Blurred 1 px, pips of 3 px radius run together and measure long: the pass's merged spots,
    _merged, before and after ONE_PIP_SPAN alike.)"""
    for k in range(10):
        x, y = 30 + k * 0.13, 30 + k * 0.21
        found, _ = spots(_pips([(x, y), (x + 2.6 * radius, y)], radius, blur), 2 * radius)
        assert len(found) == 2, (k, found.xy)


def test_a_sharp_camera_with_large_dice_reads_a_six(monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated camera at 960x720 (dice of 47 px, read at that size, as an uncalibrated photo's dice of up to
    SHRINK_ABOVE are: calibrated, they are now read shrunk, vision/scale.py), seed 9: a 6 and a 5, read where the
    table changed with the table before as the roll watcher reads them. Each of the 6's pips was a plateau, one of
    them two spots, and the throw was "no dice found"."""
    from tests.vision.simthrows import read_large_dice_at_their_size, read_where_changed
    from vision import Verdict

    read_large_dice_at_their_size(monkeypatch)

    r, truth = read_where_changed(9, size=(960, 720))
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(truth.values) == [5, 6]  # type: ignore[type-var]

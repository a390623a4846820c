"""A die leaning a little opens a narrow side face: its pips are ovals long along the top face's edge, just past
it (vision/lean.py `_narrow_side`; M.DICE.2: a cocked die means both dice are thrown again)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vision.reader
import vision.spots
from hardware.simcam import DICE_LOOKS, SimulatedCamera
from tests.vision.simthrows import read_at_the_pi_units_view
from vision import Verdict, read_dice
from vision.change import changes
from vision.lean import _narrow_side
from vision.lightface import LightFace
from vision.pips import Candidates

G = 10.0
FACE = LightFace(2, (100.0, 100.0), G, 0.0, 0.9, "", ((92.9, 92.9), (107.1, 107.1)))
HALF = 0.5 * FACE.side
DOWN = (3.0, 25.0)  # the camera below the die, a little left: a flat die shows its lower and right side faces


def _down(xy: tuple[float, float]) -> tuple[float, float]:
    return DOWN


def _spots(*spots: tuple[float, float, float, int]) -> Candidates:
    """Spots (x, y, peak, long axis: 0 along x, 2 along y) of a pip's radius, 2.6 times as long as wide."""
    n = len(spots)
    return Candidates(np.array([(x, y) for x, y, _, _ in spots], np.float64), np.array([p for _, _, p, _ in spots]),
                      np.full(n, 3.0), np.full(n, 2.6), np.array([a for _, _, _, a in spots], np.int64), True)


def _flagged(spots: Candidates, faces: list[LightFace] | None = None) -> list[bool]:
    return _narrow_side(FACE, spots, 200.0, np.array(DOWN), faces or [FACE], _down).tolist()


def test_an_oval_just_past_an_edge_and_long_along_it_is_a_narrow_side_faces_pip() -> None:
    """Left of the face, 4 px past its edge (within SIDE_SLACK of it, which the lean check's pips need), long up
    and down as the edge runs: a pip of the side face a die leaning right opens. Long across the edge it is not
    (a pip squeezed by a side face is squeezed across the edge); nor is a spot as weak as the side face's shade
    makes a flat die's pips (under 0.7 of the face's)."""
    x = 100.0 - HALF - 4.0
    assert _flagged(_spots((x, 103.0, 190.0, 2), (x, 103.0, 190.0, 0), (x, 103.0, 100.0, 2))) == [True, False, False]


def test_a_flat_dies_own_side_face_and_what_lies_past_a_corner_are_not() -> None:
    """Below the face (towards the camera) a flat die shows its own side face, whose pips are such ovals: within
    its footprint (the top face swept along `down`) they are not counted. Past a corner, or further out than a
    narrow side face reaches, neither."""
    below = (100.0, 100.0 + HALF + 6.0, 190.0, 0)
    corner = (100.0 - HALF - 4.0, 100.0 - HALF - 4.0, 190.0, 2)
    far = (100.0 - HALF - 0.4 * FACE.side, 100.0, 190.0, 2)
    assert _flagged(_spots(below, corner, far)) == [False, False, False]


def test_a_spot_in_another_faces_footprint_is_that_dies() -> None:
    """A die read beside this one, its footprint over the spot: the spot is the other die's (its side face's)."""
    x = 100.0 - HALF - 4.0
    other = LightFace(4, (x - HALF - 2.0, 95.0), G, 0.0, 0.9, "", ())
    assert _flagged(_spots((x, 103.0, 190.0, 2)), [FACE, other]) == [False]


@pytest.mark.parametrize("seed", [7, 123])
def test_read_from_above_a_die_leaning_a_little_on_the_hotel_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                                         seed: int) -> None:
    """The simulated camera 35 degrees off vertical, read from above with the table before, as the roll watcher
    reads: a white die leaning on the hotel, its 2 up and its 1 side open a sixth of a side, was `ok` (the 1's
    pip 1.4 px past the top face's edge, under SIDE_SLACK); with the narrow side face's pip it is refused. Without
    the spots longer than round (NARROW_ELONG under MAX_ELONG: none), the same read is `ok` again."""
    body, pip = DICE_LOOKS["white"]
    cam = SimulatedCamera(seed=seed, script=["cocked"], hands=False, tilt_deg=35.0, die_bgr=body, pip_bgr=pip)
    frames = list(cam)
    before, after = frames[0].image, frames[-1].image
    changed = changes(before, after, cam.die_size_px())
    r = read_dice(after, calibration=cam.calibration(), changed=changed, before=before)
    assert r.verdict is Verdict.UNREADABLE and "cocked: a side face shows" in r.reason, r.reason
    monkeypatch.setattr(vision.spots, "NARROW_ELONG", 1.0)
    assert read_dice(after, calibration=cam.calibration(), changed=changed, before=before).verdict is Verdict.OK


def test_near_overhead_the_narrow_check_is_asked_only_given_the_table_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Pi unit's view (near overhead, read as taken): a plain white throw whose flat 4 lies against the board's
    black line is read. Asked there without the table before, the narrow check took the line's piece along the die's
    edge for a side face's pip, and refused it; given the table before, the grey pass passes over the board's spots
    that were there (vision/spots.py SpotsBefore), so near overhead it is asked only then (vision/reader.py)."""
    r, truth = read_at_the_pi_units_view(20)
    assert r.verdict is Verdict.OK and sorted(r.values) == sorted(truth.values), r.reason
    plain = vision.reader.light_pass

    def asked(*a: Any, **k: Any) -> Any:
        return plain(*a, **{**k, "narrow": True, "before": k.get("before") if k.get("colour") is not None else None})

    monkeypatch.setattr(vision.reader, "light_pass", asked)
    r, _ = read_at_the_pi_units_view(20)
    assert r.verdict is Verdict.UNREADABLE and "cocked: a side face shows" in r.reason, r.reason

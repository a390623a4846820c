"""M.DICE.2 near overhead, white dice: given the table before the throw, the grey pass's lean check passes over the
board's own spots (vision/spots.py SpotsBefore) and, with those left out, looks for a narrow side face's pips too
(vision/lean.py _narrow_side; vision/reader.py).

A flat white die beside a hotel's corner or a board line's end had that corner taken for an open side face's pip and
the throw refused; a die leaning 15 degrees shows a side face too narrow for the lean check's round pips, which only
the narrow check sees.
"""

from __future__ import annotations

import pytest

import vision.reader
from hardware.simcam import DICE_LOOKS, SimulatedCamera
from tests.vision.simthrows import read_large_dice_at_their_size, read_where_changed, sim_table
from vision import Verdict, read_dice
from vision.reading import DiceReading

LEANING = "cocked: a side face shows beside the top face"


def _read_960(seed: int) -> tuple[DiceReading, tuple[int, ...]]:
    r, truth = read_where_changed(seed, size=(960, 720))
    return r, tuple(sorted(truth.values))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 15, 17])
def test_a_flat_die_beside_a_hotels_corner_is_read(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated camera at 960x720 (dice of 47 px, read at that size as they were before calibrated dice were
    read shrunk to the working size, vision/scale.py CALIBRATED_SHRINK_ABOVE), a plain throw with a die beside the
    hotel: read right where the table changed, given the table before; refused as leaning when the grey pass is not
    given it. (Read shrunk, each is read right either way.)"""
    read_large_dice_at_their_size(monkeypatch)
    r, values = _read_960(seed)
    assert r.verdict is Verdict.OK and tuple(sorted(r.values)) == values, r.reason  # type: ignore[type-var]

    plain = vision.reader.light_pass

    def without_before(*args: object, **kwargs: object) -> object:
        if kwargs.get("colour") is None:  # the grey pass (the inverted passes take a colour frame)
            kwargs.update(before=None, narrow=False)  # (as it read before the table before)
        return plain(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vision.reader, "light_pass", without_before)
    r, _ = _read_960(seed)
    assert r.verdict is Verdict.UNREADABLE and LEANING in r.reason, r.reason


def _camera(tilt: float) -> SimulatedCamera:
    body, pip = DICE_LOOKS["white"]
    return SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt, die_bgr=body, pip_bgr=pip)


@pytest.mark.slow
@pytest.mark.parametrize(("tilt", "seed"), [(8.0, 20), (8.0, 43), (18.0, 21), (18.0, 36), (18.0, 38)])
def test_a_die_leaning_15_degrees_near_overhead_is_refused(tilt: float, seed: int) -> None:
    """One white die flat and one leaning 15 degrees: given the table before, the narrow side face it opens refuses
    the throw (before this, each was an `ok` with the leaning die's value)."""
    frame, _, _, before = sim_table(tilt, seed, 1, 1, 15.0, "white")
    r = read_dice(frame, _camera(tilt).calibration(), expect=2, before=before)
    assert r.verdict is Verdict.UNREADABLE and LEANING in r.reason, r.reason

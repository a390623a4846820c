"""vision/layout.py: legal d6 layouts at any pitch and angle, and faces seen at a slant."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.render import PIPS
from vision.layout import SLANT_REASON, fit_layout


def _pips(value: int, g: float, angle: float, squash: float = 1.0) -> np.ndarray:
    c, s = np.cos(np.radians(angle)), np.sin(np.radians(angle))
    cells = np.array(PIPS[value], np.float64) * g
    cells[:, 0] *= squash
    return cells @ np.array([[c, s], [-s, c]]) + np.array([100.0, 80.0])


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 80.0])
def test_every_face_fits_at_any_angle(value: int, angle: float) -> None:
    fit = fit_layout(_pips(value, 7.0, angle))
    assert fit.value == value
    assert fit.centre == pytest.approx((100.0, 80.0), abs=1e-6)
    if value > 1:
        assert fit.grid == pytest.approx(7.0, rel=0.02)
        assert fit.resid < 0.05


def test_foreshortened_face_shows_its_skew() -> None:
    assert fit_layout(_pips(5, 7.0, 30.0)).skew < 1.05
    assert fit_layout(_pips(5, 7.0, 30.0, squash=0.65)).skew > 1.35


def test_not_a_face() -> None:
    assert fit_layout(np.array([[0.0, 0.0], [7.0, 0.0], [30.0, 1.0]])).value is None  # no common grid
    assert fit_layout(np.zeros((7, 2)) + np.arange(7)[:, None]).value is None  # seven spots


@pytest.mark.parametrize("value", [4, 5])
def test_face_squashed_off_the_grid_is_called_slanted(value: int) -> None:
    # Squashed to half across: off the square grid, but exactly on an affine one: a leaning die's face.
    fit = fit_layout(_pips(value, 7.0, 20.0, squash=0.5))
    assert fit.value is None and fit.reason == SLANT_REASON


def test_six_squashed_beyond_its_design_is_called_slanted() -> None:
    # Halved across its rows (beyond the 1.6 a 6's own design may give): slanted.
    assert fit_layout(_pips(6, 7.0, 20.0, squash=0.5)).reason == SLANT_REASON


def test_pips_merely_off_the_grid_are_not_called_slanted() -> None:
    # A 5 with one pip pushed off its cell: no affine grid fits it either.
    pts = _pips(5, 7.0, 0.0)
    pts[0] += (2.8, 2.6)
    fit = fit_layout(pts)
    assert fit.value is None and fit.reason == "pips off the d6 grid"

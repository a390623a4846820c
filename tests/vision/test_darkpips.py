"""vision.darkpips: which long spots may stand for a pip blurred into its neighbours."""

from __future__ import annotations

import numpy as np

from vision.darkpips import _between_pips
from vision.layout import fit_layout


def _six(g: float = 6.0) -> np.ndarray:
    return np.array([(x * g + 100.0, y * g + 80.0) for x in (-1, 1) for y in (-1, 0, 1)])


def test_a_long_spot_between_two_round_pips_of_a_column_may_be_a_pip() -> None:
    pts = _six()
    fit = fit_layout(pts, with_skew=False)
    long = np.zeros(6, bool)
    long[1] = True  # the middle pip of the left column
    assert _between_pips(fit, pts, long)


def test_a_long_spot_at_a_corner_is_a_mark() -> None:
    pts = _six()
    fit = fit_layout(pts, with_skew=False)
    long = np.zeros(6, bool)
    long[0] = True  # a corner: no pips either side of it on the face
    assert not _between_pips(fit, pts, long)


def test_a_long_spot_between_a_round_pip_and_another_long_one_is_a_mark() -> None:
    pts = _six()
    fit = fit_layout(pts, with_skew=False)
    long = np.zeros(6, bool)
    long[[0, 1]] = True
    assert not _between_pips(fit, pts, long)

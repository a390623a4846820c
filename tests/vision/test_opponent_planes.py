"""The colour reader's opponent planes (vision/colourpips.py): on real photos, dice whose pips differ from the body
in hue more than in brightness (red pips on a marbled blue body, yellow on teal or on red) are read in Lab's a* and
b* planes where none of the B, G, R and grey planes' maps reads them; and what they are read as is the label."""

from __future__ import annotations

import numpy as np
import pytest

import vision.colourpips as colourpips
from tests.vision import byler_data as byler
from vision.bodies import segment
from vision.colourpips import read_colour_face
from vision.faces import Face

pytestmark = [pytest.mark.photos, pytest.mark.skipif(not byler.available(), reason=byler.SKIP_REASON)]

# Every Byler die that the opponent planes read and the other eight maps did not, when they were added
# (2026-12-01): the photo and the die's centre as segmentation finds it.
HUE_ONLY = [
    ("IMG_20191208_111628.jpg", (397, 449)),  # a teal 5, yellow pips
    ("IMG_20191208_112104.jpg", (199, 350)),  # a red 3, gold pips
    ("IMG_20191208_112342.jpg", (615, 271)),  # a marbled blue 2, red pips
    ("IMG_20191208_112342.jpg", (435, 208)),  # a marbled blue 4, red pips
    ("IMG_20191208_112455.jpg", (424, 352)),  # a marbled blue 5, red pips
    ("IMG_20191209_100409.jpg", (435, 294)),  # a teal 2, yellow pips
    ("IMG_20191208_112251.jpg", (314, 134)),  # a marbled blue 4, red pips
    ("IMG_20191208_112451.jpg", (254, 275)),  # a marbled blue 4, red pips
]


@pytest.fixture(scope="module")
def photos() -> dict[str, byler.Photo]:
    names = {name for name, _ in HUE_ONLY}
    return {p.name: p for p in byler.photos() if p.name in names}


def _read(photo: byler.Photo, near: tuple[float, float]) -> tuple[Face, int]:
    """The colour reader's face of the body segmented nearest `near`, as the reader asks it uncalibrated, and
    the value labelled there."""
    seg = segment(photo.image)
    body = min(seg.bodies, key=lambda b: float(np.hypot(b.center[0] - near[0], b.center[1] - near[1])))
    side = max(float(np.sqrt(body.area)), 0.5 * (body.size[0] + body.size[1]))
    label = min(photo.dice, key=lambda d: float(np.hypot(0.5 * (d.box[0] + d.box[2]) - near[0],
                                                         0.5 * (d.box[1] + d.box[3]) - near[1])))
    return read_colour_face(photo.image, body.center, side, body.angle, valleys=True), label.value


@pytest.mark.parametrize(("name", "near"), HUE_ONLY)
def test_pips_that_differ_in_hue_are_read_in_the_opponent_planes(photos: dict[str, byler.Photo], name: str,
                                                                 near: tuple[float, float]) -> None:
    face, label = _read(photos[name], near)
    assert face.value == label, (face.value, face.reason)


@pytest.mark.parametrize(("name", "near"), HUE_ONLY)
def test_without_the_opponent_planes_they_are_not_read(photos: dict[str, byler.Photo], name: str,
                                                       near: tuple[float, float],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The same dice with the a* and b* maps left out: no value (the eight other maps read them as no face)."""
    reads = colourpips._reads
    monkeypatch.setattr(colourpips, "_reads", lambda planes, *a: [] if planes.shape[2] == 2 else reads(planes, *a))
    face, _ = _read(photos[name], near)
    assert face.value is None, face

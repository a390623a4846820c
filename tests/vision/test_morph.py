"""vision/morph.py: the disc openings, closings, black-hats and top-hats by rectangles are OpenCV's to the last
pixel."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.render import DieSpec, render
from vision import morph
from vision.pips import hat


def _images() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    noise = (rng.random((480, 640)) * 255).astype(np.uint8)
    smooth = np.asarray(cv2.GaussianBlur(noise, (0, 0), 3.0), np.uint8)
    dice = np.asarray(cv2.cvtColor(render([DieSpec(6, (200, 150), angle=20), DieSpec(3, (420, 300))], seed=3),
                                   cv2.COLOR_BGR2GRAY), np.uint8)
    # (frames at the threshold's size and thin or tiny ones, where the disc reaches past every edge)
    mask = ((smooth > 128).view(np.uint8) * np.uint8(255))  # (segmentation opens and closes masks)
    return [noise, smooth, dice, mask, np.ascontiguousarray(noise[:200, :200]), np.ascontiguousarray(noise[:9, :400]),
            np.ascontiguousarray(smooth[:400, :101])]


@pytest.mark.parametrize("kernel", [3, 5, 9, 13, 15, 17, 19, 21, 25, 31, 41])
def test_maps_by_rectangles_are_opencvs(kernel: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every size by rectangles here (the thresholds only choose where it pays).
    monkeypatch.setattr(morph, "FROM_KERNEL", 0)
    monkeypatch.setattr(morph, "FROM_PIXELS", 0)
    assert morph.rectangles(kernel) is not None
    se = morph.disc(kernel)
    for img in _images():
        for op in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT, cv2.MORPH_OPEN, cv2.MORPH_CLOSE):
            want = cv2.morphologyEx(img, op, se)
            got = morph.morphology(img, op, kernel)
            assert got.dtype == np.uint8 and got.shape == img.shape
            assert np.array_equal(got, want), (kernel, op, img.shape)


def test_rectangles_make_the_disc() -> None:
    assert morph.rectangles(15) == ((1, 15), (9, 13), (11, 11), (13, 9), (15, 5))
    assert morph.rectangles(14) is None  # (an even disc has no centre pixel)


def test_the_pip_map_keeps_its_input_and_falls_back_on_small_frames() -> None:
    img = _images()[2]
    before = img.copy()
    k = morph.FROM_KERNEL
    assert np.array_equal(hat(img, k, cv2.MORPH_BLACKHAT), np.asarray(cv2.GaussianBlur(
        cv2.morphologyEx(before, cv2.MORPH_BLACKHAT, morph.disc(k)), (3, 3), 0.8), np.uint8))
    assert np.array_equal(img, before)
    small = np.ascontiguousarray(img[:50, :50])
    assert np.array_equal(morph.hat(small, k, cv2.MORPH_TOPHAT), cv2.morphologyEx(small, cv2.MORPH_TOPHAT,
                                                                                   morph.disc(k)))
    with pytest.raises(ValueError, match="neither MORPH_BLACKHAT nor MORPH_TOPHAT"):
        morph.hat(img, k, cv2.MORPH_OPEN)
    with pytest.raises(ValueError, match="none of MORPH_OPEN"):
        morph.morphology(img, cv2.MORPH_GRADIENT, k)

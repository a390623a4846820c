"""Frames from other cameras: a white balance that is off, sensor noise (vision/scene.py and its uses)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from tests.vision.render import DieSpec, render
from vision import Verdict, read_dice
from vision.darkpips import light_pass
from vision.scene import MAX_GAIN, neutral_gains, noise_sigma
from vision.spots import MIN_SPOT, all_spots, noise_floors

U8 = NDArray[np.uint8]
# B, G, R gains of a colour cast, with the exposure the camera would pick (its brightest channel unclipped):
WARM = (0.65, 0.83, 1.0)  # a tungsten-lit room on a camera balanced for daylight
COOL = (1.0, 0.83, 0.67)  # daylight from a window on a camera balanced for indoor light


def cast(frame: U8, gains: tuple[float, float, float]) -> U8:
    return np.clip(frame.astype(np.float32) * np.array(gains, np.float32), 0, 255).astype(np.uint8)


def noisy(frame: U8, sd: float, seed: int = 0) -> U8:
    rng = np.random.default_rng(seed)
    return np.clip(frame.astype(np.float32) + rng.normal(0.0, sd, frame.shape), 0, 255).astype(np.uint8)


def two_white_dice(seed: int = 5) -> U8:
    return render([DieSpec(5, (200, 180), angle=10), DieSpec(3, (430, 300), angle=40)], seed=seed)


@pytest.mark.parametrize("gains", [WARM, COOL])
def test_neutral_gains_undo_a_colour_cast(gains: tuple[float, float, float]) -> None:
    frame = cast(two_white_dice(), gains)
    undone = neutral_gains(frame) * np.array(gains)
    # Corrected, the light is grey again: the three channels within 4% of each other.
    assert float(undone.max() / undone.min()) < 1.04, undone


def test_neutral_gains_leave_a_balanced_frame_alone_and_are_bounded() -> None:
    assert np.allclose(neutral_gains(two_white_dice()), 1.0, atol=0.05)
    red_sheet = np.zeros((240, 320, 3), np.uint8)
    red_sheet[:] = (40, 40, 200)  # nothing white in view: the brightest thing is red
    g = neutral_gains(red_sheet)
    assert g.max() <= MAX_GAIN + 1e-9 and g.min() >= 1 / MAX_GAIN - 1e-9
    assert np.allclose(neutral_gains(np.full((50, 50, 3), 255, np.uint8)), 1.0)  # all clipped: no estimate


@pytest.mark.parametrize("sd", [0.0, 3.0, 6.0])
def test_noise_sigma_measures_added_noise_through_dice_and_edges(sd: float) -> None:
    base = render([DieSpec(6, (200, 180)), DieSpec(2, (430, 300), angle=30)], seed=1)
    base = cv2.GaussianBlur(base, (0, 0), 1.0)  # take out the renderer's own noise first
    gray = cv2.cvtColor(noisy(base, sd), cv2.COLOR_BGR2GRAY)
    # Per-channel noise sd becomes 0.668 sd in grey (BT.601 weights), minus a little lost to clipping.
    assert noise_sigma(gray) == pytest.approx(0.668 * sd, abs=0.6)
    # The reader's inverted grey pass takes the grey pass's floors: the estimate is blind to the sign.
    assert noise_sigma(np.ascontiguousarray(255 - gray)) == noise_sigma(gray)


@pytest.mark.parametrize("gains", [WARM, COOL])
def test_white_dice_under_a_coloured_light_are_read_as_white_dice(gains: tuple[float, float, float]) -> None:
    # The pip-first reader keeps only white, grey or cream faces (MAX_CHROMA). Measured in the raw pixels,
    # a warm cast made every white die "coloured" (channel spread ~90 against 60) and it lost them.
    frame = cast(two_white_dice(), gains)
    gray = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    faces = light_pass(gray, None, frame).faces
    assert sorted(f.value for f in faces if f.value is not None) == [3, 5]


def speckled_sheet(seed: int) -> tuple[U8, list[tuple[int, int]]]:
    """Two white dice on a grey sheet with 24 dark specks (dust, holes), and 6 grey levels of sensor noise."""
    f = render([DieSpec(5, (120, 100), size=32, angle=10), DieSpec(3, (520, 380), size=32, angle=40)],
               seed=seed, board=(178, 180, 182))
    specks = [(80 + (k % 6) * 90, 170 + (k // 6) * 50) for k in range(24)]
    for xy in specks:
        cv2.circle(f, xy, 2, (60, 60, 60), -1, cv2.LINE_AA)
    return noisy(f, 6.0, seed), specks


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_specks_on_a_noisy_sheet_are_not_ones(seed: int) -> None:
    # A lone dark spot is a 1 only inside a die's rim. On noise alone, steps of 10 grey levels crossed
    # enough rays round 13-15 of these specks to make them 1s; the rim must now stand out of the noise.
    frame, _ = speckled_sheet(seed)
    r = read_dice(frame, expect=None)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == [3, 5]  # type: ignore[type-var]


def test_spots_are_found_above_the_noise() -> None:
    # Pure sensor noise (6 levels a channel, 4 in grey) on a blank sheet: at the fixed floor its black-hat
    # gives dozens of pip-sized "spots" (hundreds on the Byler photos), every pair of which the pip-first
    # pass then tries as a face.
    sheet = noisy(np.full((480, 640, 3), 170, np.uint8), 6.0)
    gray = np.asarray(cv2.cvtColor(sheet, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    floor, edge = noise_floors(gray)
    assert floor > MIN_SPOT and edge > 10.0
    assert len(all_spots(gray, 6.0, False, MIN_SPOT)[0]) > 20  # 31 round ones (more among the ovals)
    assert len(all_spots(gray, 6.0, False, floor)[0]) == 0
    # A clean frame keeps the fixed floors.
    assert noise_floors(np.full((480, 640), 170, np.uint8)) == (MIN_SPOT, 10.0)

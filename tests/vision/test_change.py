"""Where the table changed (vision/change.py): boxes around each place two looks of a view differ."""

from __future__ import annotations

import numpy as np
import pytest

from vision.change import MIN_PLACE, changed_boxes, cores, grow, inside, new_share, shrink

DIE = 8.0  # a die's side at work size (a 32 px die in a 640 px frame shrunk 4 times)


def _board(rng: np.random.Generator, noise: float = 3.0) -> np.ndarray:
    """A plain board at work size, as the watcher sees it: a 640x480 frame with sensor noise, shrunk 4x."""
    img = np.full((480, 640), 180.0) + rng.normal(0.0, noise, (480, 640))
    return shrink(np.clip(img, 0, 255).astype(np.uint8), 4)


def test_a_die_that_arrived_is_boxed_in_frame_pixels() -> None:
    rng = np.random.default_rng(0)
    before, after = _board(rng), _board(rng)
    after[40:48, 60:68] = 250  # a white die, 8 px a side at work size
    boxes = changed_boxes(before, after, die=DIE, threshold=14, factor=4)
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    # The die's square (240..272, 160..192 in frame pixels) lies inside the box, and the box is not much
    # bigger than the die and the joining margin around it.
    assert x0 <= 240 and y0 <= 160 and x1 >= 272 and y1 >= 192
    assert x1 - x0 <= 4 * (8 + DIE) and y1 - y0 <= 4 * (8 + DIE)


def test_two_places_apart_give_two_boxes_largest_first() -> None:
    rng = np.random.default_rng(1)
    before, after = _board(rng), _board(rng)
    after[10:18, 10:18] = 30  # a die thrown here
    after[80:92, 120:132] = 30  # and a larger change there
    boxes = changed_boxes(before, after, die=DIE, threshold=14)
    assert len(boxes) == 2
    assert inside((125, 85), boxes[:1]) and inside((14, 14), boxes[1:])


def test_noise_specks_and_masked_places_are_no_change() -> None:
    rng = np.random.default_rng(2)
    before, after = _board(rng, noise=6.0), _board(rng, noise=6.0)
    assert changed_boxes(before, after, die=DIE, threshold=14) == ()  # sensor noise only
    speck = after.copy()
    speck[50, 50] = 255  # one pixel: under MIN_PLACE of a die's face
    assert MIN_PLACE * DIE * DIE > 1
    assert changed_boxes(before, speck, die=DIE, threshold=14) == ()
    die = after.copy()
    die[50:58, 50:58] = 255
    mask = np.full_like(after, 255)
    mask[:, :80] = 0  # off the play area
    assert changed_boxes(before, die, die=DIE, threshold=14, mask=mask) == ()
    assert len(changed_boxes(before, die, die=DIE, threshold=14)) == 1


def test_images_of_different_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="different sizes"):
        changed_boxes(np.zeros((10, 10), np.uint8), np.zeros((10, 12), np.uint8), die=DIE, threshold=14)


def test_shrink_and_cores() -> None:
    img = np.zeros((480, 640, 3), np.uint8)
    img[:, 320:] = 255
    small = shrink(img, 4)
    assert small.shape == (120, 160) and small.dtype == np.uint8
    assert small[0, 0] == 0 and small[0, 159] == 255
    assert grow((10, 10, 20, 20), 15, (640, 480)) == (0, 0, 35, 35)
    # A die's centre may lie half a die beyond a box of change.
    (core,) = cores(((100, 100, 140, 140),), 32.0, (640, 480))
    assert core == (84, 84, 156, 156)
    assert inside((85, 150), (core,)) and not inside((80, 150), (core,))


def test_new_share_counts_what_differs_from_before_in_any_channel_or_was_not_known() -> None:
    """A die's top face is new where some channel moved by more than the threshold, or where before is black (a
    die lay there, blacked out: not known); the board's print left as it was, or in a shadow, is not."""
    rng = np.random.default_rng(1)
    before = np.clip(rng.normal(180.0, 3.0, (100, 100, 3)), 0, 255).astype(np.uint8)
    after = before.copy()
    assert new_share(after, before, (50.0, 50.0), 10.0) == 0.0
    after[40:61, 50:61, 2] = 250  # the right half of the disc, in red only
    assert new_share(after, before, (50.0, 50.0), 10.0) == pytest.approx(0.55, abs=0.06)
    assert new_share(after, before, (50.0, 50.0), 10.0, threshold=80) == 0.0  # 70 levels: under that threshold
    blacked = before.copy()
    blacked[:, :50] = 0
    assert new_share(before, blacked, (50.0, 50.0), 10.0) == pytest.approx(0.5, abs=0.06)
    assert new_share(after, before, (-30.0, 50.0), 10.0) == 1.0  # no pixel of the frame: nothing to say it is old
    # A shadow on what was there (its hue, darker, at least SHADOW of its light) is not new; darker still, or lighter,
    # it is.
    shaded = (before * 0.6).astype(np.uint8)
    assert new_share(shaded, before, (50.0, 50.0), 10.0) == 0.0
    assert new_share((before * 0.3).astype(np.uint8), before, (50.0, 50.0), 10.0) == 1.0
    assert new_share(np.clip(before * 1.3, 0, 255).astype(np.uint8), before, (50.0, 50.0), 10.0) == 1.0

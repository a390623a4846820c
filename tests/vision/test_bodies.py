"""vision/bodies.py on rendered scenes: dice that touch a tray's wall, or each other, each get a body."""

from __future__ import annotations

import cv2
import numpy as np

from tests.vision.render import DieSpec, render
from vision.bodies import segment

RED, BLUE, GREEN = (40, 40, 200), (190, 80, 30), (60, 170, 60)


def _tray(frame: np.ndarray, inner: tuple[int, int, int, int], wall: int, rim: int) -> np.ndarray:
    """A tray around `inner` (x0, y0, x1, y1): its wall's inner face `wall` px wide, in shade darkening
    towards the top, then a dark rim `rim` px wide; drawn only outside `inner`, so dice inside stay as
    rendered."""
    out = frame.astype(np.float32)
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = inner
    yy, xx = np.mgrid[0:h, 0:w]
    # Distance outside the floor's rectangle (0 on the floor).
    d = np.maximum.reduce([x0 - xx, xx - x1, y0 - yy, yy - y1, np.zeros_like(xx)])
    on_wall = (d > 0) & (d <= wall)
    out[on_wall] *= (0.85 - 0.25 * d[on_wall] / wall)[:, None]
    out[(d > wall) & (d <= wall + rim)] = (30, 30, 35)
    return np.asarray(out, np.uint8)


def _nearest(seg_centres: list[tuple[float, float]], xy: tuple[float, float]) -> float:
    return min(float(np.hypot(c[0] - xy[0], c[1] - xy[1])) for c in seg_centres)


def test_dice_against_a_tray_wall_are_found_centred() -> None:
    die = 40.0
    dice = [DieSpec(3, (200, 100), size=die, body=RED, pip=(240, 240, 240)),
            DieSpec(5, (420, 380), size=die, body=BLUE, pip=(240, 240, 240)),
            DieSpec(2, (320, 240), size=die, body=GREEN, pip=(240, 240, 240))]
    frame = render(dice, size=(800, 600), seed=3)
    # The wall's foot runs along the first die's top and the second die's bottom: both touch it.
    frame = _tray(frame, (120, 100 - 20, 680, 380 + 20), wall=32, rim=12)
    seg = segment(frame, die)
    centres = [b.center for b in seg.bodies]
    for d in dice:
        assert centres and _nearest(centres, d.center) < 0.25 * die, (d, centres)


def test_dice_a_shadow_apart_are_cut_around_each_die() -> None:
    # A few pixels apart, their shadows and the closing join them into one blob; each die stands out from the
    # gaps, so each gets its own body, centred on it (k-means on the blob's pixels cuts where they balance).
    die = 40.0
    dice = [DieSpec(4, (300, 240), size=die, angle=10, body=RED, pip=(240, 240, 240)),
            DieSpec(6, (347, 246), size=die, angle=5, body=BLUE, pip=(240, 240, 240)),
            DieSpec(1, (316, 290), size=die, angle=30, body=GREEN, pip=(240, 240, 240))]
    seg = segment(render(dice, size=(640, 480), seed=4), die)
    centres = [b.center for b in seg.bodies]
    assert len(centres) == 3, centres
    for d in dice:
        assert _nearest(centres, d.center) < 0.1 * die, (d, centres)


def test_a_blob_larger_than_the_throws_dice_is_not_cut_into_dice() -> None:
    """A blob of more die areas than twice the dice thrown (each die with a shadow as large as itself) is a
    structure (lettering, a card, a tray's wall), not a cluster of the throw's dice: it is carved, not cut into
    die-sized parts by k-means. Without the count, an L-shaped block of about ten die areas was cut into
    twelve "dice", each then read (vision/reader.py passes the throw's count: reads of cocked and stacked
    throws on the simulated board took a third less time, docs/vision.md)."""
    die = 30.0
    frame = render([DieSpec(3, (150, 380), size=die), DieSpec(5, (500, 380), size=die)], size=(640, 480), seed=5)
    corner = np.array([(200, 100), (236, 100), (236, 220), (320, 220), (320, 256), (200, 256)], np.int32)
    cv2.fillPoly(frame, [corner], (40, 40, 200))
    dice = [(150.0, 380.0), (500.0, 380.0)]
    unknown = segment(frame, die)
    assert len(unknown.bodies) > 4  # cut up (what an unknown number of dice allows)
    known = segment(frame, die, dice=2)
    centres = [b.center for b in known.bodies]
    assert len(centres) == 2 and all(_nearest(centres, d) < 0.2 * die for d in dice), centres
    assert [why for _, why in known.rejected] == ["not a die (large irregular region)"]

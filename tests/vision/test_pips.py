"""vision.pips.detect: a spot's size and roundness, measured to half its peak or (`valleys`, uncalibrated) to the
valley before a neighbour."""

from __future__ import annotations

import numpy as np
import pytest

from vision.pips import VALLEY_ELONG, Candidates, detect


def _blobs(centres: list[tuple[float, float]], sigma: float, peak: float = 120.0,
           stretch: float = 1.0) -> np.ndarray:
    """A response map with a Gaussian spot (stretched along x by `stretch`) at each centre."""
    yy, xx = np.mgrid[0:60, 0:80].astype(np.float64)
    out = np.zeros((60, 80))
    for cx, cy in centres:
        out = np.maximum(out, peak * np.exp(-(((xx - cx) / stretch) ** 2 + (yy - cy) ** 2) / (2 * sigma ** 2)))
    return np.rint(out).astype(np.uint8)


def _at(resp: np.ndarray, x: float, y: float, valleys: bool = True) -> tuple[float, float]:
    c = detect(resp, 14.0, 10, True, valleys)  # (the pip passes reach 10 px on a 640 px frame: a 19 px black-hat)
    i = int(np.argmin(np.hypot(c.xy[:, 0] - x, c.xy[:, 1] - y)))
    assert np.hypot(c.xy[i, 0] - x, c.xy[i, 1] - y) <= 1.0
    return float(c.radius[i]), float(c.elong[i])


def test_packed_pips_measure_round_to_the_valley_between_them() -> None:
    # Two pips 7 px apart whose responses stay above half their peak between them (a small die's 6, Byler's
    # marbled dice with red pips): measured to half the peak each reached into the other, 2 or more long, and
    # was no pip to the pip passes. Measured to the valley, each is round and of its own size.
    resp = _blobs([(30, 30), (37, 30)], sigma=2.6)
    assert resp[30, 33] > 0.5 * resp[30, 30]  # (the valley between them is above half the peak)
    lone_r, _ = _at(_blobs([(30, 30)], sigma=2.6), 30, 30)
    r, e = _at(resp, 30, 30)
    assert e < VALLEY_ELONG
    assert abs(r - lone_r) <= 0.5
    # Without `valleys` (calibrated reads) the spot measures as it always did: long.
    assert _at(resp, 30, 30, valleys=False)[1] >= VALLEY_ELONG


def test_a_stroke_stays_long_and_a_lone_pip_measures_as_before() -> None:
    # A stroke (a letter, an edge) has no valley along itself: still long. A lone round pip is never
    # measured again.
    _, e = _at(_blobs([(40, 30)], sigma=2.0, stretch=3.0), 40, 30)
    assert e >= VALLEY_ELONG
    lone_r, lone_e = _at(_blobs([(30, 30)], sigma=2.6), 30, 30)
    assert lone_e < 1.3 and 2.0 <= lone_r <= 4.0


def test_the_reader_asks_for_valleys_uncalibrated_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # Calibrated, the passes work at the die's known size, and the measure made a touching die's pips count as a
    # side face's (the simulated camera's touching white pairs, 2 of 90 refused): calibrated reads measure as before.
    import vision.colourpips
    import vision.darkpips
    import vision.spots
    from calibration.model import Calibration
    from tests.vision.render import DieSpec, render
    from vision.reader import read_dice

    asked: list[bool] = []

    def spy(resp: np.ndarray, floor: float, max_radius: int, dark: bool, valleys: bool = False) -> Candidates:
        asked.append(valleys)
        return detect(resp, floor, max_radius, dark, valleys)

    monkeypatch.setattr(vision.spots, "detect", spy)
    monkeypatch.setattr(vision.darkpips, "detect", spy)
    monkeypatch.setattr(vision.colourpips, "detect", spy)
    red, white = (40, 40, 170), (245, 245, 245)
    frame = render([DieSpec(5, (220, 200), angle=17, body=red, pip=white),
                    DieSpec(6, (420, 300), angle=40, body=red, pip=white)], seed=3)
    read_dice(frame, expect=2)
    assert asked and any(asked)
    asked.clear()
    cal = Calibration(image_size=(640, 480), board_polygon=((0, 0), (640, 0), (640, 480), (0, 480)),
                      die_size_px=40.0)
    read_dice(frame, calibration=cal, expect=2)
    assert asked and not any(asked)


@pytest.mark.parametrize("valleys", [True, False])
def test_the_body_reader_passes_valleys_to_the_colour_reader(valleys: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.bodyread
    from vision.dicenet import N_CLASSES, NetRead
    from vision.faces import Face

    asked: list[bool] = []

    def spy(*args: object, **kwargs: object) -> Face:
        asked.append(bool(kwargs.get("valleys")))
        return Face(None, 0.0, "spy", ())

    monkeypatch.setattr(vision.bodyread, "read_colour_face", spy)
    unsure = NetRead.of(tuple([0.1] + [0.15] * 6 + [0.0]))  # no die 0.1, no value sure: the colour reader is asked
    assert len(unsure.probs) == N_CLASSES
    frame = np.full((200, 200, 3), 128, np.uint8)
    square = ((100.0, 100.0), 40.0, 0.0)
    vision.bodyread.read_body(frame, square, square, False, unsure, valleys=valleys)
    assert asked == [valleys]

"""The real reader (`vision.read_dice`) on the simulated camera's frames, alone and behind the watcher.

These compare the reader with the simulator's ground truth. The pip-first pass for light dice with dark
pips (vision/darkpips.py) reads the ok, off-board and stacked rest frames. A cocked die leaning on the
hotel still shows a face with a legal, square-looking layout (a 2 or a 5 at full size); the reader tells
it apart by the side face it shows where a flat die's cannot show (the camera recovered from the
calibration's homography, vision/camera.py). The renders themselves are checked in test_simcam.py.
"""

from __future__ import annotations

import math

import pytest

from hardware.simcam import SimulatedCamera
from vision.change import changed_boxes, shrink
from vision.reading import Verdict
from vision.watcher import RollWatcher

read_dice = pytest.importorskip("vision").read_dice


def _rest_frame(kind: str, seed: int) -> tuple[SimulatedCamera, object]:
    cam = SimulatedCamera(seed=seed, script=[kind], hands=False)
    frames = list(cam)
    return cam, frames[-1]


def _throw_and_changes(kind: str, seed: int) -> tuple[SimulatedCamera, object, tuple]:
    """A throw's rest frame and the boxes where it differs from the table before the throw, found as the
    watcher finds them (work size, its threshold)."""
    cam = SimulatedCamera(seed=seed, script=[kind], hands=False)
    frames = list(cam)
    boxes = changed_boxes(shrink(frames[0].image, 4), shrink(frames[-1].image, 4), die=cam.die_size_px() / 4,
                          threshold=14, factor=4)
    return cam, frames[-1], boxes


@pytest.mark.parametrize("kind", ["ok", "off_board", "cocked", "stacked"])
@pytest.mark.parametrize("seed", [1, 2])
def test_reader_on_rest_frames(kind: str, seed: int) -> None:
    cam, frame = _rest_frame(kind, seed)
    (truth,) = cam.throws
    reading = read_dice(frame.image, calibration=cam.calibration(), expect=2)  # type: ignore[attr-defined]
    assert reading.verdict is truth.verdict, (truth.kind, reading.reason)
    # Right for the right reason: the dice it found are where the dice are ("no dice found" is also
    # `unreadable`, so the verdict alone would let a blind reader pass the cocked and stacked renders).
    tol = 0.5 * cam.die_size_px()
    near = [d for d in reading.dice
            if any(math.dist(d.center, t.center_px) < tol for t in truth.dice)]
    assert near, f"no die found near the true positions; reader said {reading.reason!r}"
    if truth.kind in ("ok", "off_board"):
        assert len(near) == 2 == len(reading.dice)
    if truth.verdict is Verdict.OK:
        assert sorted(v for v in reading.values if v is not None) == sorted(v for v in truth.values if v)


@pytest.mark.parametrize("changed", [False, True], ids=["whole", "where-changed"])
def test_watcher_with_the_real_reader_one_event_per_throw(changed: bool) -> None:
    cam = SimulatedCamera(seed=3, script=["ok", "off_board", "ok", "cocked"])
    cal = cam.calibration()
    watcher = RollWatcher(reader=lambda img: read_dice(img, calibration=cal, expect=2), calibration=cal,
                          throw_reader=(lambda img, boxes, before: read_dice(img, calibration=cal, expect=2,
                                                                             changed=boxes, before=before))
                          if changed else None)
    events = list(watcher.watch(cam))
    assert [e.reading.verdict for e in events] == [t.verdict for t in cam.throws]
    for event, truth in zip(events, cam.throws, strict=True):
        if truth.verdict is Verdict.OK:
            assert sorted(event.reading.values) == sorted(truth.values)  # type: ignore[type-var]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ok", "off_board", "cocked", "stacked"])
def test_never_a_wrong_ok_over_forty_throws(kind: str) -> None:
    """The safety property over many renders: `ok` only with the true values of a throw that counts.
    (Seed 40's cocked 6 was once read as a flat 6, when 6s were allowed a skewed grid either way:
    vision.darkpips._check. Stacked seed 93's lower die showed a side face that, once carved out of the
    pair's blob, was read as a 3: stacked throws run to seed 100.)"""
    for seed in range(1, 101 if kind == "stacked" else 41):
        cam, frame = _rest_frame(kind, seed)
        (truth,) = cam.throws
        reading = read_dice(frame.image, calibration=cam.calibration(), expect=2)  # type: ignore[attr-defined]
        if reading.verdict is Verdict.OK:
            assert truth.verdict is Verdict.OK, (kind, seed, [d.value for d in reading.dice])
            assert sorted(d.value for d in reading.dice) == sorted(d.value for d in truth.dice), (kind, seed)


@pytest.mark.slow
def test_most_ok_throws_read_over_forty_seeds() -> None:
    """How often a good throw costs a re-roll on the simulated table: measured 37 of 40 read right
    (32 before lone pips were judged on a disc at the calibrated pitch, vision.darkpips._ones)."""
    right = 0
    for seed in range(1, 41):
        cam, frame = _rest_frame("ok", seed)
        (truth,) = cam.throws
        reading = read_dice(frame.image, calibration=cam.calibration(), expect=2)  # type: ignore[attr-defined]
        right += reading.verdict is Verdict.OK and sorted(reading.values) == sorted(truth.values)  # type: ignore[type-var]
    assert right >= 35


@pytest.mark.parametrize(("kind", "seed"), [*((k, s) for k in ("ok", "off_board", "cocked", "stacked")
                                              for s in (1, 2, 3)), ("stacked", 34), ("cocked", 34)])
def test_reader_where_the_table_changed(kind: str, seed: int) -> None:
    """Read only where the table changed (the watcher's reads): the same verdicts and values as the truth,
    and no die reported away from the thrown dice (a whole read of a cocked or stacked throw may read the
    board's lettering and pieces as dice: stacked seed 34 found four, cocked seed 34 three)."""
    cam, frame, boxes = _throw_and_changes(kind, seed)
    (truth,) = cam.throws
    assert boxes, "the throw changed nothing?"
    reading = read_dice(frame.image, calibration=cam.calibration(), expect=2, changed=boxes)  # type: ignore[attr-defined]
    assert reading.verdict is truth.verdict, (truth.kind, reading.reason)
    if truth.verdict is Verdict.OK:
        assert sorted(reading.values) == sorted(truth.values)  # type: ignore[type-var]
    for d in reading.dice:
        assert min(math.dist(d.center, t.center_px) for t in truth.dice) < 1.5 * cam.die_size_px(), d


def test_a_die_where_nothing_changed_is_not_read() -> None:
    """Only the boxes given are read: with one die's place left out, that die is not found."""
    cam, frame, boxes = _throw_and_changes("ok", 1)
    assert len(boxes) == 2  # the two dice landed apart
    whole = read_dice(frame.image, calibration=cam.calibration(), expect=2)  # type: ignore[attr-defined]
    assert whole.verdict is Verdict.OK
    for box in boxes:
        part = read_dice(frame.image, calibration=cam.calibration(), expect=2, changed=[box])  # type: ignore[attr-defined]
        assert part.verdict is Verdict.UNREADABLE and part.reason == "found 1 dice, expected 2"
        (die,) = part.dice
        x0, y0, x1, y1 = box
        assert x0 - 16 <= die.center[0] < x1 + 16 and y0 - 16 <= die.center[1] < y1 + 16
    assert read_dice(frame.image, calibration=cam.calibration(), changed=[]).reason == "no dice found"  # type: ignore[attr-defined]


def test_reading_where_the_table_changed_needs_a_die_size() -> None:
    _, frame, boxes = _throw_and_changes("ok", 1)
    with pytest.raises(ValueError, match="needs a calibration with a die size"):
        read_dice(frame.image, changed=boxes)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 5))
def test_watcher_reading_where_the_table_changed_over_programmes_with_hands(seed: int) -> None:
    """The product's path: the real reader behind the watcher, reading each throw only where the table
    changed, over six throws with hands hovering, nudging the dice and picking them up: one event per
    throw, never a wrong `ok` (measured on seeds 1-40: 240 events for 240 throws, docs/vision.md)."""
    kinds = ["ok", "off_board", "cocked", "stacked"]
    cam = SimulatedCamera(seed=seed, script=[kinds[(seed + i) % 4] for i in range(6)])
    cal = cam.calibration()
    watcher = RollWatcher(reader=lambda img: read_dice(img, calibration=cal), calibration=cal,
                          throw_reader=lambda img, boxes, before: read_dice(img, calibration=cal, changed=boxes,
                                                                            before=before))
    events = list(watcher.watch(cam))
    assert len(events) == len(cam.throws), [n for _, n in watcher.notes]
    for event, truth in zip(events, cam.throws, strict=True):
        if event.reading.verdict is Verdict.OK:
            assert truth.verdict is Verdict.OK and sorted(event.reading.values) == sorted(truth.values)  # type: ignore[type-var]

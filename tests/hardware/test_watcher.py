"""The roll watcher on simulated frame sequences: N throws in, exactly N events out, none from hands.

The reader here is the simulator's oracle: it reports what is really in the frame at that moment, dice in
a hand or in the air included. So a watcher that reads at the wrong time (mid-flight, while a hand holds
the dice) produces a wrong or extra event and fails these tests; only the watcher's timing and
de-duplication are under test. The real reader on the same renders is in test_pipeline_real_reader.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from hardware.simcam import SimulatedCamera, ThrowTruth
from hardware.simrender import face_up
from vision.change import Box, cores, inside
from vision.reading import DiceReading, Die, Verdict
from vision.watcher import Frame, RollEvent, RollWatcher, WatcherConfig, WatchState


def run_sim(seed: int, script: list[str], fps: float = 30.0, hands: bool = True,
            config: WatcherConfig | None = None) -> tuple[SimulatedCamera, list[RollEvent], RollWatcher]:
    cam = SimulatedCamera(seed=seed, fps=fps, script=script, hands=hands)
    watcher = RollWatcher(reader=lambda _img: cam.truth_reading(), calibration=cam.calibration(),
                          config=config or WatcherConfig())
    events = list(watcher.watch(cam))
    return cam, events, watcher


def assert_matches(events: list[RollEvent], throws: list[ThrowTruth], fps: float) -> None:
    assert len(events) == len(throws), (
        f"{len(throws)} throws gave {len(events)} events: "
        f"{[(round(e.t, 2), e.reading.verdict.value) for e in events]} vs "
        f"{[(round(t.t_rest, 2), t.kind) for t in throws]}")
    for event, truth in zip(events, throws, strict=True):
        assert event.reading.verdict is truth.verdict, (truth.kind, event.reading)
        if truth.kind == "spinner":
            assert event.timed_out
            assert event.t < truth.t_rest, "the timeout must come while the die is still spinning"
            continue
        assert not event.timed_out
        # Read after the dice stopped, and promptly.
        assert truth.t_rest <= event.t <= truth.t_rest + 0.25 + 1.5 / fps, (truth, event.t)
        assert event.reading.values == truth.values


@pytest.fixture(scope="module")
def all_kinds_30fps() -> tuple[SimulatedCamera, list[RollEvent], RollWatcher]:
    return run_sim(seed=11, script=["ok", "off_board", "cocked", "stacked", "ok", "spinner", "ok"])


def test_one_event_per_throw_with_the_right_verdicts(all_kinds_30fps: tuple) -> None:
    cam, events, _ = all_kinds_30fps
    assert len(cam.throws) == 7
    assert_matches(events, cam.throws, fps=30.0)


def test_hands_and_retouches_produce_no_event(all_kinds_30fps: tuple) -> None:
    cam, events, watcher = all_kinds_30fps
    kinds = {a.kind for a in cam.actions}
    assert {"hover", "pickup", "retouch"} <= kinds, kinds
    for action in cam.actions:
        inside = [e for e in events if action.t_start <= e.t <= action.t_end + 0.5]
        assert not inside, (action, inside)
    notes = " | ".join(n for _, n in watcher.notes)
    # The hands were really seen and dismissed, not just missed.
    assert "obstructed" in notes and "cleared" in notes


@pytest.mark.parametrize("seed,script", [
    (11, ["ok", "off_board", "cocked", "stacked", "ok", "spinner", "ok"]),
    (5, ["ok", "off_board", "stacked", "cocked", "ok"]),
])
def test_reading_only_where_the_table_changed_keeps_one_event_per_throw(seed: int, script: list[str]) -> None:
    """With a changed reader the throws are read only where the scene differs from the table's last settled
    look (vision/change.py). The oracle here answers only for the dice centred in those places: a box that
    missed a thrown die, or dice left out of the same-dice judgement, gives wrong values or extra events."""
    cam = SimulatedCamera(seed=seed, script=script)
    size = cam.size
    asked: list[tuple[Box, ...]] = []

    def where_changed(_img: np.ndarray, boxes: tuple[Box, ...] | None, _before: np.ndarray | None) -> DiceReading:
        truth = cam.truth_reading()
        if boxes is None:
            return truth  # (the dice lying were touched: read whole)
        asked.append(boxes)
        near = cores(boxes, cam.die_size_px(), size)
        return DiceReading(truth.verdict, truth.reason, tuple(d for d in truth.dice if inside(d.center, near)))

    watcher = RollWatcher(reader=lambda _img: cam.truth_reading(), calibration=cam.calibration(),
                          throw_reader=where_changed)
    events = list(watcher.watch(cam))
    assert_matches(events, cam.throws, fps=30.0)
    assert len(asked) >= len([t for t in cam.throws if t.kind != "spinner"])
    # Each read covered a small part of the frame: the throw, not the board.
    for boxes in asked:
        assert sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) < 0.2 * size[0] * size[1], boxes


def test_the_throw_reader_gets_the_table_before_the_throw_with_the_dice_that_lay_there_blacked_out() -> None:
    """M.DICE.2 (vision/sidepips.py): the reader compares a throw with the table before it; where a die lay
    there, nothing is known (lifted, it uncovers the board's print, which is new)."""
    cam = SimulatedCamera(seed=11, script=[], hands=False)
    s = cam.die_mm / 2
    first = [cam.posed_die((x, -40.0, s), face_up(v)) for x, v in ((-60.0, 3), (-10.0, 5))]
    second = [cam.posed_die((x, 50.0, s), face_up(v)) for x, v in ((10.0, 2), (70.0, 6))]
    scenes = [cam.still([]), cam.still(first), cam.still(second)]  # thrown again without the table cleared
    truths = [(), *(tuple(cam.project(np.array([[*p.center[:2], 2 * s]]))[0] for p in dice)
                    for dice in (first, second))]
    frames = [Frame(scenes[i // 20], i / 30.0, i) for i in range(60)]
    seen: list[tuple[np.ndarray, np.ndarray | None]] = []

    def whole(img: np.ndarray) -> DiceReading:
        k = next(k for k, scene in enumerate(scenes) if img is scene)
        return DiceReading(Verdict.OK, "", tuple(Die(1 + k, (float(x), float(y)), 1.0, size=cam.die_size_px())
                                                 for x, y in truths[k]))

    def throw(img: np.ndarray, _boxes: tuple[Box, ...] | None, before: np.ndarray | None) -> DiceReading:
        seen.append((img, before))
        return whole(img)

    watcher = RollWatcher(reader=whole, calibration=cam.calibration(), throw_reader=throw)
    events = list(watcher.watch(frames))
    assert len(events) == 2 and [img is scenes[k] for k, (img, _) in zip((1, 2), seen, strict=True)] == [True, True]
    (_, b1), (_, b2) = seen
    assert b1 is not None and (b1 == scenes[0]).all()  # the empty table: nothing lay there
    assert b2 is not None and b2.shape == scenes[1].shape
    for x, y in truths[1]:  # where the first throw's dice lay: black
        assert not b2[round(y), round(x)].any()
    # ... and elsewhere the table as it was before the second throw, not the second throw.
    assert ((b2 == scenes[1]) | (b2 == 0)).all() and (b2 == scenes[1]).mean() > 0.9


def test_settle_latency_at_30_fps(all_kinds_30fps: tuple) -> None:
    cam, events, _ = all_kinds_30fps
    for event, truth in zip(events, cam.throws, strict=True):
        if event.timed_out:
            continue
        # The frame that completes the motion may already differ too little from the one before.
        assert event.rest_t is not None and event.rest_t >= truth.t_rest - 1 / 30 - 1e-6
        assert (event.t - truth.t_rest) * 1000 < 250
        assert event.latency_frames <= 6


@pytest.mark.parametrize("seed,fps", [(5, 15.0), (23, 25.0)])
def test_other_seeds_and_frame_rates(seed: int, fps: float) -> None:
    cam, events, _ = run_sim(seed=seed, fps=fps, script=["ok", "off_board", "stacked", "cocked", "ok"])
    assert_matches(events, cam.throws, fps=fps)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 106))
def test_random_programmes(seed: int) -> None:
    cam = SimulatedCamera(seed=seed, fps=20.0)
    watcher = RollWatcher(reader=lambda _img: cam.truth_reading(), calibration=cam.calibration())
    events = []
    for frame in cam:
        ev = watcher.feed(frame)
        if ev:
            events.append(ev)
        if len(cam.throws) >= 6 and frame.t > cam.throws[-1].t_rest + 1.0:
            break
    assert_matches(events, cam.throws, fps=20.0)


def test_without_hands_dice_vanish_between_throws() -> None:
    cam, events, _ = run_sim(seed=2, script=["ok", "ok", "off_board"], hands=False)
    assert_matches(events, cam.throws, fps=30.0)


# -- unit tests on hand-made frames ------------------------------------------------------------------


def _frames(images: list[np.ndarray], fps: float = 30.0) -> list[Frame]:
    return [Frame(img, i / fps, i) for i, img in enumerate(images)]


def _table(rng: np.random.Generator, noise: float = 2.0) -> np.ndarray:
    base = np.full((240, 320, 3), 120, np.uint8)
    return np.clip(base + rng.normal(0, noise, base.shape), 0, 255).astype(np.uint8)


def _with_square(img: np.ndarray, x: int, y: int, side: int = 20, value: int = 255) -> np.ndarray:
    out = img.copy()
    out[y:y + side, x:x + side] = value
    return out


def _square(img: np.ndarray) -> tuple[float, float] | None:
    """The centre of the bright square in a hand-made frame, None where there is none."""
    ys, xs = np.nonzero(img[:, :, 0] > 200)
    return (float(xs.mean()), float(ys.mean())) if len(xs) else None


class CountingReader:
    """Says there is one die wherever the bright square is; counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, img: np.ndarray) -> DiceReading:
        self.calls += 1
        at = _square(img)
        if at is None:
            return DiceReading(Verdict.UNREADABLE, "no dice found")
        die = Die(value=3, center=at, confidence=1.0)
        return DiceReading(Verdict.UNREADABLE, "found 1 dice, expected 2", (die,))


def test_camera_noise_alone_never_moves() -> None:
    rng = np.random.default_rng(0)
    reader = CountingReader()
    watcher = RollWatcher(reader=reader)
    events = list(watcher.watch(_frames([_table(rng, noise=3.0) for _ in range(200)])))
    assert events == []
    assert watcher.state is WatchState.QUIET
    assert reader.calls == 1  # the first frame only: what is lying there at start


def test_a_sliding_block_gives_one_event_then_lying_still_gives_none() -> None:
    rng = np.random.default_rng(1)
    reader = CountingReader()
    watcher = RollWatcher(reader=reader)
    imgs = [_table(rng) for _ in range(10)]
    imgs += [_with_square(_table(rng), 20 + 8 * k, 100) for k in range(20)]  # moving
    imgs += [_with_square(_table(rng), 20 + 8 * 19, 100) for _ in range(300)]  # ten seconds at rest
    events = list(watcher.watch(_frames(imgs)))
    assert len(events) == 1
    assert events[0].latency_frames == math.ceil(WatcherConfig().rest_s * 30 - 1e-9)
    assert watcher.state is WatchState.SETTLED


def test_a_nudge_that_keeps_values_and_places_is_not_a_throw() -> None:
    rng = np.random.default_rng(2)
    reader = CountingReader()
    watcher = RollWatcher(reader=reader)
    imgs = [_table(rng) for _ in range(5)]
    imgs += [_with_square(_table(rng), 20 + 8 * k, 100) for k in range(10)]
    imgs += [_with_square(_table(rng), 92, 100) for _ in range(30)]
    # Moved by 3 px: a real change of the scene, but the same die at the same place.
    imgs += [_with_square(_table(rng), 95, 101) for _ in range(30)]
    events = list(watcher.watch(_frames(imgs)))
    assert len(events) == 1
    assert any("same dice" in n for _, n in watcher.notes)


def test_a_lighting_change_is_adopted_without_an_event() -> None:
    rng = np.random.default_rng(3)
    reader = CountingReader()
    watcher = RollWatcher(reader=reader)
    imgs = [_table(rng) for _ in range(10)]
    imgs += [np.clip(_table(rng).astype(int) + 40, 0, 255).astype(np.uint8) for _ in range(150)]
    events = list(watcher.watch(_frames(imgs)))
    assert events == []
    assert reader.calls == 2  # at start, and once when the new look was adopted after adopt_after_s
    assert watcher.state is WatchState.QUIET


def test_never_settling_times_out_once() -> None:
    rng = np.random.default_rng(4)
    reader = CountingReader()
    cfg = WatcherConfig(timeout_s=2.0)
    watcher = RollWatcher(reader=reader, config=cfg)
    imgs = [_table(rng) for _ in range(5)]
    imgs += [_with_square(_table(rng), 20 + (k * 7) % 200, 100) for k in range(150)]  # 5 s of motion
    imgs += [_with_square(_table(rng), 60, 100) for _ in range(60)]
    events = list(watcher.watch(_frames(imgs)))
    assert len(events) == 1
    assert events[0].timed_out and events[0].reading.verdict is Verdict.UNREADABLE
    assert abs(events[0].t - (5 / 30 + 2.0)) < 0.1


def test_empty_play_area_after_lifting_gives_no_event() -> None:
    rng = np.random.default_rng(5)
    reader = CountingReader()
    watcher = RollWatcher(reader=reader)
    imgs = [_with_square(_table(rng), 100, 100) for _ in range(20)]  # a die lying there at start
    imgs += [_with_square(_table(rng), 100, 100 - 10 * k) for k in range(10)]  # lifted away
    imgs += [_table(rng) for _ in range(30)]
    events = list(watcher.watch(_frames(imgs)))
    assert events == []
    assert any("cleared" in n for _, n in watcher.notes)


class BoardFeatureReader(CountingReader):
    """Like CountingReader, but also 'sees' a die in a fixed board feature (lettering, a piece) that is
    always there: the failure the simulated board's lettering once caused in the real reader."""

    def __call__(self, img: np.ndarray) -> DiceReading:
        self.calls += 1
        feature = Die(value=1, center=(300.0, 20.0), confidence=0.5)
        at = _square(img)
        dice = [feature]
        if at is not None:
            dice.append(Die(value=3, center=at, confidence=1.0))
        return DiceReading(Verdict.UNREADABLE, f"found {len(dice)} dice, expected 2", tuple(dice))


def test_lifting_dice_off_a_board_whose_features_fool_the_reader_gives_no_event() -> None:
    rng = np.random.default_rng(6)
    reader = BoardFeatureReader()
    watcher = RollWatcher(reader=reader)
    imgs = [_table(rng) for _ in range(10)]  # the empty table
    imgs += [_with_square(_table(rng), 20 + 8 * k, 100) for k in range(20)]  # a throw
    imgs += [_with_square(_table(rng), 172, 100) for _ in range(30)]  # at rest: one event
    imgs += [_with_square(_table(rng), 172, 100 - 10 * k) for k in range(10)]  # picked up
    imgs += [_table(rng) for _ in range(60)]  # the empty table again: no event
    imgs += [_with_square(_table(rng), 200 - 8 * k, 150) for k in range(15)]  # the next throw
    imgs += [_with_square(_table(rng), 88, 150) for _ in range(30)]
    events = list(watcher.watch(_frames(imgs)))
    assert len(events) == 2, [(e.t, e.reading.reason) for e in events]
    assert any("as the table looked with no throw" in n for _, n in watcher.notes)


class WobblyReader(CountingReader):
    """A refused throw whose reading changes when the die is nudged (as a cocked or stacked pair's does:
    another part of it is taken for a die): the square is a cocked die, and a second, unreadable 'die'
    appears beside it once it lies right of x = 94."""

    def __call__(self, img: np.ndarray) -> DiceReading:
        self.calls += 1
        at = _square(img)
        if at is None:
            return DiceReading(Verdict.UNREADABLE, "no dice found")
        x, y = at
        dice = [Die(value=None, center=(x, y), confidence=0.0)]
        if x > 94 + 10:
            dice.append(Die(value=None, center=(x, y + 15), confidence=0.0))
        return DiceReading(Verdict.UNREADABLE, "die 1 unreadable: cocked", tuple(dice))


def test_a_refused_throw_nudged_and_still_refused_gives_no_second_event() -> None:
    rng = np.random.default_rng(7)
    reader = WobblyReader()
    watcher = RollWatcher(reader=reader)
    imgs = [_table(rng) for _ in range(5)]
    imgs += [_with_square(_table(rng), 20 + 8 * k, 100) for k in range(10)]
    imgs += [_with_square(_table(rng), 92, 100) for _ in range(30)]  # the throw: refused
    imgs += [_with_square(_table(rng), 97, 101) for _ in range(30)]  # nudged: read otherwise, still refused
    imgs += [_with_square(_table(rng), 260 - 8 * k, 200) for k in range(10)]  # a new throw elsewhere
    imgs += [_with_square(_table(rng), 188, 200) for _ in range(30)]
    events = list(watcher.watch(_frames(imgs)))
    assert len(events) == 2, [(e.t, e.reading.dice) for e in events]
    assert any("refused throw's dice touched" in n for _, n in watcher.notes)

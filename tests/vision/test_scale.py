"""Large dice are read on the frame shrunk to the reader's working size (vision/scale.py), small ones on the
frame enlarged to it, and the dice found are reported in the frame's own pixels."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.scale
from calibration.model import Calibration
from hardware.simcam import SimulatedCamera
from tests.vision.render import DieSpec, render
from tests.vision.simthrows import read_at_the_pi_units_view, read_large_dice_at_their_size, read_where_changed
from vision import Verdict, read_dice
from vision.change import changes
from vision.reading import DiceReading, Die
from vision.scale import (
    ALIGN_SLACK,
    CALIBRATED_SHRINK_ABOVE,
    ENLARGE_BELOW,
    FACE_BELOW,
    MAX_ENLARGE,
    READ_DIE,
    SHRINK_ABOVE,
    die_and_scale,
    reading_scale,
    resized,
    resized_boxes,
    resized_within,
    restored,
    scale_for,
)


def test_dice_of_the_working_size_are_read_as_taken() -> None:
    frame = render([DieSpec(2, (200, 200), size=40.0), DieSpec(5, (420, 260), size=40.0, angle=30)], seed=1)
    assert reading_scale(frame, None) == 1.0
    assert reading_scale(frame, SHRINK_ABOVE) == 1.0  # a calibrated die at the limit is not shrunk
    # ... but with the board's homography a calibrated die over the working size is read shrunk to it
    assert reading_scale(frame, READ_DIE, camera=True) == 1.0
    assert reading_scale(frame, SHRINK_ABOVE, camera=True) == pytest.approx(READ_DIE / SHRINK_ABOVE)


def test_a_phone_sized_photo_is_read_shrunk_and_its_dice_placed_in_its_own_pixels() -> None:
    # 160 px dice in a 2560x1920 frame: a phone's photo of two dice on a table.
    spec = [DieSpec(3, (900, 700), size=160.0, angle=10), DieSpec(6, (1700, 1250), size=160.0, angle=55)]
    frame = render(spec, size=(2560, 1920), seed=5)
    scale = reading_scale(frame, None)
    assert 0.7 * READ_DIE / 160.0 < scale < 1.3 * READ_DIE / 160.0, scale
    r = read_dice(frame)
    assert r.verdict is Verdict.OK, r.reason
    by_value = {d.value: d for d in r.dice}
    assert sorted(by_value) == [3, 6]
    for s in spec:
        d = by_value[s.value]
        assert np.hypot(d.center[0] - s.center[0], d.center[1] - s.center[1]) < 0.15 * s.size, (d.center, s.center)
        assert 0.7 * s.size < d.size < 1.4 * s.size, d.size
        xs = [x for x, _ in d.corners]
        assert max(xs) - min(xs) > 0.7 * s.size  # the outline too is in the frame's pixels


def _sim(kind: str, seed: int) -> tuple[np.ndarray, np.ndarray, Calibration, object]:
    from hardware.simcam import SimulatedCamera

    cam = SimulatedCamera(seed=seed, script=[kind], hands=False)
    frames = list(cam)
    return frames[0].image, frames[-1].image, cam.calibration(), cam


@pytest.mark.parametrize(("kind", "seed"), [("ok", 2), ("off_board", 3), ("stacked", 34)])
def test_a_calibrated_camera_with_larger_frames_reads_the_same_throw(kind: str, seed: int) -> None:
    """The simulated camera's throw taken at 2.5 times the calibration's frame size (a 1600x1200 camera with
    the same view): the calibrated die, 2.5 times as large, is over SHRINK_ABOVE, so the frame is read
    shrunk; whole and where the table changed, the verdict (and a counted throw's values) are those of the
    frame as calibrated, and the dice lie where the throw put them, in the large frame's pixels."""
    before, after, cal, cam = _sim(kind, seed)
    k = 2.5
    die = cam.die_size_px() * k  # type: ignore[attr-defined]
    assert die > SHRINK_ABOVE

    def big(img: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC), dtype=np.uint8)

    as_calibrated = read_dice(after, calibration=cal)
    (truth,) = cam.throws  # type: ignore[attr-defined]
    assert as_calibrated.verdict is truth.verdict
    readings = [read_dice(big(after), calibration=cal),
                read_dice(big(after), calibration=cal, changed=changes(big(before), big(after), die))]
    for r in readings:
        assert r.verdict is as_calibrated.verdict, r.reason
        if truth.verdict is not Verdict.UNREADABLE:
            # (An unreadable throw's dice are whatever the reader tried: read whole, the stacked throw's
            # include parts of the board's lettering, cut at other places at another scale.)
            assert sorted(r.values, key=str) == sorted(as_calibrated.values, key=str)
    if truth.verdict is Verdict.OK:
        for r in readings:
            for t in truth.dice:
                assert min(np.hypot(d.center[0] - k * t.center_px[0], d.center[1] - k * t.center_px[1])
                           for d in r.dice) < 0.25 * die


@pytest.mark.parametrize(("size", "seed"), [((832, 624), 15), ((960, 720), 2), ((960, 720), 14), ((1040, 780), 5)])
def test_a_calibrated_camera_with_dice_over_the_working_size_reads_them_shrunk(size: tuple[int, int], seed: int,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The simulated camera's frames larger than 640x480 (dice of 40-50 px), plain throws read where the table changed
    with the table before: read shrunk to the working size (CALIBRATED_SHRINK_ABOVE), right; read at their own size,
    as up to SHRINK_ABOVE they were, each was refused (a side face seen beside a flat die, a slant, pips off centre)."""
    r, truth = read_where_changed(seed, size=size)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]
    read_large_dice_at_their_size(monkeypatch)
    r, _ = read_where_changed(seed, size=size)
    assert r.verdict is Verdict.UNREADABLE


@pytest.mark.parametrize(("size", "seed"), [((960, 720), 3), ((1040, 780), 7), ((1104, 828), 11)])
def test_read_shrunk_a_die_leaning_on_the_hotel_is_still_refused(size: tuple[int, int], seed: int) -> None:
    """M.DICE.2: the same cameras' cocked throws, read shrunk, are refused."""
    r, _ = read_where_changed(seed, "cocked", size=size)
    assert r.verdict is Verdict.UNREADABLE and "cocked" in r.reason, r.reason


def test_dice_outside_the_development_sizes_are_read_at_the_working_size() -> None:
    assert scale_for(None) == 1.0
    assert scale_for(ENLARGE_BELOW) == scale_for(SHRINK_ABOVE) == 1.0  # the development photos' dice, as taken
    # Calibrated with the board's homography, dice of the working size or smaller are read as above; larger ones are
    # read shrunk to it. With a die size alone, as uncalibrated.
    assert scale_for(ENLARGE_BELOW, calibrated=True, camera=True) == 1.0
    assert scale_for(CALIBRATED_SHRINK_ABOVE, calibrated=True, camera=True) == 1.0
    assert scale_for(47.0, calibrated=True, camera=True) == pytest.approx(READ_DIE / 47.0)
    assert scale_for(47.0, calibrated=True) == 1.0
    assert scale_for(2 * SHRINK_ABOVE) == pytest.approx(READ_DIE / (2 * SHRINK_ABOVE))
    assert scale_for(24.0) == pytest.approx(READ_DIE / 24.0) == scale_for(24.0, calibrated=True)
    # A die measured in the frame under half the working size is taken for a mismeasure; a calibrated one
    # is a die, read enlarged as far as MAX_ENLARGE.
    assert scale_for(12.0) == 1.0
    assert scale_for(12.0, calibrated=True) == MAX_ENLARGE


@pytest.mark.parametrize(("drawn", "enlarged"), [(40.0, False), (16.0, True)])
def test_uncalibrated_small_measure_is_checked_against_the_faces_read(monkeypatch: pytest.MonkeyPatch,
                                                                      drawn: float, enlarged: bool) -> None:
    """A blob measure under ENLARGE_BELOW (here forced: 24 px) enlarges an uncalibrated frame only where the
    faces the pips-first pass reads as taken are small too: white dice drawn 40 px wide have faces over
    FACE_BELOW, and the frame is read as taken; dice drawn 16 px wide are read enlarged."""
    monkeypatch.setattr(vision.scale, "frame_die", lambda frame, die: 24.0)
    spec = [DieSpec(5, (250, 220), size=drawn, angle=12), DieSpec(6, (380, 280), size=drawn, angle=40)]
    frame = render(spec, seed=4)
    assert READ_DIE / MAX_ENLARGE < 24.0 < ENLARGE_BELOW and FACE_BELOW < 0.7 * 40.0
    assert scale_for(24.0) > 1.0
    assert (reading_scale(frame, None) > 1.0) is enlarged
    assert reading_scale(frame, 24.0) == scale_for(24.0, calibrated=True)  # calibrated: no check


@pytest.mark.parametrize(("drawn", "kept"), [(40.0, False), (12.0, True)])
def test_uncalibrated_tiny_measure_is_dropped_where_faces_of_the_frames_scale_are_read(
        monkeypatch: pytest.MonkeyPatch, drawn: float, kept: bool) -> None:
    """A blob measure under READ_DIE / MAX_ENLARGE (here forced: 12 px) does not enlarge the frame, and it
    sets the pips' scale only where the pips-first pass, at the frame's own scale, reads no face as large as
    the development photos' smallest: dice drawn 40 px wide are read there (the measure was wrong, and is
    dropped); dice drawn 12 px wide are not (the measure stands)."""
    monkeypatch.setattr(vision.scale, "frame_die", lambda frame, die: 12.0)
    spec = [DieSpec(5, (250, 220), size=drawn, angle=12), DieSpec(6, (380, 280), size=drawn, angle=40)]
    frame = render(spec, seed=4)
    assert READ_DIE / MAX_ENLARGE > 12.0
    assert die_and_scale(frame, None) == ((12.0 if kept else None), 1.0)


def test_a_board_straight_below_the_camera_is_read_at_its_dice_scale_not_its_lettering() -> None:
    """The simulated board seen straight down, read without a calibration: the blob measure takes its
    lettering and colour bars for dice of 13 px; at that pip scale both dice were missed ("no dice found").
    The pips-first pass at the frame's own scale reads faces of a die's size, so the measure is dropped."""
    cam = SimulatedCamera(seed=3, script=["ok"], hands=False, tilt_deg=0.0)
    frame = list(cam)[-1].image
    (truth,) = cam.throws
    measured = vision.scale.frame_die(frame, None)
    assert measured is not None and measured < READ_DIE / MAX_ENLARGE < 0.7 * cam.die_size_px()
    assert die_and_scale(frame, None) == (None, 1.0)
    r = read_dice(frame, expect=2)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]


@pytest.mark.parametrize(("kind", "seed"), [("ok", 5), ("cocked", 6), ("cocked", 7), ("stacked", 34)])
def test_a_calibrated_camera_with_small_dice_reads_them_enlarged(kind: str, seed: int) -> None:
    """The simulated camera's throw taken at 0.62 times the calibration's frame size (397x298, dice of 19
    px, below the development photos' smallest): read as taken, these plain and cocked throws were refused
    ("found 1 dice") and accepted with a leaning die's visible face (a wrong `ok`: 9 of 40 cocked throws,
    bench/vision.py --sim-scale 0.62); read enlarged to the working size, whole and where the table changed,
    each gets its own verdict and values, and the dice lie where the throw put them."""
    before, after, cal, cam = _sim(kind, seed)
    k = 0.62
    die = cam.die_size_px() * k  # type: ignore[attr-defined]
    assert READ_DIE / MAX_ENLARGE < die < ENLARGE_BELOW

    def small(img: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA), dtype=np.uint8)

    (truth,) = cam.throws  # type: ignore[attr-defined]
    readings = [read_dice(small(after), calibration=cal),
                read_dice(small(after), calibration=cal, changed=changes(small(before), small(after), die))]
    for r in readings:
        assert r.verdict is truth.verdict, r.reason
        if truth.verdict is Verdict.OK:
            assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]
            for t in truth.dice:
                assert min(np.hypot(d.center[0] - k * t.center_px[0], d.center[1] - k * t.center_px[1])
                           for d in r.dice) < 0.25 * die


def test_boxes_and_dice_map_between_the_frame_and_its_resized_copy() -> None:
    frame = np.zeros((1001, 1500, 3), np.uint8)
    small, fx, fy = resized(frame, 0.3)
    assert small.shape == (300, 450, 3)
    assert (fx, fy) == (0.3, 300 / 1001)
    # Grown outward to whole pixels, clipped to the shrunk frame.
    assert resized_boxes([(10, 20, 1000, 1001)], fx, fy, (450, 300)) == ((3, 5, 300, 300),)
    r = DiceReading(Verdict.OK, "", (Die(4, (30.0, 60.0), 0.9, True, 12.0, ((24.0, 54.0), (36.0, 66.0))),))
    (d,) = restored(r, fx, fy).dice
    assert d.center == pytest.approx((100.0, 60.0 / fy))
    assert d.corners[1] == pytest.approx((120.0, 66.0 / fy))
    assert d.size == pytest.approx(12.0 / (0.5 * (fx + fy)))
    assert (d.value, d.confidence, d.on_board) == (4, 0.9, True)


@pytest.mark.parametrize("k", [0.62, 1.6, 2.5])
def test_a_frame_resized_only_within_boxes_is_the_whole_frame_resized_there(k: float) -> None:
    """resized_within: each box resized from its own part of the frame, on the whole resize's pixel grid to a
    fraction of a pixel (the frame's edges exactly), black elsewhere."""
    _, after, _, cam = _sim("ok", 3)
    frame = np.asarray(cv2.resize(after, None, fx=k, fy=k, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    scale = READ_DIE / (k * cam.die_size_px())  # type: ignore[attr-defined]
    whole = resized(frame, scale)[0]
    h, w = whole.shape[:2]
    inner, corner = (w // 4, h // 5, w // 2 + 7, h // 2 + 3), (0, 0, w // 6, h // 6)
    room = 6  # (a bicubic kernel's reach past the part cut, resized)
    part = resized_within(frame, scale, [(inner[0] - room, inner[1] - room, inner[2] + room, inner[3] + room),
                                         (corner[0], corner[1], corner[2] + room, corner[3] + room)])
    assert part.shape == whole.shape and part.dtype == np.uint8
    for x0, y0, x1, y1 in (inner, corner):
        diff = np.abs(part[y0:y1, x0:x1].astype(int) - whole[y0:y1, x0:x1].astype(int))
        # Measured: a mean of 0.004-0.04 levels, 99.9% within 1-1.6. Each part cut at the nearest pixel (no
        # search; its grid up to half a frame pixel off) gave 0.1-2.1 and 1-57; searching 16 pixels out, 0.04-0.28
        # and 1-6 (where plain throws read resized were refused more often: docs/vision.md).
        assert diff.mean() < 0.15 and np.percentile(diff, 99.9) <= 3, (k, diff.mean(), diff.max())
    outside = np.ones((h, w), bool)
    outside[inner[1] - room - ALIGN_SLACK:inner[3] + room + ALIGN_SLACK,
            inner[0] - room - ALIGN_SLACK:inner[2] + room + ALIGN_SLACK] = False
    outside[:corner[3] + room + ALIGN_SLACK, :corner[2] + room + ALIGN_SLACK] = False
    assert not part[outside].any()
    assert not resized_within(frame, scale, []).any()


def test_read_resized_where_the_table_changed_resizes_only_round_the_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large frame read where the table changed has the frame and the table before resized only round the
    windows read (the simulated table's throws at 1920x1440: 20.8 -> 15.2 ms on the median, docs/vision.md), and reads
    the throw."""
    before, after, cal, cam = _sim("ok", 2)
    k = 2.5
    die = cam.die_size_px() * k  # type: ignore[attr-defined]

    def big(img: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC), dtype=np.uint8)

    shares: list[float] = []
    parts = vision.scale.resized_within

    def within(frame: np.ndarray, scale: float, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
        out = parts(frame, scale, boxes)
        shares.append(float(np.mean(out.any(axis=2))))  # (the share of the resized frame filled in)
        return out

    def whole(frame: np.ndarray, scale: float) -> tuple[np.ndarray, float, float]:
        raise AssertionError("the whole frame resized for a read where the table changed")

    monkeypatch.setattr("vision.reader.resized_within", within)
    monkeypatch.setattr("vision.reader.resized", whole)
    r = read_dice(big(after), calibration=cal, changed=changes(big(before), big(after), die), before=big(before))
    assert len(shares) == 2 and all(0.05 < share < 0.7 for share in shares), shares  # the frame, the table before
    (truth,) = cam.throws  # type: ignore[attr-defined]
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values) == sorted(truth.values)  # type: ignore[type-var]
    for t in truth.dice:
        assert min(np.hypot(d.center[0] - k * t.center_px[0], d.center[1] - k * t.center_px[1])
                   for d in r.dice) < 0.25 * die


def test_a_wide_view_looks_for_pips_of_its_dice_not_of_its_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same 30 px dice seen by a 640x480 camera and by a wide 1920x1440 one: the pip passes look for pips
    # of the dice's size in both. (The frame's size alone once set it: 6 px and 18 px, a black-hat three
    # times too wide in the wide view, which took twice the time. Now the frame's guess stands in the
    # 640x480 frame, where the measured die agrees with it, and the measured die sets it in the wide one.)
    import vision.reader as reader

    seen: list[object] = []
    real = reader.light_pass

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(kwargs.get("pip_d"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reader, "light_pass", spy)
    pips = []
    for w, h in ((640, 480), (1920, 1440)):
        seen.clear()
        spec = [DieSpec(4, (w / 2 - 80, h / 2), size=30.0, angle=12), DieSpec(6, (w / 2 + 90, h / 2 + 40), size=30.0)]
        r = read_dice(render(spec, size=(w, h), seed=3))
        assert r.verdict is Verdict.OK and sorted(d.value for d in r.dice) == [4, 6], r.reason
        assert seen and len(set(seen)) == 1 and isinstance(seen[0], float), seen
        pips.append(seen[0])
    # A pip is 0.65 of the pitch and a die 3.85 pitches, of the die as measured (its blob, with its shadow
    # and bevel, is a little larger than the face drawn), or the frame's 6 px: 5-7 px in both frames.
    assert all(4.5 < p < 7.5 for p in pips) and abs(pips[0] - pips[1]) < 0.1 * pips[0], pips


@pytest.mark.parametrize("seed", [44, 135, 85, 95])
def test_plain_throws_beside_a_real_boards_lines_are_read(seed: int) -> None:
    """Plain throws at the Pi unit's view of a real board that were refused (docs/vision.md, "A real board's
    proportions"): a 3 (seed 44) and a 5 (135) beside the board's lines, whose faces' points between the pip cells
    fell on a pip's dark edge with the pips placed to the pixel (darkpips._refined, for the rim test); a 1 turned
    45 degrees whose turn the rim test took as 0 and 15 degrees, where a flat die's side faces show round it, so
    that its side faces' pips crowded its face (85) or lay past it, "leaning" (95) (darkpips._ones, square_turn)."""
    _plain_throw_is_read_at_the_pi_units_view(seed, "white")


@pytest.mark.parametrize("seed", [59, 63, 127])
def test_red_dice_on_a_real_boards_print_of_their_colour_are_read(seed: int) -> None:
    """Flat red dice at the Pi unit's view lying on the end of a brown property bar (59, 127) or against red print
    (63), refused as leaning until the open-side check was given the table before (vision/lean.py
    refuse_open_sides): the die's colour went on past an edge, ending short of where a side face must, and
    holes in it (the bar's pixels at the edge of the die's hue, the print's gaps) passed for a side face's pip.
    All three were there before the throw."""
    _plain_throw_is_read_at_the_pi_units_view(seed, "red")


@pytest.mark.parametrize("seed", [43, 183, 236])
def test_black_print_in_a_flat_dies_shadow_is_no_side_faces_pip(seed: int) -> None:
    """Flat white dice at the Pi unit's view beside a property bar's black border: its end, in the die's contact
    shadow, darkened from 20 to 7-8 grey levels (under sidepips.DARKER of before) and answered the black-hat as a
    pip; refused as leaning until a pip new since before had to be one where the table before was not as dark as
    a pip (vision/sidepips.py _new_pip)."""
    _plain_throw_is_read_at_the_pi_units_view(seed, "white")


@pytest.mark.parametrize(("look", "seed"), [("red", 141), ("black", 141), ("red", 193), ("black", 193),
                                            ("white", 182)])
def test_the_boards_print_unchanged_since_before_is_no_die_of_the_throw(look: str, seed: int) -> None:
    """Plain throws at the Pi unit's view beside the board's lettering: a red or black die's light 1 read in the
    counter of a red "A" (141; 193, partly in the die's shadow), a white throw's red "T" read as a leaning die (182),
    each within the window where the table changed, so "found 3 dice". Their faces are as they were before the
    throw, or shaded: a die read is this throw's only where a twentieth of its top face's middle is new
    (vision/throwchecks.py drop_unchanged, NEW_FACE)."""
    _plain_throw_is_read_at_the_pi_units_view(seed, look)


@pytest.mark.parametrize("seed", [74, 81])
def test_faces_are_proposed_from_spots_placed_to_a_fraction_of_a_pixel(seed: int) -> None:
    """Japanese dice at the Pi unit's view: a 5 (74) and a 6 (81) away from the frame's centre, whose corner pip,
    found to the pixel, lay 0.46-0.48 pitch off the grid its diagonal pair proposes (darkpips.PROPOSAL_RESID
    0.42): never proposed, their bodies were refused as blurred. Calibrated, spots are placed to a fraction of a
    pixel before faces are proposed (darkpips._proposals, _refined)."""
    _plain_throw_is_read_at_the_pi_units_view(seed, "japanese")


def _plain_throw_is_read_at_the_pi_units_view(seed: int, look: str) -> None:
    """A plain throw of `seed` with dice of `look` at the Pi unit's view of a real board, read where the table
    changed with the table before, as the roll watcher reads it: `ok`, its values right."""
    r, truth = read_at_the_pi_units_view(seed, "ok", look)
    assert r.verdict is Verdict.OK, r.reason
    assert sorted(r.values, key=str) == sorted(truth.values, key=str)


@pytest.mark.slow
def test_the_pi_units_view_of_a_real_board_reads_throws_where_the_table_changed() -> None:
    """The Raspberry Pi unit's 1280x960 frames over a board of a real one's proportions (a die a 32nd of its side,
    bench/vision.py --sim-size 1280x960 --sim-die-mm 7.6): dice of 26 px, read enlarged to the working size, where
    the table changed. Measured 2026-11-29: seeds 1-5 of every kind all right; plain throws of seeds 41-340 294 of
    300 (the rest refused; 264 before the rim test took pips placed to a fraction of a pixel and a 1's turn was
    taken from its edges, 281 before faces were proposed from such spots too, 289 before black print in a die's
    shadow was no longer a side face's pip, 292 before the board's print as it was before was no die), no wrong
    `ok` of any kind (docs/vision.md, "A real board's proportions")."""
    right = wrong_ok = 0
    for kind in ("ok", "off_board", "cocked", "stacked"):
        for seed in range(1, 6):
            cam = SimulatedCamera(seed=seed, script=[kind], hands=False, size=(1280, 960), die_mm=7.6)
            frames = list(cam)
            before, after = frames[0].image, frames[-1].image
            assert ENLARGE_BELOW / 1.2 < cam.die_size_px() < ENLARGE_BELOW
            r = read_dice(after, calibration=cam.calibration(), changed=changes(before, after, cam.die_size_px()),
                          before=before)
            (truth,) = cam.throws
            values_right = sorted(r.values, key=str) == sorted(truth.values, key=str)
            right += (r.verdict is Verdict.OK and values_right) if truth.verdict is Verdict.OK \
                else r.verdict is truth.verdict
            wrong_ok += r.verdict is Verdict.OK and not (truth.verdict is Verdict.OK and values_right)
    assert wrong_ok == 0
    assert right >= 19, right

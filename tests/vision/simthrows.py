"""Helpers for tests that read the simulated camera's throws or count the reader's passes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

import vision.scale
from calibration.model import Calibration
from hardware.simcam import DICE_LOOKS, SimulatedCamera
from hardware.simrender import face_up
from vision import Verdict, read_dice
from vision.change import changes
from vision.reader import MIN_CONFIDENCE
from vision.reading import DiceReading


def sim_throw(kind: str, seed: int, big_one: bool = False) -> tuple[Any, Calibration, Any]:
    """The frame at rest of one simulated throw of `kind`, the camera's calibration, and the truth. `big_one`:
    the dice's 1 one large red pip (Japanese dice, hardware/simrender.py BIG_ONE)."""
    frame, _, cal, truth = sim_throw_before(kind, seed, big_one)
    return frame, cal, truth


def sim_throw_before(kind: str, seed: int, big_one: bool = False, look: str = "white", **camera: Any
                     ) -> tuple[Any, Any, Calibration, Any]:
    """As sim_throw, with the table before the throw (its first frame) second; `look`: the dice's, DICE_LOOKS;
    `camera`: more of the SimulatedCamera's make (size, die_mm...)."""
    body, pip = DICE_LOOKS[look]
    cam = SimulatedCamera(seed=seed, script=[kind], hands=False, big_one=big_one, die_bgr=body, pip_bgr=pip, **camera)
    frames = list(cam)
    (truth,) = cam.throws
    return frames[-1].image, frames[0].image, cam.calibration(), truth


def read_at_the_pi_units_view(seed: int, kind: str = "ok", look: str = "white") -> tuple[DiceReading, Any]:
    """One simulated throw of `kind` at the Raspberry Pi unit's view of a real board (1280x960, dice of 26 px read
    enlarged), read where the table changed with the table before, as the roll watcher reads it; and its truth.
    `look`: DICE_LOOKS, or "japanese" (white, the 1 one large red pip)."""
    body, pip = DICE_LOOKS["white" if look == "japanese" else look]
    return read_where_changed(seed, kind, size=(1280, 960), die_mm=7.6, die_bgr=body, pip_bgr=pip,
                              big_one=look == "japanese")


def read_large_dice_at_their_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calibrated dice over the working size read at their own size, as up to vision/scale.py SHRINK_ABOVE they were
    before CALIBRATED_SHRINK_ABOVE: for tests of what the reader does with dice that large (uncalibrated, it still
    reads them so)."""
    monkeypatch.setattr(vision.scale, "CALIBRATED_SHRINK_ABOVE", vision.scale.SHRINK_ABOVE)


def read_where_changed(seed: int, kind: str = "ok", **camera: Any) -> tuple[DiceReading, Any]:
    """One simulated throw of `kind` by a SimulatedCamera made with `camera` (size, die_mm, looks...), read where the
    table changed with the table before, as the roll watcher reads it; and its truth."""
    cam = SimulatedCamera(seed=seed, script=[kind], hands=False, **camera)
    frames = list(cam)
    before, after = frames[0].image, frames[-1].image
    (truth,) = cam.throws
    return read_dice(after, calibration=cam.calibration(), changed=changes(before, after, cam.die_size_px()),
                     before=before), truth


def assert_read_right(seed: int) -> None:
    """A plain simulated throw, calibrated, is read `ok` with the values thrown."""
    frame, cal, truth = sim_throw("ok", seed)
    r = read_dice(frame, calibration=cal, expect=2)
    assert r.verdict is Verdict.OK, (seed, r.reason)
    assert sorted(r.values) == sorted(truth.values), seed  # type: ignore[type-var]


def count_calls(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Count the calls of `module.name` from now on (one entry per call)."""
    calls: list[int] = []
    plain = getattr(module, name)

    def counting(*a: object, **k: object) -> object:
        calls.append(1)
        return plain(*a, **k)

    monkeypatch.setattr(module, name, counting)
    return calls


def sim_table(tilt: float, seed: int, flat: int, leaning: int = 0, lean_deg: float = 25.0,
              look: str = "white", big_one: bool = False) -> tuple[Any, list[tuple[int, tuple[float, float], bool]],
                                                                   float, Any]:
    """A table set by hand, seen by the simulated camera `tilt` degrees off vertical: `flat` dice lying flat
    and `leaning` dice leaning alike (`lean_deg` about one horizontal axis, as against a tray's side), at
    random places on the board's middle, with random values and turns. Returns the frame, each die's (value
    up before leaning, its top face's centre in the frame, leaning), the camera's die size in pixels and the
    table without the dice (the table before the throw; its sensor noise drawn anew). `big_one`: the dice's 1
    one large red pip (Japanese dice, hardware/simrender.py BIG_ONE)."""
    body, pip = DICE_LOOKS[look]
    cam = SimulatedCamera(seed=seed, script=[], hands=False, tilt_deg=tilt, die_bgr=body, pip_bgr=pip,
                          big_one=big_one)
    rng = np.random.default_rng(1000 + seed)
    half, s = cam.board_mm / 2, cam.die_mm / 2
    spots: list[NDArray[np.float64]] = []
    while len(spots) < flat + leaning:
        p = rng.uniform(-0.6 * half, 0.6 * half, 2)
        if all(np.hypot(*(p - q)) > 3.2 * s for q in spots):
            spots.append(p)
    lean_axis = float(rng.uniform(0, math.pi))
    poses, truth = [], []
    for i, p in enumerate(spots):
        value = int(rng.integers(1, 7))
        rot = _turn((0.0, 0.0, 1.0), float(rng.uniform(0, 2 * math.pi))) @ face_up(value)
        z, lean = s, i >= flat
        if lean:
            th = math.radians(lean_deg)
            rot = _turn((math.cos(lean_axis), math.sin(lean_axis), 0.0), th) @ rot
            z = s * (math.cos(th) + math.sin(th))  # resting on its lowest edge
        poses.append(cam.posed_die((float(p[0]), float(p[1]), z), rot))
        top = cam.project(np.array([[p[0], p[1], z + s]]))[0]
        truth.append((value, (float(top[0]), float(top[1])), lean))
    frame = cam.still(poses)
    return frame, truth, cam.die_size_px(), cam.still([])


def sim_touching(tilt: float, seed: int, look: str = "white") -> tuple[Any, tuple[int, int], Any]:
    """Two dice lying flat and touching (or 0-15% of a side apart), seen by the simulated camera `tilt` degrees
    off vertical near the board's middle: the first turned square to the line between them half the time,
    else at random, and the second within 17 degrees of the first. Returns the frame, the two values up and the
    table without the dice.

    The second die lies as near the first as their footprints allow (_touching_distance), then the gap further:
    two squares turned across the line between them touch corner first, further apart than a side (until
    2026-11-30 the centres were a side apart whatever the turns, and 39 of seeds 0-99 drew the dice into each
    other, by up to 8% of a face)."""
    body, pip = DICE_LOOKS[look]
    cam = SimulatedCamera(seed=0, script=[], hands=False, tilt_deg=tilt, die_bgr=body, pip_bgr=pip)
    rng = np.random.default_rng(5000 + seed)
    s = cam.die_mm / 2
    p = rng.uniform(-0.4, 0.4, 2) * cam.board_mm / 2
    a = float(rng.uniform(0, 2 * math.pi))
    gap = float(rng.uniform(0.0, 0.15)) * 2 * s
    values = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    spin = a if rng.random() < 0.5 else float(rng.uniform(0, 2 * math.pi))
    turns = (spin, spin + float(rng.uniform(-0.3, 0.3)))
    rots = [_turn((0.0, 0.0, 1.0), t) @ face_up(v) for v, t in zip(values, turns, strict=True)]
    u = np.array([math.cos(a), math.sin(a)])
    q = p + u * (_touching_distance(*(_footprint(r, s) for r in rots), u) + gap)
    poses = [cam.posed_die((float(c[0]), float(c[1]), s), r) for c, r in zip((p, q), rots, strict=True)]
    frame = cam.still(poses)
    return frame, values, cam.still([])


def sim_leaning_touching(tilt: float, seed: int, lean_deg: float, against: str = "open",
                         look: str = "white") -> tuple[Any, tuple[int, int], Any, Calibration]:
    """A die leaning `lean_deg` about a random horizontal axis (resting on its lowest edge, as sim_table's) and a
    flat die touching its footprint (or up to 10% of a side further), seen by the simulated camera `tilt` degrees
    off vertical near the board's middle: the flat die on the side of the leaning die's open side face
    (`against="open"`), where that face's pips lie between the two top faces, or on the side its top face tips
    towards (`"on"`). Returns the frame, the two values up (the leaning die's first), the table without the dice
    and the camera's calibration. A throw to refuse: the pair touching was the blind side of a rule that takes
    spots at a read face's edge for its own (vision/lean.py OTHER_EDGE)."""
    body, pip = DICE_LOOKS[look]
    cam = SimulatedCamera(seed=seed, script=[], hands=False, tilt_deg=tilt, die_bgr=body, pip_bgr=pip)
    rng = np.random.default_rng(9000 + seed)
    s = cam.die_mm / 2
    p = rng.uniform(-0.4, 0.4, 2) * cam.board_mm / 2
    axis = float(rng.uniform(0, math.pi))
    values = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    turns = (float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(0, 2 * math.pi)))
    gap = float(rng.uniform(0.0, 0.1)) * 2 * s
    th = math.radians(lean_deg)
    leaning = _turn((math.cos(axis), math.sin(axis), 0.0), th) @ _turn((0.0, 0.0, 1.0), turns[0]) @ face_up(values[0])
    flat = _turn((0.0, 0.0, 1.0), turns[1]) @ face_up(values[1])
    tips = np.array([math.sin(axis), -math.cos(axis)])  # the top face tips this way; the open side faces away
    u = -tips if against == "open" else tips
    q = p + u * (_touching_distance(_footprint(leaning, s), _footprint(flat, s), u) + gap)
    poses = [cam.posed_die((float(p[0]), float(p[1]), s * (math.cos(th) + math.sin(th))), leaning),
             cam.posed_die((float(q[0]), float(q[1]), s), flat)]
    return cam.still(poses), values, cam.still([]), cam.calibration()


def _footprint(rot: NDArray[np.float64], s: float) -> NDArray[np.float64]:
    """The outline (mm, x and y, its corners in order) of a die of half side `s` turned by `rot`, seen from above,
    about its centre."""
    cube = np.array([[x, y, z] for x in (-s, s) for y in (-s, s) for z in (-s, s)], np.float64)
    return np.asarray(cv2.convexHull((cube @ rot.T)[:, :2].astype(np.float32))[:, 0], np.float64)


def _touching_distance(first: NDArray[np.float64], second: NDArray[np.float64], u: NDArray[np.float64]) -> float:
    """How far along the unit vector `u` the centre of the footprint `second` must lie from that of `first` (both
    as corners about their centre, convex) for the two to touch without overlapping: the least distance that
    some edge's normal separates them at (the separating axis theorem)."""
    best = math.inf
    for pts in (first, second):
        for i in range(len(pts)):
            edge = pts[(i + 1) % len(pts)] - pts[i]
            for n in (np.array([edge[1], -edge[0]]), np.array([-edge[1], edge[0]])):
                length = float(np.hypot(*n))
                if length < 1e-9 or float(u @ n) / length <= 1e-6:
                    continue
                n = n / length
                best = min(best, (float((first @ n).max()) - float((second @ n).min())) / float(u @ n))
    return best


def _turn(axis: tuple[float, float, float], angle: float) -> NDArray[np.float64]:
    """The rotation by `angle` radians about `axis` (a unit vector)."""
    m, _ = cv2.Rodrigues(np.array(axis, np.float64) * angle)
    return np.asarray(m, np.float64)


def trusted_at(reading: DiceReading, truth: Sequence[tuple[int, tuple[float, float], bool]],
               size: float) -> list[int | None]:
    """For each die of `truth` (as sim_table gives it), the index of the die `reading` read with a trusted value
    (MIN_CONFIDENCE) within 0.7 of a die's `size` of its top face's centre, each read die taken once; None where
    there is none."""
    used: set[int] = set()
    out: list[int | None] = []
    for _, centre, _ in truth:
        hit = next((i for i, d in enumerate(reading.dice) if i not in used and d.value is not None
                    and d.confidence >= MIN_CONFIDENCE and math.dist(d.center, centre) < 0.7 * size), None)
        if hit is not None:
            used.add(hit)
        out.append(hit)
    return out

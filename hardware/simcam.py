"""A simulated camera: rendered throws of two dice on a board, with the ground truth of every throw.

It drives the demo table (`tableside run` with no options) and the pipeline's tests. Everything is
deterministic from the seed: one `numpy.random.Generator` per camera, never a global generator.

The scene is a small 3-D model seen by a pinhole camera tilted a little off vertical, so there is real
perspective: white dice with rounded corners, black pips in the standard d6 layout (opposite faces sum to
seven), Lambert shading of the faces, soft shadows, sensor noise. Motion is scripted rather than simulated
(a decelerating path with decaying bounces and tumbling that ends exactly at the chosen rest pose), which is
enough to give the watcher real motion, landing and rest, and keeps the truth exact.

Scale: the demo board is drawn smaller relative to the dice than a real Monopoly board (about 13 die widths
instead of 32), so that at 640x480 a die's top face is about 30 pixels wide, like a camera looking at the
part of the board where dice land.

Episodes, one after another (the default programme is endless and random; `script=` fixes the throws):

- a hand brings the dice in and holds them above the board, trembling (no roll may come of this);
- the throw: kinds "ok", "off_board" (one die comes to rest on the table: reroll), "cocked" (one die leans
  against a hotel: unreadable), "stacked" (one die on the other: unreadable), "spinner" (a die keeps
  spinning longer than the watcher's timeout: unreadable);
- the dice lie there for a while; sometimes a hand re-touches them without throwing;
- a hand picks the dice up (no roll may come of this either).

The drawing, and the dice's geometry, are in hardware/simrender.py (`SceneRenderer`, this camera's base class).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import numpy.typing as npt

from calibration.model import Calibration
from hardware.simrender import (
    FACE_NORMALS,
    DiePose,
    Hand,
    Scene,
    SceneRenderer,
    axis_rotation,
    face_up,
    top_value,
)
from hardware.sources import SourceBase
from vision.reading import DiceReading, Die, Verdict
from vision.watcher import Frame

U8 = npt.NDArray[np.uint8]
F64 = npt.NDArray[np.float64]

THROW_KINDS = ("ok", "off_board", "cocked", "stacked", "spinner")
# Dice looks the simulated camera can throw (SimulatedCamera.die_bgr, .pip_bgr): body and pips, BGR.
DICE_LOOKS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "white": ((236, 238, 240), (30, 30, 36)),
    "red": ((40, 40, 190), (240, 240, 240)),
    "black": ((38, 36, 34), (240, 240, 240)),
}

@dataclass(frozen=True)
class DieTruth:
    value: int | None  # None: cocked, no face is up
    center_px: tuple[float, float]
    on_board: bool
    cocked: bool = False
    stacked: bool = False


@dataclass(frozen=True)
class ThrowTruth:
    """What a throw really was: the watcher's event for it should agree."""

    index: int
    kind: str
    values: tuple[int | None, ...]
    verdict: Verdict
    reason: str  # keyword the reader's reason should be about: "", "off the board", "cocked", ...
    t_start: float  # first frame where the dice leave the hand
    t_rest: float  # time the last die stops moving (for "spinner": when it finally stops)
    dice: tuple[DieTruth, ...]


@dataclass(frozen=True)
class ActionTruth:
    """A hand doing something that is not a throw; no roll may come of it."""

    kind: str  # "hover" | "retouch" | "pickup"
    t_start: float
    t_end: float


@dataclass
class _Episode:
    """A stretch of time with a function that gives the scene at a local time."""

    duration: float
    scene: Callable[[float], Scene]
    after: list[DiePose]
    throw: ThrowTruth | None = None
    action: ActionTruth | None = None


@dataclass
class SimulatedCamera(SourceBase, SceneRenderer):
    """A deterministic frame source. Iterate it for frames; `.throws` logs the truth of each throw so far.

    `script` lists throw kinds to play (then the stream ends); None plays a random programme forever.
    `realtime=True` paces frames to the wall clock (the demo); otherwise time is virtual (tests, bench).
    `hands=False` leaves out the hover / re-touch / pickup episodes (dice just vanish between throws).
    """

    seed: int = 0
    fps: float = 30.0
    size: tuple[int, int] = (640, 480)
    script: Sequence[str] | None = None
    realtime: bool = False
    hands: bool = True
    tilt_deg: float = 18.0
    noise: float = 2.0
    # The dice's body and pip colours (BGR): white with black pips by default, as Monopoly's; DICE_LOOKS names
    # others (coloured and dark dice with light pips).
    die_bgr: tuple[int, int, int] = (236, 238, 240)
    pip_bgr: tuple[int, int, int] = (30, 30, 36)
    # Dice whose 1 is one large red pip (BIG_ONE), as Japanese dice are.
    big_one: bool = False
    name: str = "simulated"
    throws: list[ThrowTruth] = field(default_factory=list, init=False)
    actions: list[ActionTruth] = field(default_factory=list, init=False)

    # world scale, mm
    board_mm: float = 240.0
    die_mm: float = 18.0
    camera_mm: float = 600.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.tilt_deg < 90.0:
            raise ValueError(f"tilt_deg {self.tilt_deg:g} out of range: the camera looks down at the board from "
                             "0 (overhead) to under 90 degrees off vertical")
        for kind in self.script or ():
            if kind not in THROW_KINDS:
                raise ValueError(f"unknown throw kind {kind!r} (known: {', '.join(THROW_KINDS)})")
        self.rng = np.random.default_rng(self.seed)
        w, h = self.size
        tau = math.radians(self.tilt_deg)
        self._cam_pos = np.array([0.0, -self.camera_mm * math.sin(tau), self.camera_mm * math.cos(tau)])
        fwd = -self._cam_pos / np.linalg.norm(self._cam_pos)
        right = np.cross(fwd, [0.0, 0.0, 1.0])
        # Straight overhead (no tilt) the cross product vanishes: the board's x axis is the limit of every
        # small tilt's, so the frame keeps the same orientation as the tilt goes to nought.
        norm = float(np.linalg.norm(right))
        right = right / norm if norm > 1e-9 else np.array([1.0, 0.0, 0.0])
        down = np.cross(fwd, right)
        self._R = np.stack([right, down, fwd])
        self._f = 0.86 * h * self.camera_mm / self.board_mm  # the board fills most of the frame's height
        self._c = np.array([w / 2.0, h / 2.0])
        self._pieces = self._place_pieces()
        self._background = self._render_background()
        self._noise_bank = self._make_noise()
        self._frames = self._generate()
        self._index = 0
        self._wall0: float | None = None
        self.current_scene: Scene = Scene([])
        self._closed = False

    # -- FrameSource ----------------------------------------------------------------------------------

    def open(self) -> None:
        self._closed = False

    def close(self) -> None:
        self._closed = True

    def read(self) -> Frame | None:
        """The next frame, or None when a scripted programme has ended."""
        if self._closed:
            return None
        try:
            t, scene = next(self._frames)
        except StopIteration:
            return None
        self.current_scene = scene
        image = self.render(scene)
        frame = Frame(image=image, t=t, index=self._index)
        self._index += 1
        if self.realtime:
            now = time.monotonic()
            if self._wall0 is None:
                self._wall0 = now - t
            delay = self._wall0 + t - now
            if delay > 0:
                time.sleep(delay)
        return frame

    # -- geometry -------------------------------------------------------------------------------------

    def project(self, pts: F64) -> F64:
        """World points (N, 3) mm -> image points (N, 2) px."""
        cam = (np.atleast_2d(pts) - self._cam_pos) @ self._R.T
        return np.asarray(self._c + self._f * cam[:, :2] / cam[:, 2:3], dtype=np.float64)

    def board_corners_px(self) -> F64:
        b = self.board_mm / 2
        return self.project(np.array([[-b, b, 0], [b, b, 0], [b, -b, 0], [-b, -b, 0]], dtype=np.float64))

    def on_board(self, x: float, y: float) -> bool:
        b = self.board_mm / 2
        return -b <= x <= b and -b <= y <= b

    def die_size_px(self) -> float:
        """Side of a die's top face at the board centre, in pixels."""
        s = self.die_mm / 2
        pts = self.project(np.array([[-s, -s, 2 * s], [s, -s, 2 * s], [s, s, 2 * s], [-s, s, 2 * s]]))
        return float(np.mean(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)))

    def calibration(self) -> Calibration:
        """The calibration of the rendered board, from the model (exact, no markers needed)."""
        corners = self.board_corners_px()
        b = self.board_mm
        dst = np.array([[0, 0], [b, 0], [b, b], [0, b]], dtype=np.float32)
        hom = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
        return Calibration(
            image_size=self.size,
            board_polygon=tuple((float(x), float(y)) for x, y in corners),
            homography=tuple((float(r[0]), float(r[1]), float(r[2])) for r in hom),
            die_size_px=round(self.die_size_px(), 2),
            die_color_bgr=self.die_bgr,
            pip_color_bgr=self.pip_bgr,
            source="simulated",
            # The lens is known here (a real camera's calibration records it with `tableside calibrate --hfov`,
            # else the reader measures it from the board's perspective, faint near overhead: vision/camera.py).
            extra={"board_mm": b, "die_mm": self.die_mm, "seed": self.seed, "focal_px": round(float(self._f), 3)},
        )

    # -- truth ----------------------------------------------------------------------------------------

    def truth_reading(self, scene: Scene | None = None) -> DiceReading:
        """What a perfect reader would say about a scene (default: the last frame returned).

        Dice in a hand or in the air count as dice, so a watcher that reads at the wrong moment is caught.
        """
        scene = scene if scene is not None else self.current_scene
        truths = self._die_truths(scene.dice)
        dice = tuple(
            Die(
                value=d.value,
                center=d.center_px,
                confidence=1.0,
                on_board=d.on_board,
                size=self.die_size_px(),
            )
            for d in truths
        )
        if not truths:
            return DiceReading(Verdict.UNREADABLE, "no dice found", ())
        verdict, reason = self._verdict(truths)
        return DiceReading(verdict, reason, dice)

    def _verdict(self, truths: Sequence[DieTruth]) -> tuple[Verdict, str]:
        if any(d.stacked for d in truths):
            return Verdict.UNREADABLE, "stacked"
        if any(d.cocked for d in truths):
            return Verdict.UNREADABLE, "cocked"
        if len(truths) != 2:
            return Verdict.UNREADABLE, f"{len(truths)} dice"
        if not all(d.on_board for d in truths):
            return Verdict.REROLL, "off the board"
        return Verdict.OK, ""

    def _die_truths(self, dice: Sequence[DiePose]) -> list[DieTruth]:
        out = []
        for i, d in enumerate(dice):
            if not d.pips:
                continue
            value = top_value(d.rot)
            cocked = abs(float((d.rot @ np.array(FACE_NORMALS[value]))[2])) < 0.985
            stacked = d.center[2] > 1.5 * d.half[2] or any(
                j != i
                and abs(o.center[0] - d.center[0]) < d.half[0] * 1.5
                and abs(o.center[1] - d.center[1]) < d.half[1] * 1.5
                for j, o in enumerate(dice)
                if o.pips
            )
            # The centre of what the camera sees on top: half a die above the centre, straight up.
            top = np.array(d.center) + np.array([0.0, 0.0, d.half[2]])
            px = self.project(top[None, :])[0]
            out.append(
                DieTruth(
                    value=None if cocked else value,
                    center_px=(float(px[0]), float(px[1])),
                    on_board=self.on_board(d.center[0], d.center[1]),
                    cocked=cocked,
                    stacked=stacked,
                )
            )
        return out

    # -- programme ------------------------------------------------------------------------------------

    def _generate(self) -> Iterator[tuple[float, Scene]]:
        t0 = 0.0
        dt = 1.0 / self.fps
        frame_i = 0
        lying: list[DiePose] = []
        n = 0
        kinds = iter(self.script) if self.script is not None else None
        yield from self._idle_frames(0.6, lying, t0, frame_i)
        frame_i += round(0.6 * self.fps)
        while True:
            if kinds is not None:
                kind = next(kinds, None)
                if kind is None:
                    # A little quiet tail so the last throw's rest is seen in full.
                    yield from self._idle_frames(1.0, lying, frame_i * dt, frame_i)
                    return
            else:
                kind = str(self.rng.choice(THROW_KINDS, p=[0.55, 0.15, 0.12, 0.12, 0.06]))
            episodes: list[_Episode] = []
            if lying:
                episodes.append(
                    self._pickup(lying) if self.hands else _Episode(0.3, lambda _t: Scene([]), [])
                )
                lying = []
                episodes.append(self._idle(float(self.rng.uniform(0.5, 1.0)), []))
            if self.hands:
                episodes.append(self._hover())
            n += 1
            throw = self._throw(n, kind)
            episodes.append(throw)
            lying = throw.after
            episodes.append(self._idle(float(self.rng.uniform(1.2, 2.0)), lying))
            if self.hands and self.rng.random() < 0.5:
                touch = self._retouch(lying)
                episodes.append(touch)
                lying = touch.after
                episodes.append(self._idle(1.0, lying))
            for ep in episodes:
                start = frame_i * dt
                count = max(1, round(ep.duration * self.fps))
                if ep.throw is not None:
                    # Truth times on the frame clock: the first frame showing the release / the rest pose.
                    def on_clock(local: float, start: float = start) -> float:
                        return start + math.ceil(local * self.fps - 1e-9) / self.fps

                    self.throws.append(
                        replace(
                            ep.throw, t_start=on_clock(ep.throw.t_start), t_rest=on_clock(ep.throw.t_rest)
                        )
                    )
                if ep.action is not None:
                    self.actions.append(replace(ep.action, t_start=start, t_end=start + ep.duration))
                for k in range(count):
                    yield frame_i * dt, ep.scene(min(k * dt, ep.duration))
                    frame_i += 1

    def _idle_frames(
        self, duration: float, lying: list[DiePose], t0: float, frame_i: int
    ) -> Iterator[tuple[float, Scene]]:
        for k in range(round(duration * self.fps)):
            yield (frame_i + k) / self.fps, Scene(list(lying))

    def _idle(self, duration: float, lying: list[DiePose]) -> _Episode:
        return _Episode(duration, lambda _t: Scene(list(lying)), list(lying))

    def _die(self, center: Sequence[float], rot: F64) -> DiePose:
        s = self.die_mm / 2
        light = sum(self.pip_bgr) > sum(self.die_bgr)
        return DiePose((float(center[0]), float(center[1]), float(center[2])), rot, (s, s, s), self.die_bgr,
                       True, self.pip_bgr if light else None, self.big_one)

    def _edge_point(self) -> tuple[float, float, float]:
        """A point just outside the board where a hand enters from: left, right or the player's side."""
        b = self.board_mm / 2
        side = int(self.rng.integers(3))
        along = float(self.rng.uniform(-0.6, 0.6)) * b
        if side == 0:
            return -1.25 * b, along, 0.0
        if side == 1:
            return 1.25 * b, along, 0.0
        return along, -1.2 * b, 0.0

    def _hand_at(self, world_xy: Sequence[float], height: float, holding: int) -> Hand:
        p = self.project(np.array([[world_xy[0], world_xy[1], height]]))[0]
        w, h = self.size
        # The arm comes from the nearest frame edge.
        cx, cy = float(p[0]), float(p[1])
        dists = {math.pi: cx, 0.0: w - cx, math.pi / 2: h - cy, -math.pi / 2: cy}
        angle = min(dists, key=lambda a: dists[a])
        return Hand(cx, cy, angle, holding)

    def _hover(self) -> _Episode:
        duration = float(self.rng.uniform(0.8, 1.6))
        ex, ey, _ = self._edge_point()
        target = (ex * 0.75, ey * 0.75)
        phase = self.rng.uniform(0, 2 * math.pi, size=4)

        def scene(t: float) -> Scene:
            u = min(1.0, t / 0.4)
            x = ex + (target[0] - ex) * u
            y = ey + (target[1] - ey) * u
            # A held hand trembles by a millimetre or two.
            x += 1.5 * math.sin(2 * math.pi * 3.1 * t + phase[0]) + 0.8 * math.sin(
                2 * math.pi * 7.3 * t + phase[1]
            )
            y += 1.5 * math.sin(2 * math.pi * 2.7 * t + phase[2]) + 0.8 * math.sin(
                2 * math.pi * 6.1 * t + phase[3]
            )
            return Scene([], self._hand_at((x, y), 90.0, holding=2))

        return _Episode(duration, scene, [], action=ActionTruth("hover", 0.0, duration))

    def _final_positions(self, kind: str) -> list[tuple[float, float]]:
        b = self.board_mm / 2
        d = self.die_mm
        inner = b - 2.0 * d
        while True:
            pts = [
                (float(self.rng.uniform(-inner, inner)), float(self.rng.uniform(-inner, inner * 0.8)))
                for _ in range(2)
            ]
            if math.dist(pts[0], pts[1]) > 3.0 * d:
                break
        if kind == "off_board":
            side = -1 if self.rng.random() < 0.5 else 1
            pts[1] = (
                side * (b + float(self.rng.uniform(1.2, 2.2)) * d),
                float(self.rng.uniform(-inner, inner) * 0.7),
            )
        return pts

    def _throw(self, index: int, kind: str) -> _Episode:
        d = self.die_mm
        s = d / 2
        finals = self._final_positions(kind)
        values = [int(v) for v in self.rng.integers(1, 7, size=2)]
        yaws = [float(v) for v in self.rng.uniform(0, 2 * math.pi, size=2)]
        rots = [axis_rotation((0, 0, 1), yaws[i]) @ face_up(values[i]) for i in range(2)]
        zs = [s, s]
        truth_values: list[int | None] = list(values)
        if kind == "cocked":
            hotel = self._pieces[0]
            hx, hy, _ = hotel.center
            # Lean the die against the hotel's long side: tilted towards it, resting on one edge.
            toward = np.array([1.0, 0.0])
            finals[1] = (hx - hotel.half[0] - s * 0.95, hy)
            tilt = math.radians(float(self.rng.uniform(22, 34)))
            axis = (-toward[1], toward[0], 0.0)
            rots[1] = axis_rotation(axis, tilt) @ face_up(values[1])
            corners = (
                np.array([[sx, sy, sz] for sx in (-s, s) for sy in (-s, s) for sz in (-s, s)]) @ rots[1].T
            )
            zs[1] = float(-corners[:, 2].min())
            truth_values[1] = None
        elif kind == "stacked":
            finals[1] = (
                finals[0][0] + float(self.rng.uniform(-2, 2)),
                finals[0][1] + float(self.rng.uniform(-2, 2)),
            )
            zs[1] = 3 * s
        start = self._edge_point()
        durations = [float(self.rng.uniform(1.0, 1.5)) for _ in range(2)]
        if kind == "stacked":
            durations[1] = durations[0] + 0.35
        spin_time = 0.0
        if kind == "spinner":
            spin_time = 7.5  # longer than the watcher's default timeout of 6 s
        release = 0.25
        total_motion = max(durations) + spin_time
        tumbles = [float(self.rng.uniform(3, 6)) * math.pi for _ in range(2)]
        offsets = [np.array([0.0, -0.4 * d]), np.array([0.0, 0.4 * d])]
        hx0, hy0, _ = start
        hand_target = (hx0 * 0.75, hy0 * 0.75)

        def pose(i: int, t: float) -> DiePose:
            dur = durations[i]
            u = min(1.0, max(0.0, (t - release) / dur))
            p0 = np.array(hand_target) + offsets[i]
            pf = np.array(finals[i])
            ease = 1 - (1 - u) ** 1.7
            xy = p0 + (pf - p0) * ease
            direction = pf - p0
            norm = float(np.linalg.norm(direction)) or 1.0
            axis = (-direction[1] / norm, direction[0] / norm, 0.0)
            theta = tumbles[i] * (1 - u) ** 1.7
            rot = axis_rotation(axis, theta) @ rots[i]
            if kind == "spinner" and i == 0 and u >= 1.0:
                # Spinning on the table, slowing down, until spin_time has passed.
                v = min(1.0, (t - release - dur) / spin_time)
                rot = axis_rotation((0, 0, 1), 14 * math.pi * (1 - (1 - v) ** 2) - 14 * math.pi) @ rots[i]
            corners = np.array([[sx, sy, sz] for sx in (-s, s) for sy in (-s, s) for sz in (-s, s)]) @ rot.T
            ground = 0.0
            if kind == "stacked" and i == 1:
                ground = 2 * s * min(1.0, max(0.0, (u - 0.55) / 0.35))
            hop = 70.0 * max(0.0, 1 - u / 0.75) ** 2 * abs(math.cos(math.pi * 2.5 * u / 0.75))
            if u <= 0.0:
                hop = 90.0
            z = max(ground - float(corners[:, 2].min()), zs[i] if u >= 1.0 else 0.0) + hop
            if u >= 1.0:
                z = zs[i]
            return self._die((xy[0], xy[1], z), rot)

        def scene(t: float) -> Scene:
            hand = None
            if self.hands and t < release + 0.35:
                # The hand lets go and pulls back towards the edge it came from.
                v = max(0.0, (t - release) / 0.35)
                hx = hand_target[0] + (hx0 * 1.3 - hand_target[0]) * v
                hy = hand_target[1] + (hy0 * 1.3 - hand_target[1]) * v
                hand = self._hand_at((hx, hy), 90.0, holding=2 if t < release else 0)
            if t < release:
                return Scene([], hand)
            return Scene([pose(0, t), pose(1, t)], hand)

        rest_poses = [self._die((finals[i][0], finals[i][1], zs[i]), rots[i]) for i in range(2)]
        if kind == "spinner":
            rest_poses[0] = pose(0, release + total_motion + 1.0)
        truths = tuple(self._die_truths(rest_poses))
        verdict, reason = self._verdict(truths)
        if kind == "spinner":
            verdict, reason = Verdict.UNREADABLE, "did not settle"
        truth = ThrowTruth(
            index=index,
            kind=kind,
            values=tuple(truth_values),
            verdict=verdict,
            reason=reason,
            t_start=release,
            t_rest=release + total_motion,
            dice=truths,
        )
        return _Episode(release + total_motion + 0.05, scene, rest_poses, throw=truth)

    def _retouch(self, lying: list[DiePose]) -> _Episode:
        duration = 1.4
        target = lying[int(self.rng.integers(len(lying)))]
        ex, ey, _ = self._edge_point()
        tx, ty = target.center[0], target.center[1] - 0.6 * self.die_mm
        # A touch may shift a die by a fraction of a millimetre and turn it a degree: not a throw.
        nudged = [
            replace(
                p,
                rot=axis_rotation((0, 0, 1), math.radians(float(self.rng.uniform(-1.5, 1.5)))) @ p.rot,
                center=(
                    p.center[0] + float(self.rng.uniform(-0.6, 0.6)),
                    p.center[1] + float(self.rng.uniform(-0.6, 0.6)),
                    p.center[2],
                ),
            )
            if p is target
            else p
            for p in lying
        ]

        def scene(t: float) -> Scene:
            u = t / duration
            reach = 1 - abs(2 * u - 1)  # in and back out
            x = ex + (tx - ex) * min(1.0, reach * 1.6)
            y = ey + (ty - ey) * min(1.0, reach * 1.6)
            height = 25.0 + 60.0 * (1 - min(1.0, reach * 1.6))
            dice = nudged if u > 0.5 else lying
            return Scene(list(dice), self._hand_at((x, y), height, holding=0))

        return _Episode(duration, scene, nudged, action=ActionTruth("retouch", 0.0, duration))

    def _pickup(self, lying: list[DiePose]) -> _Episode:
        duration = 1.6
        cx = float(np.mean([p.center[0] for p in lying]))
        cy = float(np.mean([p.center[1] for p in lying]))
        ex, ey, _ = self._edge_point()

        def scene(t: float) -> Scene:
            u = t / duration
            reach = 1 - abs(2 * u - 1)
            x = ex + (cx - ex) * min(1.0, reach * 1.5)
            y = ey + (cy - ey) * min(1.0, reach * 1.5)
            picked = u > 0.5
            return Scene(
                [] if picked else list(lying), self._hand_at((x, y), 40.0, holding=2 if picked else 0)
            )

        return _Episode(duration, scene, [], action=ActionTruth("pickup", 0.0, duration))

    # -- rendering ------------------------------------------------------------------------------------

    def _place_pieces(self) -> list[DiePose]:
        b = self.board_mm / 2
        d = self.die_mm
        pieces = [
            # A red hotel the "cocked" throws lean a die against.
            DiePose(
                (b * 0.35, b * 0.05, 0.45 * d), np.eye(3), (0.45 * d, 0.9 * d, 0.45 * d), (40, 40, 200), False
            ),
            DiePose(
                (-b * 0.92, -b * 0.5, 0.3 * d),
                axis_rotation((0, 0, 1), 0.1),
                (0.3 * d, 0.3 * d, 0.3 * d),
                (60, 150, 40),
                False,
            ),
            DiePose(
                (-b * 0.92, -b * 0.3, 0.3 * d),
                axis_rotation((0, 0, 1), -0.05),
                (0.3 * d, 0.3 * d, 0.3 * d),
                (60, 150, 40),
                False,
            ),
        ]
        return pieces

    def still(self, dice: Sequence[DiePose]) -> U8:
        """One frame of `dice` posed by hand (no throw, no hand in view): a table set up for a test or bench."""
        return self.render(Scene(list(dice)))

    def posed_die(self, center: Sequence[float], rot: F64) -> DiePose:
        """A die of this camera's size and colours centred at `center` (mm), turned by `rot` (die -> world)."""
        return self._die(center, rot)

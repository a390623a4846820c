"""The roll watcher: a stream of frames in, exactly one `RollEvent` per physical throw out.

Pure: frames (BGR uint8 arrays with a monotonic timestamp) in, frozen values out; no I/O, no clocks except
`time.perf_counter` to report how long the reader took.

How a throw is recognised
-------------------------
Every frame is shrunk to about 160 pixels wide, turned to grey and compared with the previous one inside
the play area (widened by a margin so a die rolling off the board is still followed). That costs a small
fraction of a millisecond at 640x480, so the watcher can look at every frame.

    QUIET / SETTLED --motion--> MOVING --still--> SETTLING --still for rest_s--> decide

When the scene has been still for `rest_s`, it is compared with the *reference*: the last scene the
watcher accepted as "how the table looks between throws". The decision, in order:

1. Hardly different from the reference  -> nothing happened (a hand hovered and left, the same dice are
   still lying there, someone bumped the table). No read.
2. Different over many die areas         -> something big is in the play area (a hand holding dice, an arm
   resting on the board). No read; keep waiting. If it stays like that for `adopt_after_s` (a lamp was
   switched on, the board was moved) the new look becomes the reference, still without an event.
3. Hardly different from a scene known to hold no throw (the table as it was when watching started, or
   after the dice were last lifted) -> the play area was cleared: no read. This keeps board features a
   reader might mistake for a die (lettering, a piece) from turning every pick-up into an event.
4. Otherwise read the dice once: with a `throw_reader`, only where the scene differs from the reference
   (vision/change.py: the dice thrown, the places they were lifted from, a piece moved meanwhile), since a
   die that did not move is no part of this throw and the rest of the board holds no die; but where it
   changed only around the dice lying (touched), the whole scene. No dice found -> the play area was
   cleared (dice lifted): no event. The same values at the same places as the last event -> the same dice
   were touched, not thrown: no event. The dice of a refused throw touched and still refused: no event
   (the players were told to roll again already). Anything else -> one `RollEvent`, and the read scene
   becomes the reference.

A throw that is still moving `timeout_s` after it started gives one `unreadable` event; when it finally
comes to rest that scene is adopted silently, since the players were already told to roll again.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from vision.change import THRESHOLD, WORK_WIDTH, Box, changed_boxes, cores, inside, shrink
from vision.reading import DiceReading, Die, Verdict

if TYPE_CHECKING:
    from calibration.model import Calibration

U8 = npt.NDArray[np.uint8]
Reader = Callable[[U8], DiceReading]
# A frame; where to read it (None: all of it); the table before the throw, full size, black where a die lay.
ThrowReader = Callable[[U8, tuple[Box, ...] | None, U8 | None], DiceReading]


@dataclass(frozen=True, eq=False)
class Frame:
    """One camera frame: BGR uint8 pixels and a monotonic timestamp in seconds."""

    image: U8
    t: float
    index: int = 0

    @property
    def size(self) -> tuple[int, int]:
        """(width, height)"""
        return int(self.image.shape[1]), int(self.image.shape[0])


class WatchState(StrEnum):
    QUIET = "quiet"  # at rest, nothing new since the reference was taken
    MOVING = "moving"
    SETTLING = "settling"  # still, waiting for rest_s to pass
    SETTLED = "settled"  # at rest after an event: the thrown dice are lying there


@dataclass(frozen=True)
class WatcherConfig:
    """Tuning of the watcher. Areas are in units of one die's top face, so they follow the camera distance."""

    rest_s: float = 0.15  # how long the scene must be still before it is read
    timeout_s: float = 6.0  # a throw still moving after this long is unreadable
    adopt_after_s: float = 3.0  # a big still change (lighting, board moved) becomes the reference after this
    work_width: int = WORK_WIDTH  # frames are shrunk to about this width for the motion check (160)
    pixel_threshold: int = THRESHOLD  # grey-level change that counts as a changed pixel (14, after shrinking)
    motion_die_areas: float = 0.08  # changed pixels between frames that count as motion
    same_scene_die_areas: float = 0.25  # less change than this from the reference: nothing happened
    obstruction_die_areas: float = 10.0  # more change than this: a hand or arm is in the play area
    margin_die_sizes: float = 3.0  # the motion area reaches this far beyond the play polygon
    same_dice_tolerance: float = 0.35  # die centres closer than this (in die sizes) are "the same place"
    touch_die_sizes: float = 1.5  # change only this close to the dice lying (beyond their faces): touched
    default_die_fraction: float = 1 / 12  # die size guess without a calibration: this much of min(w, h)
    history: int = 64  # decisions kept in `RollWatcher.notes` for diagnostics


@dataclass(frozen=True, eq=False)
class RollEvent:
    """One throw: the reading (verdict, values), the frame it was read from and when things happened."""

    reading: DiceReading
    frame: Frame
    throw_index: int
    motion_t: float  # first frame with motion of this throw
    rest_t: float | None  # first still frame of the rest that was read (None for a timeout)
    latency_frames: int  # frames from the first still frame to the frame that was read
    read_ms: float  # wall time the reader took
    timed_out: bool = False

    @property
    def t(self) -> float:
        return self.frame.t

    @property
    def latency_ms(self) -> float:
        """Frame time from the first still frame to the read frame (plus the read itself)."""
        if self.rest_t is None:
            return 0.0
        return (self.frame.t - self.rest_t) * 1000.0 + self.read_ms

    def to_json(self) -> dict[str, object]:
        return {
            "throw": self.throw_index,
            "t": round(self.frame.t, 3),
            "reading": self.reading.to_json(),
            "timed_out": self.timed_out,
            "latency_frames": self.latency_frames,
            "latency_ms": round(self.latency_ms, 1),
        }


@dataclass
class _Geometry:
    """Per-frame-size state: the shrink factor and the masks, built on the first frame."""

    size: tuple[int, int]
    factor: int  # frame pixels per work pixel, each way
    motion_mask: U8  # play area plus margin, small resolution, 0/255
    mask_pixels: int
    die_area_small: float
    die_size_px: float


@dataclass
class _Episode:
    motion_t: float
    rest_t: float | None = None
    rest_index: int = 0
    spent: bool = False  # a timeout event was already given for this motion
    obstructed_since: float | None = None


@dataclass
class RollWatcher:
    """Feed frames with `feed(frame)`; it returns a `RollEvent` on the frame a throw is decided, else None.

    `reader` reads one BGR frame (the real one is `vision.read_dice` bound to the calibration); it is a
    parameter so the watcher can be driven by any reader. `throw_reader`, if given, reads the throws
    instead: a frame, the boxes (frame pixels) where it differs from the reference, which is all it needs
    to read (None where it must read the whole frame: the dice lying were touched), and the reference at
    full size, the table before the throw, with the dice that lay in it blacked out (the real one is
    `vision.read_dice(..., changed=boxes, before=before)`). The first scene and adopted ones are read whole
    by `reader`: there is no earlier look to compare them with.
    """

    reader: Reader
    calibration: Calibration | None = None
    config: WatcherConfig = field(default_factory=WatcherConfig)
    throw_reader: ThrowReader | None = None

    def __post_init__(self) -> None:
        self.state = WatchState.QUIET
        self.notes: deque[tuple[float, str]] = deque(maxlen=self.config.history)
        self.throws = 0
        self.last_event: RollEvent | None = None
        self._geom: _Geometry | None = None
        self._prev: U8 | None = None
        self._reference: U8 | None = None
        self._reference_image: U8 | None = None  # the reference at full size
        self._episode: _Episode | None = None
        self._last_motion = 0
        self._lying: tuple[Die, ...] | None = None  # the dice the last read saw lying in the play area
        self._lying_refused = False  # they are a throw that was refused (reroll, unreadable)
        self._idle: deque[U8] = deque(maxlen=3)  # recent scenes known to hold no throw

    # -- public ---------------------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget everything but the configuration (e.g. after the camera was reopened)."""
        self.__post_init__()

    @property
    def last_motion_pixels(self) -> int:
        """Changed pixels (at work resolution) between the last two frames, for diagnostics."""
        return self._last_motion

    def feed(self, frame: Frame) -> RollEvent | None:
        small = self._shrink(frame)
        prev, self._prev = self._prev, small
        if prev is None or self._reference is None:
            # Dice already lying there when watching starts are not a throw, and touching them isn't either.
            self._reference = small
            self._reference_image = frame.image.copy()  # (a source may reuse its buffer)
            self._idle.append(small)
            self._lying = self._read(frame.image)[0].dice
            self._lying_refused = False
            return None
        geom = self._geom
        assert geom is not None
        cfg = self.config
        moving = self._changed(small, prev) >= max(3.0, cfg.motion_die_areas * geom.die_area_small)

        if self.state in (WatchState.QUIET, WatchState.SETTLED):
            if moving:
                self.state = WatchState.MOVING
                self._episode = _Episode(motion_t=frame.t)
            return None

        ep = self._episode
        assert ep is not None
        if moving:
            self.state = WatchState.MOVING
            ep.rest_t = None
            ep.obstructed_since = None
            return self._check_timeout(frame, small, ep)

        if self.state is WatchState.MOVING:
            self.state = WatchState.SETTLING
            ep.rest_t = frame.t
            ep.rest_index = frame.index
        assert ep.rest_t is not None
        if frame.t - ep.rest_t < cfg.rest_s - 1e-9:
            return self._check_timeout(frame, small, ep)
        return self._decide(frame, small, ep)

    def watch(self, frames: Iterable[Frame]) -> Iterator[RollEvent]:
        """Every event from a stream of frames."""
        for frame in frames:
            event = self.feed(frame)
            if event is not None:
                yield event

    # -- internals ------------------------------------------------------------------------------------

    def _note(self, t: float, text: str) -> None:
        self.notes.append((t, text))

    def _shrink(self, frame: Frame) -> U8:
        img = frame.image
        h, w = img.shape[:2]
        if self._geom is None or self._geom.size != (w, h):
            self._geom = self._build_geometry(w, h)
            self._prev = None
            self._reference = None
            self._reference_image = None
        return shrink(img, self._geom.factor)

    def _build_geometry(self, w: int, h: int) -> _Geometry:
        cfg = self.config
        factor = max(1, round(w / cfg.work_width))
        sw, sh = max(1, w // factor), max(1, h // factor)
        scale_x, scale_y = sw / w, sh / h
        cal = self.calibration
        die_px = float(cal.die_size_px) if cal and cal.die_size_px else cfg.default_die_fraction * min(w, h)
        if cal is not None and cal.image_size != (w, h):
            # A calibration for another size of its shape is rescaled: same camera, other mode (another shape
            # is refused: Calibration.check_frame).
            die_px *= w / cal.image_size[0]
        mask = np.zeros((sh, sw), np.uint8)
        if cal is not None:
            pts = np.array([[x * scale_x, y * scale_y] for x, y in cal.play_polygon_in((w, h))])
            cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
            margin = round(cfg.margin_die_sizes * die_px * scale_x)
            if margin > 0:
                kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1))
                mask = np.asarray(cv2.dilate(mask, kernel), dtype=np.uint8)
        else:
            mask[:] = 255
        die_small = die_px * scale_x
        return _Geometry(
            size=(w, h),
            factor=factor,
            motion_mask=mask,
            mask_pixels=int(np.count_nonzero(mask)),
            die_area_small=max(1.0, die_small * die_small),
            die_size_px=die_px,
        )

    def _changed(self, a: U8, b: U8) -> int:
        geom = self._geom
        assert geom is not None
        diff = cv2.absdiff(a, b)
        _, hot = cv2.threshold(diff, self.config.pixel_threshold, 255, cv2.THRESH_BINARY)
        hot = cv2.bitwise_and(hot, geom.motion_mask)
        n = int(cv2.countNonZero(hot))
        self._last_motion = n
        return n

    def _geom_die_area(self) -> float:
        assert self._geom is not None
        return self._geom.die_area_small

    def _die_areas_from_reference(self, small: U8) -> float:
        geom = self._geom
        assert geom is not None and self._reference is not None
        n = self._changed(small, self._reference)
        return n / geom.die_area_small

    def _check_timeout(self, frame: Frame, small: U8, ep: _Episode) -> RollEvent | None:
        cfg = self.config
        if ep.spent or frame.t - ep.motion_t < cfg.timeout_s:
            return None
        # A hand rummaging on the board is not a throw; only time out while the play area is clear of it.
        if self._die_areas_from_reference(small) > cfg.obstruction_die_areas:
            return None
        ep.spent = True
        self._lying = None
        self.throws += 1
        reading = DiceReading(Verdict.UNREADABLE, f"the throw did not settle within {cfg.timeout_s:g} s")
        event = RollEvent(reading=reading, frame=frame, throw_index=self.throws, motion_t=ep.motion_t,
                          rest_t=None, latency_frames=0, read_ms=0.0, timed_out=True)
        self._note(frame.t, "timeout")
        self.last_event = event
        return event

    def _settle(self, frame: Frame, small: U8, state: WatchState) -> None:
        self._reference = small
        self._reference_image = frame.image.copy()
        self.state = state
        self._episode = None

    def _decide(self, frame: Frame, small: U8, ep: _Episode) -> RollEvent | None:
        cfg = self.config
        change = self._die_areas_from_reference(small)
        if ep.spent:
            self._note(frame.t, "rest after timeout: adopted")
            self._lying = self._read(frame.image)[0].dice
            self._lying_refused = True  # the timeout was an `unreadable` event
            self._settle(frame, small, WatchState.QUIET)
            return None
        if change < cfg.same_scene_die_areas:
            self._note(frame.t, f"same scene ({change:.2f} die areas)")
            self._settle(frame, small, WatchState.SETTLED if self._lying is not None else WatchState.QUIET)
            return None
        if change > cfg.obstruction_die_areas:
            if ep.obstructed_since is None:
                ep.obstructed_since = frame.t
                self._note(frame.t, f"obstructed ({change:.1f} die areas)")
            if frame.t - ep.obstructed_since >= cfg.adopt_after_s:
                self._note(frame.t, "big still change adopted as the new reference")
                self._lying = self._read(frame.image)[0].dice
                self._lying_refused = False
                self._settle(frame, small, WatchState.QUIET)
            return None

        if any(self._changed(small, idle) / self._geom_die_area() < cfg.same_scene_die_areas for idle in self._idle):
            self._note(frame.t, "play area cleared (as the table looked with no throw)")
            self._lying = None
            self._settle(frame, small, WatchState.QUIET)
            return None
        reading, read_ms, near, near_dice = self._read(frame.image, small)
        # Dice lie where nothing changed as they lay before; only those where the scene changed are new.
        # (Judged on the changed places alone, a die the last read saw that this one did not, or the other
        # way round, where nothing changed, does not make a throw.)
        kept = tuple(d for d in self._lying or () if not inside(d.center, near))
        now = tuple(d for d in reading.dice if inside(d.center, near))
        lying = now + kept
        if not lying:
            self._note(frame.t, "play area cleared")
            self._lying = None
            self._idle.append(small)
            self._settle(frame, small, WatchState.QUIET)
            return None
        before = tuple(d for d in self._lying or () if inside(d.center, near))
        if self._lying is not None and self._same_dice(before, now):
            self._note(frame.t, "same dice as the last throw")
            self._lying = lying
            self._settle(frame, small, WatchState.SETTLED)
            return None
        if near_dice and self._lying_refused and reading.verdict is not Verdict.OK:
            # The dice of a refused throw touched, and still refused: the players were told to roll again
            # already. (A cocked or stacked pair is read differently each time a hand nudges it, so "the
            # same dice" cannot be told from their values and places.)
            self._note(frame.t, "the refused throw's dice touched")
            self._lying = lying
            self._settle(frame, small, WatchState.SETTLED)
            return None
        self.throws += 1
        event = RollEvent(reading=reading, frame=frame, throw_index=self.throws, motion_t=ep.motion_t,
                          rest_t=ep.rest_t, latency_frames=max(0, frame.index - ep.rest_index),
                          read_ms=read_ms)
        self._note(frame.t, f"roll {self.throws}: {reading.verdict.value} {reading.values}")
        self.last_event = event
        self._lying = lying
        self._lying_refused = reading.verdict is not Verdict.OK
        self._settle(frame, small, WatchState.SETTLED)
        return event

    def _read(self, image: U8, small: U8 | None = None) -> tuple[DiceReading, float, tuple[Box, ...], bool]:
        """The reading of `image` and how long it took (ms); with its work-size copy `small`, also where a
        die that came or went may lie (vision/change.py's cores of the changes from the reference), and
        whether the scene changed only around the dice lying.

        With a throw reader, `image` is read only where it differs from the reference (finding where is
        part of the time), beside the reference at full size. Where the scene changed only around the dice
        lying (`touched`: a hand nudged or lifted them, or the throw fell where they lay), it is read whole: a
        read of a part may find a part of a die, and whether these are the same dice is judged against a whole
        read's."""
        started = time.perf_counter()
        geom = self._geom
        reading: DiceReading | None = None
        near: tuple[Box, ...] = ((0, 0, *geom.size),) if geom else ()
        near_dice = False
        if small is not None and self._reference is not None and geom:
            boxes = changed_boxes(self._reference, small, die=geom.die_size_px / geom.factor,
                                  threshold=self.config.pixel_threshold, factor=geom.factor, mask=geom.motion_mask)
            near = cores(boxes, geom.die_size_px, geom.size)
            near_dice = touched(boxes, self._lying or (), geom.die_size_px * (0.5 + self.config.touch_die_sizes))
            if self.throw_reader is not None:
                reading = self.throw_reader(image, None if near_dice else boxes, self._before())
        if reading is None:
            reading = self.reader(image)
        return reading, (time.perf_counter() - started) * 1000.0, near, near_dice

    def _before(self) -> U8 | None:
        """The reference at full size with the dice that lay in it blacked out, 1.25 of a side round each centre
        (nothing known there: where a die lifted uncovers the board's print, the print is new)."""
        if self._reference_image is None:
            return None
        before = self._reference_image.copy()
        size = self._geom.die_size_px if self._geom else 0.0
        for d in self._lying or ():  # (its corners, 0.71 of a side out, and the side faces a tilted camera sees)
            cv2.circle(before, (round(d.center[0]), round(d.center[1])), max(1, round(1.25 * (d.size or size))),
                       (0, 0, 0), -1)
        return before

    def _same_dice(self, before: tuple[Die, ...], now: tuple[Die, ...]) -> bool:
        """Whether `now` are the dice `before`: as many, each with the same value at the same place. Of a refused
        throw, a die not read either time is taken for the same die whatever the other read (a cocked or stacked
        die reads differently as the view of it changes: the table before the throw, vision/sidepips.py, where
        a hand nudged it)."""
        if len(before) != len(now):
            return False
        geom = self._geom
        assert geom is not None
        tol = self.config.same_dice_tolerance * geom.die_size_px
        unused = list(before)
        for die in now:
            match = next((b for b in unused if (b.value == die.value or (
                self._lying_refused and None in (b.value, die.value)))
                          and abs(b.center[0] - die.center[0]) <= tol
                          and abs(b.center[1] - die.center[1]) <= tol), None)
            if match is None:
                return False
            unused.remove(match)
        return True


def watch(frames: Iterable[Frame], reader: Reader, calibration: Calibration | None = None,
          config: WatcherConfig | None = None) -> Iterator[RollEvent]:
    """Convenience: every RollEvent in a stream of frames."""
    watcher = RollWatcher(reader=reader, calibration=calibration, config=config or WatcherConfig())
    yield from watcher.watch(frames)


def touched(boxes: tuple[Box, ...], dice: tuple[Die, ...], reach: float) -> bool:
    """Whether every box of change lies within `reach` pixels (each way) of a die's centre: the change is
    the dice lying being touched or lifted, not a throw landing somewhere new. No change: not touched."""
    return bool(boxes) and bool(dice) and all(
        any(d.center[0] - reach <= x0 and x1 <= d.center[0] + reach and d.center[1] - reach <= y0
            and y1 <= d.center[1] + reach for d in dice) for x0, y0, x1, y1 in boxes)

"""Frame sources: where frames come from. Every source yields `vision.watcher.Frame` (BGR uint8 + time).

- `PiCamera`      the Raspberry Pi camera through picamera2 (imported inside the class, so this module
                  imports on any laptop); exposure, gain and white balance are fixed after a settling time,
                  and the lens focus is fixed where the camera module has autofocus.
- `CaptureSource` a webcam (`webcam:0`) or a video file (`video:PATH`) through OpenCV's VideoCapture.
- `FolderSource`  the images of a folder, in name order, at a nominal frame rate.
- `SimulatedCamera` (hardware.simcam) rendered throws with ground truth.

A source that cannot open raises `SourceError` with one line naming the problem. A source that fails
mid-stream raises `SourceLost`; `RetryingSource` turns that into a status report and retries in the
background of the stream, so the service keeps running and the game goes on with manual entry.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, Self, runtime_checkable

import numpy as np

from vision.watcher import Frame

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(OSError):
    """A frame source that can't be used (not found, not openable); the message says which and why."""


class SourceLost(SourceError):
    """A source that was working stopped delivering frames."""


@runtime_checkable
class FrameSource(Protocol):
    """Open it, read frames until `read()` returns None (end of a finite stream), close it."""

    name: str

    def open(self) -> None: ...

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


class SourceBase(ABC):
    """A frame source's shared part: `with` opens and closes it, iterating reads until the stream ends."""

    name = "source"

    @abstractmethod
    def open(self) -> None: ...

    @abstractmethod
    def read(self) -> Frame | None: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame


def _bgr(image: Any) -> np.ndarray[Any, np.dtype[np.uint8]]:
    arr = np.asarray(image)
    if arr.ndim == 2:
        arr = np.repeat(arr[:, :, None], 3, axis=2)
    elif arr.ndim == 3 and arr.shape[2] == 4:
        arr = arr[:, :, :3]
    if arr.dtype != np.uint8:
        arr = np.clip(arr, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(arr)


class PiCamera(SourceBase):
    """The Pi camera via picamera2.

    picamera2's "RGB888" format delivers pixels in B, G, R byte order, which is exactly OpenCV's BGR, so
    frames need no conversion. Automatic exposure and white balance run for `settle_s` and are then frozen
    at the values they reached: a drifting exposure would look like motion to the roll watcher and change
    the die colours the calibration sampled. Cameras with autofocus (Camera Module 3) get a fixed lens
    position instead (`lens_position` in dioptres; None keeps what one autofocus cycle found).
    """

    def __init__(
        self,
        size: tuple[int, int] = (1280, 960),
        fps: float = 30.0,
        settle_s: float = 1.5,
        lens_position: float | None = None,
        camera_num: int = 0,
    ) -> None:
        self.size = size
        self.fps = fps
        self.settle_s = settle_s
        self.lens_position = lens_position
        self.camera_num = camera_num
        self.name = f"picamera:{camera_num}"
        self._cam: Any = None
        self._index = 0
        self.fixed_controls: dict[str, Any] = {}

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise SourceError(
                "picamera2 is not installed (it comes with Raspberry Pi OS: apt install python3-picamera2)"
            ) from exc
        try:
            cam = Picamera2(self.camera_num)
            config = cam.create_video_configuration(
                main={"size": tuple(self.size), "format": "RGB888"},
                controls={"FrameRate": float(self.fps)},
            )
            cam.configure(config)
            cam.start()
        except Exception as exc:  # picamera2 raises bare RuntimeError/IndexError for a missing camera
            raise SourceError(f"cannot open the Pi camera {self.camera_num}: {exc}") from exc
        self._cam = cam
        self._settle()

    def _settle(self) -> None:
        cam = self._cam
        has_af = "AfMode" in getattr(cam, "camera_controls", {})
        if has_af and self.lens_position is None:
            # One autofocus cycle, then the lens stays where it ended (AfMode 0 = manual).
            with contextlib.suppress(Exception):
                cam.autofocus_cycle()
        deadline = time.monotonic() + self.settle_s
        metadata: dict[str, Any] = {}
        while True:
            metadata = dict(cam.capture_metadata() or {})
            if time.monotonic() >= deadline:
                break
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in metadata:
                controls[key] = metadata[key]
        if has_af:
            controls["AfMode"] = 0
            lens = self.lens_position if self.lens_position is not None else metadata.get("LensPosition")
            if lens is not None:
                controls["LensPosition"] = float(lens)
        cam.set_controls(controls)
        self.fixed_controls = controls

    def read(self) -> Frame | None:
        if self._cam is None:
            raise SourceError("the Pi camera is not open")
        try:
            request = self._cam.capture_request()
            try:
                image = request.make_array("main")
                metadata = request.get_metadata() or {}
            finally:
                request.release()
        except Exception as exc:
            raise SourceLost(f"the Pi camera stopped delivering frames: {exc}") from exc
        stamp = metadata.get("SensorTimestamp")
        t = float(stamp) / 1e9 if stamp else time.monotonic()
        frame = Frame(_bgr(image), t, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._cam is not None:
            with contextlib.suppress(Exception):
                self._cam.stop()
            with contextlib.suppress(Exception):
                self._cam.close()
            self._cam = None


def _quiet_capture(target: int | str) -> Any:
    """cv2.VideoCapture without OpenCV's own warnings on stderr: a camera that is not there says so once, in our
    SourceError, not in backend lines repeated at every retry while the clerk types rolls by hand."""
    import cv2
    from cv2.utils import logging as cv_logging

    level = cv_logging.getLogLevel()
    cv_logging.setLogLevel(cv_logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(target)
    finally:
        cv_logging.setLogLevel(level)


class CaptureSource(SourceBase):
    """A webcam (int index) or a video file (path) through cv2.VideoCapture.

    Video files are timed by their own frame clock (CAP_PROP_POS_MSEC), so the watcher sees the real
    timing even when frames are read faster than real time; webcams by the monotonic clock.
    """

    def __init__(
        self, target: int | str | Path, size: tuple[int, int] | None = None, fail_after: int = 5
    ) -> None:
        self.target = target
        self.is_file = not isinstance(target, int)
        self.name = f"video:{target}" if self.is_file else f"webcam:{target}"
        self.size = size
        self.fail_after = fail_after
        self._cap: Any = None
        self._index = 0
        self._fps = 30.0

    def open(self) -> None:
        import cv2

        target = self.target
        if not isinstance(target, int) and not Path(target).is_file():
            raise SourceError(f"no video file at {target}")
        cap = _quiet_capture(target if isinstance(target, int) else str(target))
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.name}" + ("" if self.is_file else " (no such camera?)"))
        if self.size is not None and not self.is_file:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self._fps = fps if 1.0 <= fps <= 240.0 else 30.0
        self._cap = cap
        self._index = 0

    def read(self) -> Frame | None:
        import cv2

        if self._cap is None:
            raise SourceError(f"{self.name} is not open")
        for _ in range(max(1, self.fail_after)):
            ok, image = self._cap.read()
            if ok and image is not None:
                if self.is_file:
                    msec = float(self._cap.get(cv2.CAP_PROP_POS_MSEC) or 0.0)
                    t = msec / 1000.0 if msec > 0 or self._index == 0 else self._index / self._fps
                else:
                    t = time.monotonic()
                frame = Frame(_bgr(image), t, self._index)
                self._index += 1
                return frame
            if self.is_file:
                return None  # end of the video
        raise SourceLost(f"{self.name} stopped delivering frames")

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class FolderSource(SourceBase):
    """The images of a folder, sorted by name, timed at `fps`. `loop=True` starts over at the end."""

    def __init__(self, folder: str | Path, fps: float = 30.0, loop: bool = False) -> None:
        self.folder = Path(folder)
        self.fps = fps
        self.loop = loop
        self.name = f"folder:{folder}"
        self._files: list[Path] = []
        self._index = 0

    def open(self) -> None:
        if not self.folder.is_dir():
            raise SourceError(f"no folder at {self.folder}")
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {self.folder}")
        self._index = 0

    def read(self) -> Frame | None:
        import cv2

        if not self._files:
            raise SourceError(f"{self.name} is not open")
        i = self._index
        if i >= len(self._files) and not self.loop:
            return None
        path = self._files[i % len(self._files)]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceLost(f"cannot read image {path}")
        self._index += 1
        return Frame(_bgr(image), i / self.fps, i)

    def close(self) -> None:
        self._files = []


def open_source(spec: str, **options: Any) -> FrameSource:
    """A source from its command-line spelling (not yet opened).

    picamera | picamera:N | webcam:N | video:PATH | folder:DIR | sim | sim:SEED

    A video file or folder that is not there is refused here, as a typo: a camera away at the start is
    waited for (RetryingSource), a path spelt wrong never comes.
    """
    kind, _, arg = spec.partition(":")
    if kind == "video" and arg and not Path(arg).is_file():
        raise SourceError(f"no video file at {arg}")
    if kind == "folder" and arg and not Path(arg).is_dir():
        raise SourceError(f"no folder at {arg}")
    if kind == "picamera":
        return PiCamera(camera_num=int(arg or 0), **options)
    if kind == "webcam":
        try:
            index = int(arg or 0)
        except ValueError as exc:
            raise SourceError(f"webcam wants a number, as in webcam:0 (got {arg!r})") from exc
        return CaptureSource(index, **options)
    if kind == "video":
        if not arg:
            raise SourceError("video wants a path, as in video:throws.mp4")
        return CaptureSource(Path(arg), **options)
    if kind == "folder":
        if not arg:
            raise SourceError("folder wants a path, as in folder:frames/")
        return FolderSource(Path(arg), **options)
    if kind in ("sim", "simulated"):
        from hardware.simcam import SimulatedCamera

        return SimulatedCamera(seed=int(arg or 0), **options)
    raise SourceError(f"unknown source {spec!r} (picamera, webcam:N, video:PATH, folder:DIR, sim[:SEED])")


class RetryingSource(SourceBase):
    """Wraps a source so a camera that drops mid-game is reported and reopened, never fatal.

    `read()` returns None only when the inner source ends normally. While the camera is away it reports
    the problem through `on_status(ok, message)` once, tries to reopen every `retry_s` seconds, and
    returns None from `read_nowait()` meanwhile; the blocking `read()` keeps trying until it has a frame.
    The first `open()` still raises SourceError: a camera that was never there is a setup error.
    """

    def __init__(
        self,
        source: FrameSource,
        on_status: Callable[[bool, str], None] | None = None,
        retry_s: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.name = source.name
        self.on_status = on_status or (lambda ok, msg: None)
        self.retry_s = retry_s
        self._sleep = sleep
        self._clock = clock
        self.lost: str | None = None
        self.failures = 0
        self._next_try = 0.0

    def open(self) -> None:
        self.source.open()
        self.lost = None

    def close(self) -> None:
        self.source.close()

    def _drop(self, exc: Exception) -> None:
        self.failures += 1
        if self.lost is None:
            self.lost = str(exc)
            self.on_status(False, f"camera {self.name} lost: {exc}; retrying, enter rolls by hand meanwhile")
        with contextlib.suppress(Exception):
            self.source.close()
        self._next_try = self._clock() + self.retry_s

    def read_nowait(self) -> Frame | None:
        """One attempt: a frame, or None while the camera is away (or at the end of the stream)."""
        if self.lost is not None:
            if self._clock() < self._next_try:
                return None
            try:
                self.source.open()
            except SourceError as exc:
                self._drop(exc)
                return None
            self.lost = None
            self.on_status(True, f"camera {self.name} is back")
        try:
            return self.source.read()
        except SourceError as exc:
            self._drop(exc)
            return None

    def read(self) -> Frame | None:
        while True:
            frame = self.read_nowait()
            if frame is not None or self.lost is None:
                return frame
            self._sleep(max(0.0, min(self.retry_s, self._next_try - self._clock())))

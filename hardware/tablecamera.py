"""A table's camera side: its status, the loop that feeds frames to the roll watcher and records each throw, the
reader bound to the calibration, and the board's corners clicked or found in the clerk's console.

`TableCamera` is a part of `hardware.service.TableService` (its base class), kept here so that each file holds
one concern; it works on the service's own attributes, declared below for the type checker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Engine

from hardware import store
from hardware.errors import ServiceError, one_line

if TYPE_CHECKING:
    from calibration.model import Calibration
    from hardware.sources import FrameSource
    from vision.reading import DiceReading
    from vision.watcher import Frame, RollEvent, RollWatcher, WatcherConfig

MISFIT = "camera not read"  # the camera status's start while the calibration is for another shape of frame

# The camera status's words by kind (CameraStatus.kind), in English; the pages word the kinds in Japanese
# (web/i18n.py CAMERA_JA). {source}: the camera, {reader}: the dice reader, {detail}: the cause as the software
# gave it. "lost" and "back" take the words of the source that reports them (sources.RetryingSource).
CAMERA_WORDS: dict[str, str] = {
    "reading": "reading {source} ({reader} reader)",
    "cant_open": "camera {source} can't be opened: {detail}; retrying, enter rolls by hand meanwhile",
    "failed": "camera {source} failed: {detail}",
    "ended": "camera {source}: end of stream; enter rolls by hand",
    "misfit": MISFIT + ": {detail}, or click the board's corners in the clerk's console",
    "not_recorded": "throw not recorded: {detail}",
    "no_reader": "{detail}",
}


@dataclass
class CameraStatus:
    source: str = "none"
    ok: bool = False
    message: str = "no camera: rolls are entered by the clerk"
    # What the message says, for the pages to say it in their reader's language (web/i18n.py CAMERA_JA): none,
    # reading, cant_open, lost, back, failed, ended, misfit, not_recorded, no_reader; `detail`: the cause as
    # the software gave it (an exception's words, a calibration's shape), shown as it is.
    kind: str = "none"
    detail: str = ""
    reader: str = ""
    frames: int = 0
    throws: int = 0
    since: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "ok": self.ok, "message": self.message, "kind": self.kind,
                "detail": self.detail, "reader": self.reader,
                "frames": self.frames, "throws": self.throws, "since": self.since}


class TableCamera:
    """The camera's half of a table service (see the module's docstring)."""

    # The service's attributes this part reads and sets (hardware/service.py TableService.__init__).
    id: str
    db: Engine
    source: FrameSource | None
    reader: str
    calibration: Calibration | None
    calibration_made: datetime | None
    watcher_config: WatcherConfig | None
    _camera: CameraStatus
    _frame: Frame | None
    _jpeg: tuple[int, bytes] | None
    _recalibrated: threading.Event
    _stop: threading.Event
    _lock: threading.RLock
    _log: Callable[[str], None]

    if TYPE_CHECKING:
        def _publish(self, kind: str, rows: list[dict[str, Any]], roll: dict[str, Any] | None) -> None: ...

        def record_throw(self, *, verdict: str, reason: str, dice: Sequence[Mapping[str, Any]],
                         image_jpeg: bytes | None = None, source: str = "camera") -> dict[str, Any]: ...

    def camera_status(self) -> dict[str, Any]:
        return self._camera.to_json()

    def latest_frame_jpeg(self) -> bytes | None:
        frame = self._frame
        if frame is None:
            return None
        cached = self._jpeg
        if cached is not None and cached[0] == frame.index:
            return cached[1]
        import cv2

        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 70])
        if not ok:
            return None
        data = buf.tobytes()
        self._jpeg = (frame.index, data)
        return data

    def _set_camera(self, ok: bool, kind: str, detail: str = "", message: str | None = None) -> None:
        """The camera's status: `kind` (CAMERA_WORDS) and its cause; `message` where the source words it."""
        if message is None:
            source = self.source.name if self.source is not None else self._camera.source
            message = CAMERA_WORDS[kind].format(source=source, reader=self.reader, detail=detail)
        if self._camera.ok != ok or self._camera.message != message:
            self._camera.ok, self._camera.message = ok, message
            self._camera.kind, self._camera.detail = kind, detail
            self._camera.since = datetime.now(UTC).isoformat()
            self._log(f"table {self.id}: camera {'ok' if ok else 'NOT OK'}: {message}")
            with self._lock:
                self._publish("camera", [], roll=None)

    def calibration_outline(self) -> dict[str, Any] | None:
        """The calibrated board (and dice tray) in the pixels of the camera's frames, to draw over its preview
        (the clerk's console): a calibration made from a still of another size is scaled to the frames. None
        without a calibration."""
        cal = self.calibration
        if cal is None:
            return None
        frame = self._frame
        size = frame.size if frame is not None else cal.image_size

        def px(poly: tuple[tuple[float, float], ...]) -> list[list[float]]:
            return [[round(x, 1), round(y, 1)] for x, y in cal.in_frame(poly, size)]

        return {"size": list(size), "board": px(cal.board_polygon),
                "tray": px(cal.tray_polygon) if cal.tray_polygon else None, "source": cal.source}

    def find_corners(self) -> list[list[float]]:
        """The board's four corners in the camera's latest frame, found by its outline (calibration/outline.py),
        in the order the clerk clicks them (top-left, top-right, bottom-right, bottom-left): a proposal for the
        clerk to check and save (set_corners), not saved here. CalibrationError where the frame shows no board."""
        from calibration.fit import order_corners
        from calibration.outline import find_board

        frame = self._frame
        if frame is None:
            raise ServiceError("no camera picture yet to find the board in")
        return [[round(x, 1), round(y, 1)] for x, y in order_corners(find_board(frame.image))]

    def set_corners(self, points: Sequence[tuple[float, float]]) -> dict[str, Any]:
        """Calibrate the camera view from four clicked board corners (a board without markers): stored as a
        new calibration row, then used by the reader and the watcher from the next frame on."""
        from calibration.fit import from_corners_again

        # The corners are clicked on the preview of the camera's own frames: in their pixels, whatever size
        # the calibration they replace was made for (a still taken larger than the camera's frames).
        if self._frame is not None:
            h, w = self._frame.image.shape[:2]
            size = (int(w), int(h))
        elif self.calibration is not None:
            size = self.calibration.image_size
        else:
            raise ServiceError("no camera picture yet to calibrate against")
        # The same table and dice, clicked again: sizes, the dice's look, the lens and the tray stay known.
        cal = from_corners_again(self.calibration, points, size)  # CalibrationError names a bad corner
        with store.session_scope(self.db) as s:
            store.save_calibration(s, table_id=self.id, data=cal.to_json())
        self.calibration = cal
        self._recalibrated.set()
        with self._lock:
            self._publish("camera", [], roll=None)
        return cal.to_json()

    def _make_reader(self) -> Callable[[Any], DiceReading]:
        if self.reader == "sim-truth":
            from hardware.simcam import SimulatedCamera

            cam = self.source
            while cam is not None and not isinstance(cam, SimulatedCamera):
                cam = getattr(cam, "source", None) or getattr(cam, "inner", None)
            if cam is None:
                raise ServiceError("--reader sim-truth needs the simulated camera as the source")
            sim = cam
            # The simulator's ground truth for the frame just read: exact, for demos and tests, while the
            # real reader learns to read rendered dice.
            return lambda _image: sim.truth_reading()
        from vision import read_dice

        cal = self.calibration
        return lambda image: read_dice(image, cal)

    def _make_throw_reader(self) -> Callable[[Any, Any, Any], DiceReading] | None:
        """The real reader reading a throw only where the table changed (vision/change.py), and with the table
        as it looked before the throw (a leaning die's side face shows pips that were not there); it measures
        its windows in dice, so only with a calibrated die size."""
        if self.reader != "real" or self.calibration is None or not self.calibration.die_size_px:
            return None
        from vision import read_dice

        cal = self.calibration
        return lambda image, boxes, before: read_dice(image, cal, changed=boxes, before=before)

    def _make_watcher(self, reader: Callable[[Any], DiceReading]) -> RollWatcher:
        """The roll watcher for the table's calibration as it is now, reading with `reader`."""
        from vision.watcher import RollWatcher, WatcherConfig

        return RollWatcher(reader=reader, calibration=self.calibration, config=self.watcher_config or WatcherConfig(),
                           throw_reader=self._make_throw_reader())

    def _camera_loop(self) -> None:
        from hardware.sources import RetryingSource, SourceError

        assert self.source is not None
        self._camera.source = self.source.name
        # The calibration first: the reader is bound to it (a reader made before would read uncalibrated).
        if self.calibration is None and hasattr(self.source, "calibration"):
            self.calibration = self.source.calibration()
        if self.calibration is not None:
            self._settle_calibration()
        try:
            reader = self._make_reader()
        except ServiceError as exc:
            self._set_camera(False, "no_reader", one_line(exc))
            return
        watcher = self._make_watcher(reader)

        def on_status(ok: bool, message: str) -> None:
            if ok:
                watcher.reset()  # the scene before the loss is no reference for what the camera sees now
            self._set_camera(ok, "back" if ok else "lost", "" if ok else source.lost or "", message)

        source = RetryingSource(self.source, on_status=on_status, retry_s=1.0)
        while not self._stop.is_set():  # a camera missing at start-up is retried like a lost one
            try:
                source.open()
                break
            except SourceError as exc:
                self._set_camera(False, "cant_open", one_line(exc))
                self._stop.wait(1.0)
        if self._stop.is_set():
            return
        self._set_camera(True, "reading")
        misfit_shown = False  # the status says the calibration is for another shape of frame
        while not self._stop.is_set():
            try:
                frame = source.read_nowait()
            except Exception as exc:  # a source bug must not take the table down
                self._set_camera(False, "failed", one_line(exc))
                self._stop.wait(1.0)
                continue
            if frame is None:
                if source.lost is not None:
                    self._stop.wait(0.05)
                    continue
                self._set_camera(False, "ended")
                return
            self._frame = frame
            self._camera.frames += 1
            if self._recalibrated.is_set():
                self._recalibrated.clear()
                watcher = self._make_watcher(self._make_reader())
            misfit = self._misfit(frame.size)
            if misfit:
                # Nothing is read with a calibration for another shape of frame; the preview stays, for the
                # clerk to click the board's corners on.
                self._set_camera(False, "misfit", misfit)
                misfit_shown = True
                continue
            if misfit_shown:
                misfit_shown = False
                self._set_camera(True, "reading")
            try:
                event = watcher.feed(frame)
                if event is not None:
                    self._camera.throws += 1
                    self._on_roll_event(event)
            except Exception as exc:  # e.g. the database is away: report, keep watching
                self._log(f"table {self.id}: throw not recorded: {one_line(exc)}")
                self._set_camera(True, "not_recorded", one_line(exc))

    def _settle_calibration(self) -> None:
        """The calibration given at start-up against the table's stored ones: one stored after the given one
        was made (`calibration_made`: corners clicked in the clerk's console since the file was written; a
        unit restarted with the same --calibration lost them) wins; otherwise the given one is stored as the
        table's latest. A file written after the clicks (calibrated again) wins over them."""
        from calibration.model import Calibration

        assert self.calibration is not None
        given = self.calibration.to_json()
        with store.session_scope(self.db) as s:
            latest = store.latest_calibration(s, table_id=self.id)
            if latest is not None and latest.data != given and self.calibration_made is not None:
                stored = store.as_utc(latest.created_at)
                if stored > self.calibration_made:
                    self.calibration = Calibration.from_json(latest.data)
                    self._log(f"table {self.id}: using the calibration stored {stored:%Y-%m-%d %H:%M} UTC "
                              f"({self.calibration.source}), newer than the calibration file")
                    return
            if latest is None or latest.data != given:
                store.save_calibration(s, table_id=self.id, data=given)

    def _misfit(self, frame_wh: tuple[int, int]) -> str:
        """Why the table's calibration cannot read frames of `frame_wh` ("" where it can)."""
        if self.calibration is None:
            return ""
        try:
            self.calibration.check_frame(frame_wh)
        except ValueError as exc:
            return one_line(exc)
        return ""

    def _on_roll_event(self, event: RollEvent) -> None:
        import cv2

        from vision.draw import annotate

        reading = event.reading
        polygon = self.calibration.play_polygon_in(event.frame.size) if self.calibration is not None else None
        picture = annotate(event.frame.image, reading, polygon)
        ok, buf = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
        self.record_throw(verdict=reading.verdict.value, reason=reading.reason,
                          dice=[d.to_json() for d in reading.dice], image_jpeg=buf.tobytes() if ok else None)

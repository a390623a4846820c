"""Frame sources: a fake picamera2, real OpenCV video/folder round trips, spec parsing, retry on loss."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from hardware.simcam import SimulatedCamera
from hardware.sources import (
    CaptureSource,
    FolderSource,
    FrameSource,
    PiCamera,
    RetryingSource,
    SourceError,
    SourceLost,
    open_source,
)
from vision.watcher import Frame

# -- Pi camera with a fake picamera2 ------------------------------------------------------------------


class FakeRequest:
    def __init__(self, cam: FakePicamera2) -> None:
        self.cam = cam
        self.released = False

    def make_array(self, stream: str) -> np.ndarray:
        assert stream == "main"
        w, h = self.cam.config["main"]["size"]
        arr = np.zeros((h, w, 3), np.uint8)
        arr[..., 0] = 200  # byte 0 of RGB888 is blue: must arrive as BGR channel 0 untouched
        arr[..., 2] = 10
        return arr

    def get_metadata(self) -> dict[str, Any]:
        self.cam.stamp += 33_333_333
        return {"SensorTimestamp": self.cam.stamp}

    def release(self) -> None:
        self.released = True
        self.cam.released += 1


class FakePicamera2:
    instances: list[FakePicamera2] = []  # noqa: RUF012 - test bookkeeping
    fail_reads_after: int | None = None

    def __init__(self, camera_num: int = 0) -> None:
        if camera_num != 0:
            raise IndexError("list index out of range")
        self.camera_controls = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}
        self.config: dict[str, Any] = {}
        self.controls: list[dict[str, Any]] = []
        self.started = False
        self.stamp = 5_000_000_000
        self.released = 0
        self.reads = 0
        self.af_cycles = 0
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any], controls: dict[str, Any]) -> dict[str, Any]:
        return {"main": dict(main), "controls": dict(controls)}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        pass

    def autofocus_cycle(self) -> bool:
        self.af_cycles += 1
        return True

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.5), "LensPosition": 3.2}

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.append(dict(controls))

    def capture_request(self) -> FakeRequest:
        self.reads += 1
        if self.fail_reads_after is not None and self.reads > self.fail_reads_after:
            raise RuntimeError("Camera frontend has timed out!")
        return FakeRequest(self)


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    FakePicamera2.instances = []
    FakePicamera2.fail_reads_after = None
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2


def test_picamera_configures_bgr_and_freezes_exposure(fake_picamera2: type[FakePicamera2]) -> None:
    cam = PiCamera(size=(320, 240), settle_s=0.0)
    with cam:
        fake = fake_picamera2.instances[0]
        assert fake.config["main"] == {"size": (320, 240), "format": "RGB888"}
        assert fake.started
        frames = [cam.read() for _ in range(3)]
    fixed = fake.controls[-1]
    assert fixed["AeEnable"] is False and fixed["AwbEnable"] is False
    assert fixed["ExposureTime"] == 12000 and fixed["AnalogueGain"] == 2.5
    assert fixed["ColourGains"] == (1.9, 1.5)
    assert fixed["AfMode"] == 0 and fixed["LensPosition"] == pytest.approx(3.2)
    assert fake.af_cycles == 1
    assert all(isinstance(f, Frame) for f in frames)
    f0, f1 = frames[0], frames[1]
    assert f0 is not None and f1 is not None
    assert f0.image.shape == (240, 320, 3) and f0.image.dtype == np.uint8
    assert f0.image[0, 0, 0] == 200 and f0.image[0, 0, 2] == 10
    assert f1.t - f0.t == pytest.approx(1 / 30, abs=1e-6)
    assert fake.released == 3
    assert not fake.started


def test_picamera_manual_lens_position_skips_autofocus(fake_picamera2: type[FakePicamera2]) -> None:
    with PiCamera(settle_s=0.0, lens_position=7.5):
        fake = fake_picamera2.instances[0]
    assert fake.af_cycles == 0
    assert fake.controls[-1]["LensPosition"] == 7.5


def test_picamera_missing_camera_and_lost_camera(fake_picamera2: type[FakePicamera2]) -> None:
    with pytest.raises(SourceError, match="cannot open the Pi camera 1"):
        PiCamera(camera_num=1, settle_s=0.0).open()
    fake_picamera2.fail_reads_after = 2
    cam = PiCamera(settle_s=0.0)
    cam.open()
    assert cam.read() is not None and cam.read() is not None
    with pytest.raises(SourceLost, match="stopped delivering"):
        cam.read()
    cam.close()


def test_picamera_without_picamera2_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceError, match="picamera2 is not installed"):
        PiCamera().open()


def test_importing_hardware_does_not_import_picamera2() -> None:
    import subprocess

    code = "import sys, hardware.sources, hardware.simcam, hardware.buttons; print('picamera2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"


# -- OpenCV video and folders --------------------------------------------------------------------------


def _sim_frames(n: int) -> list[Frame]:
    cam = SimulatedCamera(seed=7, script=["ok"], size=(320, 240))
    out = []
    for frame in cam:
        out.append(frame)
        if len(out) == n:
            break
    return out


def test_video_file_round_trip(tmp_path: Path) -> None:
    frames = _sim_frames(12)
    path = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (320, 240))
    assert writer.isOpened()
    for f in frames:
        writer.write(f.image)
    writer.release()
    src = open_source(f"video:{path}")
    assert isinstance(src, CaptureSource)
    with src:
        got = list(src)  # type: ignore[call-overload]
    assert len(got) == 12
    assert got[0].image.shape == (240, 320, 3)
    assert np.mean(np.abs(got[5].image.astype(int) - frames[5].image.astype(int))) < 6  # JPEG loss only
    times = [f.t for f in got]
    assert times == sorted(times)
    assert times[-1] - times[0] == pytest.approx(11 / 30, abs=0.01)


def test_missing_video_and_webcam_are_clear_errors(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    from cv2.utils import logging as cv_logging

    level = cv_logging.getLogLevel()
    with pytest.raises(SourceError, match="no video file"):
        open_source(f"video:{tmp_path / 'nope.mp4'}").open()
    with pytest.raises(SourceError, match="cannot open webcam:97"):
        open_source("webcam:97").open()
    # Our one line says it; OpenCV's backends add nothing on stderr (the source retries while a camera is away).
    assert capfd.readouterr().err == ""
    assert cv_logging.getLogLevel() == level  # left as it was


def test_folder_source(tmp_path: Path) -> None:
    frames = _sim_frames(4)
    for i, f in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), f.image)
    (tmp_path / "notes.txt").write_text("not an image")
    src = FolderSource(tmp_path, fps=10)
    with src:
        got = list(src)
    assert [f.t for f in got] == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert np.array_equal(got[2].image, frames[2].image)  # PNG is lossless


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no folder"):
        FolderSource(tmp_path / "missing").open()
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path).open()


def test_open_source_specs(fake_picamera2: type[FakePicamera2], tmp_path: Path) -> None:
    assert isinstance(open_source("picamera"), PiCamera)
    assert isinstance(open_source("webcam:0"), CaptureSource)
    assert isinstance(open_source(f"folder:{tmp_path}"), FolderSource)
    sim = open_source("sim:3")
    assert isinstance(sim, SimulatedCamera) and sim.seed == 3
    for source in (open_source("picamera"), sim, FolderSource(tmp_path)):
        assert isinstance(source, FrameSource)
    for bad in ("webcam:x", "video:", "floppy:1"):
        with pytest.raises(SourceError):
            open_source(bad)


# -- losing a camera mid-game -------------------------------------------------------------------------


class FlakySource:
    """Delivers 3 frames, then fails; reopening fails once, then works again."""

    name = "flaky"

    def __init__(self) -> None:
        self.opens = 0
        self.reads = 0

    def open(self) -> None:
        self.opens += 1
        if self.opens == 2:
            raise SourceError("device busy")
        self.reads = 0

    def read(self) -> Frame | None:
        self.reads += 1
        if self.opens == 1 and self.reads > 3:
            raise SourceLost("cable pulled")
        return Frame(np.zeros((4, 4, 3), np.uint8), float(self.reads), self.reads)

    def close(self) -> None:
        pass


def test_retrying_source_reports_and_recovers() -> None:
    now = [0.0]
    status: list[tuple[bool, str]] = []
    src = RetryingSource(FlakySource(), on_status=lambda ok, msg: status.append((ok, msg)), retry_s=2.0,
                         sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
    src.open()
    got = [src.read_nowait() for _ in range(4)]
    assert [f is not None for f in got] == [True, True, True, False]
    assert src.lost is not None
    assert status == [(False, "camera flaky lost: cable pulled; retrying, enter rolls by hand meanwhile")]
    assert src.read_nowait() is None  # too early to retry: no busy loop on a dead camera
    frame = src.read()  # blocks (on the fake clock) through one failed reopen and one good one
    assert frame is not None
    assert status[-1] == (True, "camera flaky is back")
    assert len(status) == 2  # the failed reopen was not reported a second time
    assert now[0] == pytest.approx(4.0)
    assert src.failures == 2

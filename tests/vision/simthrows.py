"""Helpers for tests that read the simulated camera's throws or count the reader's passes."""

from __future__ import annotations

from typing import Any

import pytest

from calibration.model import Calibration
from hardware.simcam import SimulatedCamera
from vision import Verdict, read_dice


def sim_throw(kind: str, seed: int) -> tuple[Any, Calibration, Any]:
    """The frame at rest of one simulated throw of `kind`, the camera's calibration, and the truth."""
    cam = SimulatedCamera(seed=seed, script=[kind], hands=False)
    frame = list(cam)[-1].image
    (truth,) = cam.throws
    return frame, cam.calibration(), truth


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

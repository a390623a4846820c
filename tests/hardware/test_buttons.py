"""The table button driven through gpiozero's MockFactory: tap = confirm, hold = undo."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

gpiozero = pytest.importorskip("gpiozero")
from gpiozero.pins.mock import MockFactory  # noqa: E402

from hardware.buttons import TableButton  # noqa: E402


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    previous = gpiozero.Device.pin_factory
    gpiozero.Device.pin_factory = MockFactory()
    yield gpiozero.Device.pin_factory
    gpiozero.Device.pin_factory.reset()
    gpiozero.Device.pin_factory = previous


def _wait_for(cond: object, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.005)


def test_tap_confirms_and_hold_undoes(factory: MockFactory) -> None:
    log: list[str] = []
    button = TableButton(17, on_confirm=lambda: log.append("confirm"), on_undo=lambda: log.append("undo"),
                         hold_s=0.25, bounce_s=None)
    pin = factory.pin(17)
    # A tap: pressed (pulled low) well under hold_s.
    pin.drive_low()
    time.sleep(0.05)
    pin.drive_high()
    _wait_for(lambda: log)
    assert log == ["confirm"]
    # A hold: undo fires once while still pressed; releasing it is not also a tap.
    pin.drive_low()
    _wait_for(lambda: len(log) == 2)
    assert log == ["confirm", "undo"]
    time.sleep(0.4)  # well past another hold_s: no repeat
    pin.drive_high()
    time.sleep(0.05)
    assert log == ["confirm", "undo"]
    # And the next tap is a tap again.
    pin.drive_low()
    time.sleep(0.05)
    pin.drive_high()
    _wait_for(lambda: len(log) == 3)
    assert log == ["confirm", "undo", "confirm"]
    button.close()


def test_active_high_wiring(factory: MockFactory) -> None:
    log: list[str] = []
    with TableButton(27, on_confirm=lambda: log.append("confirm"), on_undo=lambda: log.append("undo"),
                     pull_up=False, hold_s=0.2, bounce_s=None):
        pin = factory.pin(27)
        pin.drive_high()
        time.sleep(0.03)
        pin.drive_low()
        _wait_for(lambda: log)
    assert log == ["confirm"]

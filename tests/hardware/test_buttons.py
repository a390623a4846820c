"""The table button driven through gpiozero's MockFactory: tap = confirm, hold = undo."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

gpiozero = pytest.importorskip("gpiozero")
from gpiozero.pins.mock import MockFactory  # noqa: E402

from hardware.buttons import ButtonError, TableButton  # noqa: E402


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


def test_a_pin_that_cannot_be_had_is_one_line(factory: MockFactory) -> None:
    with TableButton(17, on_confirm=lambda: None, on_undo=lambda: None), \
            pytest.raises(ButtonError, match=r"^button on GPIO 17: pin GPIO17 is already in use"):
        TableButton(17, on_confirm=lambda: None, on_undo=lambda: None)
    with pytest.raises(ButtonError, match=r"^button on GPIO GPIO99: GPIO99 is not a valid pin name$"):
        TableButton("GPIO99", on_confirm=lambda: None, on_undo=lambda: None)


def test_run_with_a_button_where_there_is_no_gpio_stops_before_the_store(tmp_path: object) -> None:
    """`tableside run --button 17` off a Pi (no pin factory: forced here, so a Pi running the suite agrees): one
    line saying so, exit 2, and no store made, no game started."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    data = Path(str(tmp_path)) / "data"
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "none_such", "TABLESIDE_SECRET_KEY": "x" * 40}
    p = subprocess.run([sys.executable, "-m", "tableside", "run", "--source", "none", "--button", "17", "--port", "0",
                        "--data-dir", str(data)], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [
        "tableside run: button on GPIO 17: no GPIO on this machine (gpiozero: Unable to find pin factory "
        "'none_such'): not a Raspberry Pi, or its GPIO library missing (Raspberry Pi OS: apt install python3-lgpio)"]
    assert not data.exists()

"""The optional physical button beside the board (gpiozero): tap = confirm / roll done, hold = undo."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any


class ButtonError(OSError):
    """The button cannot be had: no GPIO on this machine, a pin that does not exist or is in use."""


class TableButton:
    """One push button on a GPIO pin (wired to ground, internal pull-up by default).

    A press shorter than `hold_s` is a tap and calls `on_confirm` when released; a press that lasts
    `hold_s` calls `on_undo` once, at that moment (so the player feels when it took), and its release is
    not also a tap. gpiozero is imported here, not at module level, so laptops without it can import
    `hardware`.
    """

    def __init__(self, pin: int | str, on_confirm: Callable[[], None], on_undo: Callable[[], None],
                 hold_s: float = 1.0, pull_up: bool = True, bounce_s: float | None = 0.03,
                 pin_factory: Any = None) -> None:
        try:
            from gpiozero import Button
            from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback
        except ImportError as exc:
            raise ButtonError(f"button on GPIO {pin}: gpiozero is not installed ({exc})") from exc

        self.on_confirm = on_confirm
        self.on_undo = on_undo
        self._held = False
        self._lock = threading.Lock()
        try:
            with warnings.catch_warnings():
                # gpiozero warns of each GPIO library it passes over on its way to one that works.
                warnings.simplefilter("ignore", PinFactoryFallback)
                self.button = Button(pin, pull_up=pull_up, bounce_time=bounce_s, hold_time=hold_s,
                                     hold_repeat=False, pin_factory=pin_factory)
        except BadPinFactory as exc:
            raise ButtonError(f"button on GPIO {pin}: no GPIO on this machine (gpiozero: {exc}): not a Raspberry "
                              "Pi, or its GPIO library missing (Raspberry Pi OS: apt install python3-lgpio)") from exc
        except GPIOZeroError as exc:
            # A pin that does not exist or is taken: one line, not a traceback.
            raise ButtonError(f"button on GPIO {pin}: {exc or type(exc).__name__}") from exc
        self.button.when_held = self._held_cb
        self.button.when_released = self._released_cb

    def _held_cb(self) -> None:
        with self._lock:
            self._held = True
        self.on_undo()

    def _released_cb(self) -> None:
        with self._lock:
            was_held, self._held = self._held, False
        if not was_held:
            self.on_confirm()

    def close(self) -> None:
        self.button.close()

    def __enter__(self) -> TableButton:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

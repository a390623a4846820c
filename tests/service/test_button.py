"""The table's push button driving the service, with gpiozero's MockFactory: tap ends the turn when the
rules allow it (never otherwise), hold undoes the last command."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware import store
from hardware.buttons import TableButton
from hardware.service import TableService, wait_until


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    previous = Device.pin_factory
    Device.pin_factory = f
    yield f
    Device.pin_factory = previous
    f.reset()


def test_tap_ends_the_turn_only_when_allowed_and_hold_undoes(factory: MockFactory, tmp_path: Path) -> None:
    db = store.open_store(store.sqlite_url(tmp_path / "b.db"))
    svc = TableService(db, table_id="b", players=["A", "B"], seed=3)
    button = TableButton(17, on_confirm=svc.press_confirm, on_undo=svc.press_undo, hold_s=0.2,
                         bounce_s=None, pin_factory=factory)
    pin = factory.pin(17)

    def tap() -> None:
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()

    tap()  # before any roll: nothing to confirm, nothing changes
    time.sleep(0.1)
    assert svc.seq == 1 and svc.state().turn.player == "A"

    svc.submit({"type": "roll", "dice": [2, 3]})  # A to Reading Railroad: buy or decline pending
    seq = svc.seq
    tap()
    time.sleep(0.1)
    assert svc.seq == seq  # a decision is pending: the tap must not end the turn
    svc.submit({"type": "decline"})
    for name in ("A", "B"):
        svc.submit({"type": "pass_bid", "player": name})
    tap()
    assert wait_until(lambda: svc.state().turn.player == "B", timeout=2)
    assert svc.events()[-1]["source"] == "button"

    pin.drive_low()  # hold: undo the end of the turn
    assert wait_until(lambda: svc.state().turn.player == "A", timeout=2)
    pin.drive_high()
    time.sleep(0.1)
    assert svc.state().turn.player == "A"  # the release after a hold is not also a tap
    assert [e["type"] for e in svc.events()][-1] == "undone"
    button.close()
    db.dispose()

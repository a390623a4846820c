"""Values the dice reader returns. Pure data: no OpenCV, no I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    """Whether a throw counts (M.DICE.1-2, C.DICE.1)."""

    OK = "ok"
    REROLL = "reroll"  # a die came to rest off the board / out of the tray: roll both again
    UNREADABLE = "unreadable"  # cocked, stacked, covered, blurred, wrong count: roll both again


@dataclass(frozen=True)
class Die:
    """One die found in a frame. `value` is None when its top face could not be read."""

    value: int | None
    center: tuple[float, float]
    confidence: float
    on_board: bool = True
    size: float = 0.0  # side length of the top face in pixels
    corners: tuple[tuple[float, float], ...] = ()  # top-face quadrilateral, image coordinates

    @property
    def turn(self) -> float:
        """The direction of its top face's first edge (radians, image axes); 0 where its corners are unknown."""
        if len(self.corners) < 2:
            return 0.0
        (x0, y0), (x1, y1) = self.corners[:2]
        return math.atan2(y1 - y0, x1 - x0)

    def near(self, other: Die, sides: float, unit: float) -> bool:
        """Whether `other`'s centre lies closer than `sides` of this die's side (its size, else `unit`) to its
        centre."""
        return math.hypot(other.center[0] - self.center[0], other.center[1] - self.center[1]) < sides * (
            self.size or unit)

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "confidence": round(self.confidence, 3),
            "on_board": self.on_board,
        }


@dataclass(frozen=True)
class UnsureDie(Die):
    """A die found and not read for want of evidence, not for its pose: a die-sized body with nothing pip-like
    on it that the dice net is sure is a die but not of which value (vision/netcheck.py NET_IS_DIE). It refuses
    a throw as any unread die does; but a second read at another scale or view (vision/closeup.py,
    vision/view.py) may read it, which a refusal for a leaning, stacked or blurred die forbids, and with no
    pips seen it says nothing of how a view squashes the dice."""

    @staticmethod
    def of(d: Die) -> UnsureDie:
        return UnsureDie(None, d.center, 0.0, d.on_board, d.size, d.corners)


@dataclass(frozen=True)
class DiceReading:
    """The reader's answer for one frame."""

    verdict: Verdict
    reason: str
    dice: tuple[Die, ...] = field(default_factory=tuple)

    @property
    def values(self) -> tuple[int | None, ...]:
        return tuple(d.value for d in self.dice)

    @property
    def total(self) -> int | None:
        if self.verdict is not Verdict.OK:
            return None
        return sum(v for v in self.values if v is not None)

    @property
    def doubles(self) -> bool:
        vals = self.values
        return self.verdict is Verdict.OK and len(vals) == 2 and vals[0] == vals[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "reason": self.reason,
            "dice": [d.to_json() for d in self.dice],
            "total": self.total,
            "doubles": self.doubles,
        }
